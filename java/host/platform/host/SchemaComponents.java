package platform.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Named component schemas for classes, one per class, shared by JSON (Jackson's shapes) and XML (xml
 * names annotate them): XStream's element names for alpha XML, Jackson's for beta XML. The Java side
 * of openapi.ts `Components`, which a test holds this equal to.
 */
final class SchemaComponents {
  static final JsonNodeFactory F = JsonNodeFactory.instance;

  final ObjectNode schemas = F.objectNode();
  /** Beta XML when true (Jackson's element names), else alpha XML (XStream's). */
  private final boolean beta;
  private final SchemaNames names;
  private final SchemaNames.Alpha alpha;

  SchemaComponents(SchemaNames names, boolean beta) {
    this.names = names;
    this.beta = beta;
    this.alpha = beta ? null : names.alpha(false);
  }

  /** The schema of a value declared `d`; `nullable` where Java lets it be null; `root`: the body itself. */
  ObjectNode schema(SchemaType d, boolean nullable, boolean root) {
    ObjectNode s = plain(d);
    // A root element is named by its type: alpha (alias, int, list, ...), beta (In, Integer, ArrayList);
    // a root collection wraps its items in that element.
    if (root && (beta || d.kind != SchemaType.Kind.OBJECT)) {
      ObjectNode xml = s.putObject("xml").put("name", beta ? names.betaRoot(d) : alpha.type(d));
      if (d.isCollection()) xml.put("wrapped", true);
    }
    return nullable && d.isReference() ? orNull(s) : s;
  }

  private ObjectNode plain(SchemaType d) {
    switch (d.kind) {
      case SCALAR:
        return scalar(d.scalar);
      case DATE:
        return F.objectNode().put("type", "integer").put("format", "int64").put("description",
            "java.util.Date: epoch milliseconds in JSON (Jackson); `2023-11-14 22:13:20.0 UTC` in alpha XML");
      case LOCAL_DATE:
        return F.objectNode().put("type", "string").put("format", "date").put("description",
            "java.time.LocalDate (alpha sequences; Jackson 2.14 without JSR-310 refuses it)");
      case ENUM:
        return enumSchema(d);
      case OBJECT:
        return F.objectNode().put("$ref", "#/components/schemas/" + component(d));
      case LIST:
      case ARRAY: {
        ObjectNode item = schema(d.item, true, false);
        // Jackson names the items of a top-level list <item>, of a field by the field (see component).
        ObjectNode xml = item.putObject("xml").put("name", beta ? "item" : alpha.type(d.item));
        // A collection of collections: each inner one is an element around its own items.
        if (d.item.isCollection()) xml.put("wrapped", true);
        ObjectNode s = F.objectNode().put("type", "array");
        s.set("items", item);
        return s.put("description", d.typeName());
      }
      case MAP: {
        ObjectNode s = F.objectNode().put("type", "object");
        s.set("additionalProperties", schema(d.item, true, false));
        return s.put("description", d.typeName());
      }
      case ANY:
        return F.objectNode().put("description", d.raw == Object.class
            ? "java.lang.Object: a String, number, boolean, list or map"
            : d.raw.getName() + ": written as its runtime class");
      default:
        return F.objectNode();
    }
  }

  static ObjectNode scalar(String type) {
    switch (type) {
      case "int":
      case "Integer":
      case "short":
      case "Short":
      case "byte":
      case "Byte":
        return F.objectNode().put("type", "integer").put("format", "int32");
      case "long":
      case "Long":
        return F.objectNode().put("type", "integer").put("format", "int64");
      case "double":
      case "Double":
        return F.objectNode().put("type", "number").put("format", "double");
      case "float":
      case "Float":
        return F.objectNode().put("type", "number").put("format", "float");
      case "boolean":
      case "Boolean":
        return F.objectNode().put("type", "boolean");
      case "char":
      case "Character":
        return F.objectNode().put("type", "string").put("minLength", 1).put("maxLength", 1);
      default:
        return F.objectNode().put("type", "string");
    }
  }

  /** An enum: its constants' names, as both families write it. */
  static ObjectNode enumSchema(SchemaType d) {
    ObjectNode s = F.objectNode().put("type", "string");
    ArrayNode values = s.putArray("enum");
    for (Object c : d.raw.getEnumConstants()) values.add(((Enum<?>) c).name());
    return s.put("description", d.raw.getName());
  }

  private String component(SchemaType d) {
    String key = d.componentKey();
    if (schemas.has(key)) return key;
    schemas.putObject(key); // placeholder first: a class may refer to itself
    ObjectNode properties = F.objectNode();
    ArrayNode required = F.arrayNode();
    for (SchemaType.Member f : d.fields()) {
      ObjectNode s = schema(f.type, true, false);
      if (beta) betaFieldXml(s, f);
      else {
        String xmlName = alpha.field(f);
        String attribute = alpha.attribute(f);
        String implicit = alpha.implicit(f);
        if (attribute != null) s.putObject("xml").put("name", attribute).put("attribute", true);
        else if (implicit != null) {
          // The items are elements of the object itself, each named by the implicit collection.
          s.putObject("xml").put("name", implicit).put("wrapped", false);
          if (s.get("items") instanceof ObjectNode) ((ObjectNode) s.get("items")).putObject("xml").put("name", implicit);
        } else if (f.type.isCollection()) s.putObject("xml").put("name", xmlName).put("wrapped", true);
        // A field of a class type is named by the field, not by the class's own xml name.
        else if (!xmlName.equals(f.name) || f.type.kind == SchemaType.Kind.OBJECT) s.putObject("xml").put("name", xmlName);
      }
      properties.set(f.name, s);
      if (!f.type.isReference()) required.add(f.name);
    }
    ObjectNode c = F.objectNode().put("type", "object").put("title", d.raw.getName());
    c.set("properties", properties);
    if (required.size() > 0) c.set("required", required);
    // Jackson's default FAIL_ON_UNKNOWN_PROPERTIES: a member the class lacks is refused (400).
    c.put("additionalProperties", false);
    c.putObject("xml").put("name", beta ? names.betaRoot(d) : alpha.type(d));
    schemas.set(key, c);
    return key;
  }

  /** Jackson XML ignores XStream's names: a field is an element of its own name, a list's items too. */
  private static void betaFieldXml(ObjectNode s, SchemaType.Member f) {
    if (f.type.kind == SchemaType.Kind.OBJECT) s.putObject("xml").put("name", f.name);
    if (!f.type.isCollection()) return;
    if (s.get("items") instanceof ObjectNode) ((ObjectNode) s.get("items")).putObject("xml").put("wrapped", false);
    s.putObject("xml").put("wrapped", true);
  }

  /** Java reference types may be null: a type list with "null", or anyOf with a null branch. */
  static ObjectNode orNull(ObjectNode s) {
    JsonNode type = s.get("type");
    if (type != null && type.isTextual()) {
      ObjectNode out = s.deepCopy();
      out.putArray("type").add(type.asText()).add("null");
      // An enum's list of values names null too, or a null would not fit.
      if (out.get("enum") instanceof ArrayNode) ((ArrayNode) out.get("enum")).addNull();
      return out;
    }
    ObjectNode out = F.objectNode();
    out.putArray("anyOf").add(s).add(F.objectNode().put("type", "null"));
    return out;
  }
}
