package platform.host;

import static platform.host.SchemaComponents.F;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * alpha JSON's shapes (XStream through Jettison's mapped convention): the root is an object of one
 * member named as XStream names the type; a collection is an array of objects, each of one member
 * named by its items' type, holding one item or an array of consecutive items of that name; a null
 * field is left out; a text that looks like a number or a boolean is written as one. The Java side of
 * openapi.ts `AlphaJsonSchemas`, with the names asked of the alpha JSON serializer.
 */
final class SchemaAlphaJson {
  final ObjectNode schemas = F.objectNode();
  private final SchemaNames.Alpha names;

  SchemaAlphaJson(SchemaNames names) {
    this.names = names.alpha(true);
  }

  /** `nullable`: a null is written {"null": ""}. */
  ObjectNode root(SchemaType d, boolean nullable) {
    if (d.kind == SchemaType.Kind.VOID) return F.objectNode();
    String name = names.type(d);
    ObjectNode value = F.objectNode().put("type", "object");
    value.putObject("properties").set(name, value(d));
    value.putArray("required").add(name);
    value.put("additionalProperties", false).put("description", d.typeName() + " as XStream and Jettison write it");
    if (!nullable || !d.isReference()) return value;
    ObjectNode none = F.objectNode().put("type", "object");
    none.putObject("properties").putObject("null").put("const", "");
    none.putArray("required").add("null");
    none.put("additionalProperties", false);
    ObjectNode out = F.objectNode();
    out.putArray("anyOf").add(value).add(none);
    return out;
  }

  private ObjectNode value(SchemaType d) {
    switch (d.kind) {
      case SCALAR:
        switch (d.scalar) {
          case "String":
          case "char":
          case "Character": {
            ObjectNode s = F.objectNode();
            s.putArray("type").add("string").add("number").add("boolean");
            return s.put("description", d.scalar + ": Jettison writes a numeric text as a number");
          }
          case "boolean":
          case "Boolean":
            return F.objectNode().put("type", "boolean");
          default: {
            ObjectNode s = F.objectNode();
            s.putArray("type").add("number").add("string");
            return s.put("description", d.scalar);
          }
        }
      case DATE:
        return F.objectNode().put("type", "string").put("description", "java.util.Date: `2023-11-14 22:13:20.0 UTC`");
      case LOCAL_DATE:
        return F.objectNode().put("type", "string").put("format", "date").put("description", "java.time.LocalDate");
      case ENUM:
        return SchemaComponents.enumSchema(d);
      case OBJECT:
        return F.objectNode().put("$ref", "#/components/schemas/" + component(d));
      case LIST:
      case ARRAY: {
        String itemName = names.type(d.item);
        ObjectNode item = value(d.item);
        ObjectNode members = F.objectNode();
        // Null items are elements named null, grouped as Jettison groups a name.
        members.set(itemName, oneOrMany(item));
        members.set("null", oneOrMany(F.objectNode().put("const", "")));
        ObjectNode s = F.objectNode().put("type", "array").put("description",
            d.typeName() + ": [{\"" + itemName + "\": item or [items], \"null\": \"\"}]; an empty one is [\"\"]");
        ObjectNode object = F.objectNode().put("type", "object");
        object.set("properties", members);
        object.put("additionalProperties", false);
        s.putObject("items").putArray("anyOf").add(object).add(F.objectNode().put("const", ""));
        return s;
      }
      case MAP: {
        // An entry is an object of two members, the key and the value, each named by its type.
        ObjectNode entry = F.objectNode().put("type", "object").put("description", "the key and the value, each named by its type");
        ObjectNode s = F.objectNode().put("type", "array").put("description", d.typeName() + ": [{\"entry\": one entry or [entries]}]");
        ObjectNode object = F.objectNode().put("type", "object");
        object.putObject("properties").set("entry", oneOrMany(entry));
        object.put("additionalProperties", false);
        s.putObject("items").putArray("anyOf").add(object).add(F.objectNode().put("const", ""));
        return s;
      }
      default:
        return F.objectNode().put("description", "java.lang.Object: an object of one member named by its runtime type");
    }
  }

  /** One item, or several of one name in a row (Jettison's array of a repeated element). */
  private static ObjectNode oneOrMany(ObjectNode item) {
    ObjectNode s = F.objectNode();
    ArrayNode any = s.putArray("anyOf");
    any.add(item);
    ObjectNode many = any.addObject().put("type", "array");
    many.set("items", item);
    return s;
  }

  private String component(SchemaType d) {
    String key = d.componentKey() + ".alphaJson";
    if (schemas.has(key)) return key;
    schemas.putObject(key);
    ObjectNode properties = F.objectNode();
    for (SchemaType.Member f : d.fields()) {
      // A field XStream omits (@XStreamOmitField) stays: never written, but a body that has it is read
      // (the member is skipped), and the schema is the request's as well as the answer's.
      String attribute = names.attribute(f);
      String implicit = names.implicit(f);
      if (attribute != null) properties.set("@" + attribute, value(f.type));
      // An implicit collection's items are elements of the object itself, one or several of one name.
      else if (implicit != null) properties.set(implicit, oneOrMany(value(f.type.item)));
      else properties.set(names.field(f), value(f.type));
    }
    ObjectNode c = F.objectNode().put("type", "object").put("title", d.raw.getName() + " (alpha JSON)");
    c.set("properties", properties);
    c.put("additionalProperties", false);
    schemas.set(key, c);
    return key;
  }
}
