// The Java serializers as a test oracle: a process that stays running and answers JSON lines on
// stdin/stdout (test/helpers/oracle.ts is its client). Started by the differential tests with Debian's
// XStream 1.4.20, Jettison 1.5.3, Jackson 2.14 and Woodstox 6.2.1 on the class path
// (scripts/ensure-oracle.sh installs them when missing).
//
// Requests, one JSON object a line, answered in order:
//   {"op":"compile","sources":{"com.gen.C1":"<java source>",...},"aliases":{"com.gen.C1":"r1",...}}
//     compiles the test types in memory, loads them in a class loader of their own and builds the
//     setups: alphaXml, alphaJson (XStream, annotations processed, every type allowed), the same with
//     the aliases registered (alphaXml+aliases, alphaJson+aliases), betaXml (XmlMapper), betaJson (ObjectMapper).
//   {"op":"write","setup":"betaJson","type":<spec>,"value":<value>}  -> {"text":"..."} or {"error":"Class","message":"..."}
//   {"op":"read","setup":"alphaXml","type":<spec>,"text":"..."}      -> {"value":<value>} or {"error":...}
//   {"op":"batch","requests":[...]}                                   -> {"results":[...]}
//   a read or write with "zone":"Europe/Berlin": dates in that zone (XStream's DateConverter(zone), setTimeZone)
// A spec: {"k":"int"|"Integer"|"long"|"Long"|"double"|"Double"|"boolean"|"Boolean"|"char"|"Character"|"String"|"Date"|"LocalDate"}
//   or {"k":"object","c":"com.gen.C1","f":[{"n":"name","t":<spec>},...]} (every field, superclass first),
//   {"k":"list","c":"java.util.List"|"java.util.ArrayList"|"java.util.LinkedList","i":<spec>},
//   {"k":"array","i":<spec>}, {"k":"map","c":"java.util.Map"|"java.util.HashMap"|"java.util.LinkedHashMap","i":<spec>},
//   {"k":"Object","a":[<object spec>,...]}: a java.lang.Object slot and the classes it may hold.
// A value: null; ints and booleans as JSON; longs as decimal strings; doubles as the 16 hex digits of
// Double.doubleToLongBits; chars and Strings as strings; Dates as epoch milliseconds; LocalDates as ISO text; objects as
// {field: value}; lists and arrays as arrays; maps as [[key, value], ...] in iteration order.
// A value in an Object slot names its runtime class: {"!t":<tag>,"v":<value as that class>}, where a tag is
// {"k":"Integer"|"Long"|"Double"|"Boolean"|"Character"|"String"|"BigInteger"|"Date"|"LocalDate"} (BigInteger
// as a decimal string), {"k":"object","c":<a class of the slot's "a">}, {"k":"list","c":"java.util.ArrayList"|
// "java.util.LinkedList","i":{"k":"Object"}} or {"k":"map","c":"java.util.HashMap"|"java.util.LinkedHashMap",
// "i":{"k":"Object"}} (their items Object slots of the same classes), or {"k":"array","i":<component tag>}
// (a component also "int", "long", "double", "boolean", "char" or {"k":"Object"}). Written values are built
// as that class; values read are dumped by the class Java built (Jackson's untyped LinkedHashMap, ArrayList, ...).
// A value read whose Java class is not the one the spec names comes back as {"!class":"<its class>"}.
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.io.json.JettisonMappedXmlDriver;
import java.io.*;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.tools.*;

public class Oracle {
  static final ObjectMapper PROTOCOL = new ObjectMapper();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  static ClassLoader loader = Oracle.class.getClassLoader();
  static final Map<String, XStream> ALPHA = new HashMap<>();
  static ObjectMapper betaJson = new ObjectMapper();
  static XmlMapper betaXml = new XmlMapper();

  public static void main(String[] args) throws Exception {
    PROTOCOL.getFactory().enable(JsonGenerator.Feature.ESCAPE_NON_ASCII);
    setups(List.of(), Map.of());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode answer;
      try {
        answer = answer(PROTOCOL.readTree(line));
      } catch (Throwable e) {
        answer = error(e);
      }
      out.println(PROTOCOL.writeValueAsString(answer));
      out.flush();
    }
  }

  static JsonNode answer(JsonNode req) throws Exception {
    switch (req.get("op").asText()) {
      case "batch": {
        ArrayNode results = NODES.arrayNode();
        for (JsonNode r : req.get("requests")) {
          try {
            results.add(answer(r));
          } catch (Throwable e) {
            results.add(error(e));
          }
        }
        return NODES.objectNode().set("results", results);
      }
      case "compile":
        return compile(req.get("sources"), req.get("aliases"));
      case "write":
        return NODES.objectNode().put("text", write(setup(req), req.get("type"), req.get("value")));
      case "read":
        return NODES.objectNode().set("value", read(setup(req), req.get("type"), req.get("text").asText()));
      case "versions":
        return NODES.objectNode()
            .put("java", System.getProperty("java.version"))
            .put("xstream", XStream.class.getPackage().getImplementationVersion())
            .put("jackson", com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString());
      default:
        throw new OracleFailure(new IllegalArgumentException("unknown op " + req.get("op")));
    }
  }

  static ObjectNode error(Throwable e) {
    boolean oracle = e instanceof OracleFailure;
    // Reflection wraps what the serializer threw; the caller wants the serializer's own class.
    Throwable cause = oracle ? e.getCause() : e;
    while (cause instanceof java.lang.reflect.InvocationTargetException && cause.getCause() != null) cause = cause.getCause();
    String message = String.valueOf(cause.getMessage());
    if (message.length() > 2000) message = message.substring(0, 2000);
    // The innermost cause says what kind of refusal it is (XStream and Jackson wrap parse errors
    // met while converting in their own mapping exceptions).
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    ObjectNode out = NODES.objectNode().put("error", cause.getClass().getSimpleName()).put("message", message);
    out.put("rootCause", root.getClass().getName());
    if (oracle) out.put("oracleFailure", true);
    return out;
  }

  // --- setups -------------------------------------------------------------------------------

  static XStream xstream(boolean json, List<Class<?>> classes, Map<String, String> aliases) throws Exception {
    return xstream(json, classes, aliases, true);
  }

  static XStream xstream(boolean json, List<Class<?>> classes, Map<String, String> aliases, boolean rootWrapper) throws Exception {
    org.codehaus.jettison.mapped.Configuration config = new org.codehaus.jettison.mapped.Configuration();
    config.setRootElementArrayWrapper(rootWrapper);
    XStream x = json ? new XStream(new JettisonMappedXmlDriver(config)) : new XStream();
    x.setClassLoader(loader);
    x.allowTypesByWildcard(new String[] {"**"});
    x.processAnnotations(classes.toArray(new Class<?>[0]));
    for (Map.Entry<String, String> a : aliases.entrySet()) x.alias(a.getValue(), loader.loadClass(a.getKey()));
    return x;
  }

  static void setups(List<Class<?>> classes, Map<String, String> aliases) throws Exception {
    ALPHA.put("alphaXml", xstream(false, classes, Map.of()));
    ALPHA.put("alphaJson", xstream(true, classes, Map.of()));
    ALPHA.put("alphaXml+aliases", xstream(false, classes, aliases));
    ALPHA.put("alphaJson+aliases", xstream(true, classes, aliases));
    // XStream 1.4.21's reading of root collections (Jettison's root array wrapper off): see NOTES.md, "VERSION TRAP".
    ALPHA.put("alphaJson~1.4.21", xstream(true, classes, Map.of(), false));
    ALPHA.put("alphaJson+aliases~1.4.21", xstream(true, classes, aliases, false));
    TypeFactory types = TypeFactory.defaultInstance().withClassLoader(loader);
    betaJson = new ObjectMapper();
    betaJson.setTypeFactory(types);
    betaXml = new XmlMapper();
    betaXml.setTypeFactory(types);
  }

  // --- compiling the test types in memory ----------------------------------------------------

  static final class Source extends SimpleJavaFileObject {
    final String code;
    Source(String name, String code) {
      super(URI.create("string:///" + name.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
      this.code = code;
    }
    @Override public CharSequence getCharContent(boolean ignoreEncodingErrors) { return code; }
  }

  static final class Output extends SimpleJavaFileObject {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Output(String name) {
      super(URI.create("bytes:///" + name.replace('.', '/') + Kind.CLASS.extension), Kind.CLASS);
    }
    @Override public OutputStream openOutputStream() { return bytes; }
  }

  static JsonNode compile(JsonNode sources, JsonNode aliasNode) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Map<String, Output> outputs = new HashMap<>();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaFileManager files = new ForwardingJavaFileManager<StandardJavaFileManager>(javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      @Override public JavaFileObject getJavaFileForOutput(Location l, String name, JavaFileObject.Kind k, FileObject sibling) {
        Output o = new Output(name);
        outputs.put(name, o);
        return o;
      }
    };
    List<Source> units = new ArrayList<>();
    sources.fields().forEachRemaining(e -> units.add(new Source(e.getKey(), e.getValue().asText())));
    String cp = System.getProperty("java.class.path");
    boolean ok = javac.getTask(null, files, diagnostics, List.of("-nowarn", "-proc:none", "-classpath", cp), null, units).call();
    if (!ok) throw new IllegalStateException("javac: " + diagnostics.getDiagnostics());
    ClassLoader parent = Oracle.class.getClassLoader();
    loader = new ClassLoader(parent) {
      @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
        Output o = outputs.get(name);
        if (o == null) throw new ClassNotFoundException(name);
        byte[] b = o.bytes.toByteArray();
        return defineClass(name, b, 0, b.length);
      }
    };
    List<Class<?>> classes = new ArrayList<>();
    for (String name : outputs.keySet()) classes.add(loader.loadClass(name));
    Map<String, String> aliases = new LinkedHashMap<>();
    aliasNode.fields().forEachRemaining(e -> aliases.put(e.getKey(), e.getValue().asText()));
    setups(classes, aliases);
    return NODES.objectNode().put("classes", classes.size());
  }

  // --- writing and reading ---------------------------------------------------------------------

  /**
   * A failure of the oracle itself (building the Java value from a wire value, an unknown op or
   * setup), not of the serializer asked: reported as such, so the test fails instead of counting it
   * as Java refusing the input.
   */
  static final class OracleFailure extends RuntimeException {
    OracleFailure(Throwable cause) {
      super(cause);
    }
  }

  /**
   * The setup a request names; with "zone", its dates in that Java time zone: XStream with
   * `new DateConverter(TimeZone.getTimeZone(zone))` registered, a mapper with `setTimeZone`.
   */
  static String setup(JsonNode req) throws Exception {
    String setup = req.get("setup").asText();
    if (!req.has("zone")) return setup;
    String zone = req.get("zone").asText();
    String key = setup + "@" + zone;
    if (ALPHA.containsKey(key) || ZONED_BETA.containsKey(key)) return key;
    TimeZone tz = TimeZone.getTimeZone(zone);
    if (!tz.getID().equals(zone)) throw new OracleFailure(new IllegalArgumentException("unknown zone " + zone));
    switch (setup) {
      case "alphaXml":
      case "alphaJson": {
        XStream x = xstream(setup.equals("alphaJson"), List.of(), Map.of());
        x.registerConverter(new com.thoughtworks.xstream.converters.basic.DateConverter(tz));
        ALPHA.put(key, x);
        return key;
      }
      case "betaJson":
        ZONED_BETA.put(key, new ObjectMapper().setTimeZone(tz));
        return key;
      case "betaXml":
        ZONED_BETA.put(key, new XmlMapper().setTimeZone(tz));
        return key;
      default:
        throw new OracleFailure(new IllegalArgumentException("no zoned setup " + setup));
    }
  }

  static final Map<String, ObjectMapper> ZONED_BETA = new HashMap<>();

  static ObjectMapper beta(String setup) {
    if (setup.equals("betaJson")) return betaJson;
    if (setup.equals("betaXml")) return betaXml;
    return ZONED_BETA.get(setup);
  }

  static String write(String setup, JsonNode spec, JsonNode value) throws Exception {
    Object v;
    try {
      v = build(spec, value);
    } catch (Exception e) {
      throw new OracleFailure(e);
    }
    // As a microservice writes its result: by the value's runtime class.
    ObjectMapper mapper = beta(setup);
    return mapper != null ? mapper.writeValueAsString(v) : alpha(setup).toXML(v);
  }

  static JsonNode read(String setup, JsonNode spec, String text) throws Exception {
    Object v;
    ObjectMapper mapper = beta(setup);
    v = mapper != null ? mapper.readValue(text, javaType(spec)) : alpha(setup).fromXML(text);
    try {
      return dump(spec, v);
    } catch (Exception e) {
      throw new OracleFailure(e);
    }
  }

  static XStream alpha(String setup) {
    XStream x = ALPHA.get(setup);
    if (x == null) throw new OracleFailure(new IllegalArgumentException("unknown setup " + setup));
    return x;
  }

  static Class<?> listClass(String c) {
    return c.equals("java.util.LinkedList") ? LinkedList.class : c.equals("java.util.ArrayList") ? ArrayList.class : List.class;
  }

  static Class<?> mapClass(String c) {
    return c.equals("java.util.LinkedHashMap") ? LinkedHashMap.class : c.equals("java.util.HashMap") ? HashMap.class : Map.class;
  }

  /** The Java class of a spec: primitives for int, long, ..., boxes for Integer, .... */
  static Class<?> rawClass(JsonNode spec) throws Exception {
    String k = spec.get("k").asText();
    switch (k) {
      case "int": return int.class;
      case "Integer": return Integer.class;
      case "long": return long.class;
      case "Long": return Long.class;
      case "double": return double.class;
      case "Double": return Double.class;
      case "boolean": return boolean.class;
      case "Boolean": return Boolean.class;
      case "char": return char.class;
      case "Character": return Character.class;
      case "String": return String.class;
      case "Date": return Date.class;
      case "LocalDate": return java.time.LocalDate.class;
      case "BigInteger": return java.math.BigInteger.class;
      case "Object": return Object.class;
      case "object": return loader.loadClass(spec.get("c").asText());
      case "list": return listClass(spec.get("c").asText());
      case "map": return mapClass(spec.get("c").asText());
      case "array": return Array.newInstance(rawClass(spec.get("i")), 0).getClass();
      default: throw new IllegalArgumentException("unknown kind " + k);
    }
  }

  static JavaType javaType(JsonNode spec) throws Exception {
    TypeFactory f = betaJson.getTypeFactory();
    switch (spec.get("k").asText()) {
      // A type argument is always a class: List<int> is List<Integer> in Java.
      case "list": return f.constructCollectionType(asCollection(listClass(spec.get("c").asText())), boxed(javaType(spec.get("i"))));
      case "map": return f.constructMapType(asMap(mapClass(spec.get("c").asText())), f.constructType(String.class), boxed(javaType(spec.get("i"))));
      case "array": return f.constructArrayType(javaType(spec.get("i")));
      default: return f.constructType(rawClass(spec));
    }
  }

  static JavaType boxed(JavaType t) {
    if (!t.isPrimitive()) return t;
    Class<?> c = t.getRawClass();
    Class<?> box = c == int.class ? Integer.class : c == long.class ? Long.class : c == double.class ? Double.class
        : c == boolean.class ? Boolean.class : Character.class;
    return betaJson.getTypeFactory().constructType(box);
  }

  @SuppressWarnings("unchecked")
  static Class<? extends Collection<?>> asCollection(Class<?> c) { return (Class<? extends Collection<?>>) c; }

  @SuppressWarnings("unchecked")
  static Class<? extends Map<?, ?>> asMap(Class<?> c) { return (Class<? extends Map<?, ?>>) c; }

  static Field field(Class<?> c, String name) throws NoSuchFieldException {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      try {
        Field f = k.getDeclaredField(name);
        f.setAccessible(true);
        return f;
      } catch (NoSuchFieldException e) {
        // a superclass's field
      }
    }
    throw new NoSuchFieldException(c.getName() + "." + name);
  }

  @SuppressWarnings("unchecked")
  static Object build(JsonNode spec, JsonNode v) throws Exception {
    if (v == null || v.isNull()) return null;
    switch (spec.get("k").asText()) {
      case "int": case "Integer": return v.intValue();
      case "long": case "Long": return Long.parseLong(v.asText());
      case "double": case "Double": return Double.longBitsToDouble(Long.parseUnsignedLong(v.asText(), 16));
      case "boolean": case "Boolean": return v.booleanValue();
      case "char": case "Character": return v.asText().charAt(0);
      case "String": return v.asText();
      case "Date": return new Date(v.longValue());
      case "LocalDate": return java.time.LocalDate.parse(v.asText());
      case "BigInteger": return new java.math.BigInteger(v.asText());
      case "Object": return build(resolve(v.get("!t"), spec), v.get("v"));
      case "object": {
        Class<?> c = loader.loadClass(spec.get("c").asText());
        Object o = c.getDeclaredConstructor().newInstance();
        for (JsonNode f : spec.get("f")) {
          Object x = build(f.get("t"), v.get(f.get("n").asText()));
          Field fld = field(c, f.get("n").asText());
          if (x != null || !fld.getType().isPrimitive()) fld.set(o, x);
        }
        return o;
      }
      case "list": {
        List<Object> l = spec.get("c").asText().equals("java.util.LinkedList") ? new LinkedList<>() : new ArrayList<>();
        for (JsonNode x : v) l.add(build(spec.get("i"), x));
        return l;
      }
      case "array": {
        Object a = Array.newInstance(rawClass(spec.get("i")), v.size());
        for (int j = 0; j < v.size(); j++) Array.set(a, j, build(spec.get("i"), v.get(j)));
        return a;
      }
      case "map": {
        Map<String, Object> m = spec.get("c").asText().equals("java.util.LinkedHashMap") ? new LinkedHashMap<>() : new HashMap<>();
        for (JsonNode e : v) m.put(e.get(0).asText(), build(spec.get("i"), e.get(1)));
        return m;
      }
      default: throw new IllegalArgumentException("unknown kind " + spec.get("k"));
    }
  }

  /** The tags of the classes named by their simple name (a slot's boxes, an array's components). */
  static final Map<Class<?>, String> NAMED = Map.ofEntries(
      Map.entry(Integer.class, "Integer"), Map.entry(Long.class, "Long"), Map.entry(Double.class, "Double"),
      Map.entry(Boolean.class, "Boolean"), Map.entry(Character.class, "Character"), Map.entry(String.class, "String"),
      Map.entry(java.math.BigInteger.class, "BigInteger"), Map.entry(Date.class, "Date"),
      Map.entry(java.time.LocalDate.class, "LocalDate"), Map.entry(int.class, "int"), Map.entry(long.class, "long"),
      Map.entry(double.class, "double"), Map.entry(boolean.class, "boolean"), Map.entry(char.class, "char"),
      Map.entry(Object.class, "Object"));

  /** The tag of a runtime class in an Object slot (see the header); null for a class the wire form has no tag for. */
  static JsonNode tagOf(Class<?> c, JsonNode slot) {
    String named = NAMED.get(c);
    if (named != null) return NODES.objectNode().put("k", named);
    if (c == ArrayList.class || c == LinkedList.class || c == HashMap.class || c == LinkedHashMap.class) {
      ObjectNode tag = NODES.objectNode().put("k", List.class.isAssignableFrom(c) ? "list" : "map").put("c", c.getName());
      return tag.set("i", NODES.objectNode().put("k", "Object"));
    }
    if (c.isArray()) {
      JsonNode i = tagOf(c.getComponentType(), slot);
      return i == null ? null : NODES.objectNode().put("k", "array").set("i", i);
    }
    for (JsonNode a : slot.get("a")) {
      if (a.get("c").asText().equals(c.getName())) return NODES.objectNode().put("k", "object").put("c", c.getName());
    }
    return null;
  }

  /** The spec a tag stands for in a slot: its class's spec from the slot's list, its items the slot again. */
  static JsonNode resolve(JsonNode tag, JsonNode slot) {
    switch (tag.get("k").asText()) {
      case "Object": return slot;
      case "object":
        for (JsonNode a : slot.get("a")) if (a.get("c").asText().equals(tag.get("c").asText())) return a;
        throw new IllegalArgumentException("class " + tag.get("c") + " is not one of the slot's");
      case "list": case "map": case "array": {
        ObjectNode spec = tag.deepCopy();
        return spec.set("i", resolve(tag.get("i"), slot));
      }
      default: return tag;
    }
  }

  static JsonNode wrongClass(Object o) {
    return NODES.objectNode().put("!class", o.getClass().getName());
  }

  static JsonNode dump(JsonNode spec, Object o) throws Exception {
    if (o == null) return NODES.nullNode();
    switch (spec.get("k").asText()) {
      case "int": case "Integer": return o instanceof Integer ? NODES.numberNode((Integer) o) : wrongClass(o);
      case "long": case "Long": return o instanceof Long ? NODES.textNode(o.toString()) : wrongClass(o);
      case "double": case "Double":
        return o instanceof Double ? NODES.textNode(String.format("%016x", Double.doubleToLongBits((Double) o))) : wrongClass(o);
      case "boolean": case "Boolean": return o instanceof Boolean ? NODES.booleanNode((Boolean) o) : wrongClass(o);
      case "char": case "Character": return o instanceof Character ? NODES.textNode(o.toString()) : wrongClass(o);
      case "String": return o instanceof String ? NODES.textNode((String) o) : wrongClass(o);
      case "Date": return o instanceof Date ? NODES.numberNode(((Date) o).getTime()) : wrongClass(o);
      case "LocalDate": return o instanceof java.time.LocalDate ? NODES.textNode(o.toString()) : wrongClass(o);
      case "BigInteger": return o instanceof java.math.BigInteger ? NODES.textNode(o.toString()) : wrongClass(o);
      case "Object": {
        JsonNode tag = tagOf(o.getClass(), spec);
        if (tag == null) return wrongClass(o);
        return NODES.objectNode().<ObjectNode>set("!t", tag).set("v", dump(resolve(tag, spec), o));
      }
      case "object": {
        if (!o.getClass().getName().equals(spec.get("c").asText())) return wrongClass(o);
        ObjectNode n = NODES.objectNode();
        for (JsonNode f : spec.get("f")) n.set(f.get("n").asText(), dump(f.get("t"), field(o.getClass(), f.get("n").asText()).get(o)));
        return n;
      }
      case "list": {
        if (!(o instanceof List)) return wrongClass(o);
        ArrayNode a = NODES.arrayNode();
        for (Object x : (List<?>) o) a.add(dump(spec.get("i"), x));
        return a;
      }
      case "array": {
        if (!o.getClass().isArray()) return wrongClass(o);
        ArrayNode a = NODES.arrayNode();
        for (int j = 0; j < Array.getLength(o); j++) a.add(dump(spec.get("i"), Array.get(o, j)));
        return a;
      }
      case "map": {
        if (!(o instanceof Map)) return wrongClass(o);
        ArrayNode a = NODES.arrayNode();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
          if (!(e.getKey() instanceof String)) return wrongClass(e.getKey());
          a.add(NODES.arrayNode().add((String) e.getKey()).add(dump(spec.get("i"), e.getValue())));
        }
        return a;
      }
      default: throw new IllegalArgumentException("unknown kind " + spec.get("k"));
    }
  }
}
