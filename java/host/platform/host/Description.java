package platform.host;

import static platform.host.SchemaComponents.F;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAPI 3.1 description of a Java microservice's documented ROA methods (SPEC, "API description
 * and UI"), the same document the JavaScript host makes for its microservices
 * (src/microservice/host/openapi.ts, which this follows step by step; test/integration/java/java-description.test.ts
 * holds the two equal). What the JavaScript SDK's operation notes say, the OpenAPI annotations say here:
 * <ul>
 *   <li>{@code @Tag} on the service class: its group (name, description); further {@code @Tag}s are its
 *       {@code x-tags};</li>
 *   <li>{@code @Operation} on each method to include (summary, description; {@code hidden} leaves it out);</li>
 *   <li>{@code @Parameter} on its one parameter (or the first of {@code @Operation(parameters)}): name,
 *       description, example (a JSON text of the value as Jackson reads it; a String's plain text too);</li>
 *   <li>{@code @ApiResponse} (on the method or in {@code @Operation(responses)}, code 200, 2xx or default),
 *       or {@code @Schema} on the method: the result's description and example.</li>
 * </ul>
 * A method appears when it has an {@code @Operation} and exactly one parameter, in a remotely enabled
 * service. Schemas come from the parameter's and result's Java types by reflection, in the shapes of
 * the sequences {@link #documented} picks from the gateway's default sequence, with the names the
 * microservice's serializers give (its own beans, or the defaults); examples are written by those serializers.
 */
final class Description {
  static final List<String> SEQUENCE_NAMES = List.of("alphaParamArrayXmlInOutSequence",
      "alphaParamArrayJsonInOutSequence", "betaParamArrayXmlInOutSequence", "betaParamArrayJsonInOutSequence");
  static final String SHIPPED_SEQUENCE = "betaParamArrayJsonInOutSequence";
  static final String EDGE_API_PREFIX = "/_eapi/ELASTIC_HTTP";

  /** Every error code in the order of src/common/errors/codes.ts: its status and title. */
  private static final Map<String, Object[]> CODES = new LinkedHashMap<>();

  static {
    Object[][] table = {
      {"UNSUPPORTED_MEDIA_TYPE", 415, "Neither Content-Type nor Accept names JSON or XML"},
      {"FORMAT_MISMATCH", 406, "Content-Type and Accept name different formats"},
      {"UNKNOWN_API_ID", 400, "Unknown X-PLATFORM-API-ID"},
      {"UNKNOWN_SEQUENCE", 400, "Unknown X-PLATFORM-Sequence-Name"},
      {"SEQUENCE_FORMAT_MISMATCH", 415, "The body format differs from the format of the sequence"},
      {"MALFORMED_BODY", 400, "The body is not well-formed"},
      {"MALFORMED_REQUEST", 400, "The request is not valid HTTP/1.1"},
      {"ROA_NEEDS_ONE_PARAMETER", 400, "ROA can call only methods with exactly one parameter"},
      {"ARGUMENT_COUNT", 400, "The number of arguments differs from the number of parameters"},
      {"BAD_ARGUMENT", 400, "An argument does not match its parameter type"},
      {"ROUTE_NOT_FOUND", 404, "The path is not /{microservice}/{service}/{method}"},
      {"UNKNOWN_MICROSERVICE", 404, "Unknown microservice"},
      {"UNKNOWN_SERVICE", 404, "Unknown or not remotely enabled service"},
      {"UNKNOWN_METHOD", 404, "Unknown method"},
      {"SERVLET_MICROSERVICE", 404, "A servletApp microservice handles its own HTTP requests"},
      {"METHOD_NOT_ALLOWED", 405, "Only POST and OPTIONS are allowed"},
      {"BODY_TOO_LARGE", 413, "The body is larger than the configured limit"},
      {"BODY_TIMEOUT", 408, "The body did not arrive in time"},
      {"HEADERS_TOO_LARGE", 431, "The request line or a header is longer than the limit"},
      {"PRIVILEGE_DENIED", 403, "The method needs a privileged call"},
      {"UNTRUSTED_IDENTITY", 403, "Identity or privilege headers from a peer not trusted to send them"},
      {"CLIENT_CERTIFICATE_REQUIRED", 403, "This listener requires a client certificate"},
      {"UNAUTHENTICATED", 401, "The credential is missing, invalid or expired"},
      {"RATE_LIMITED", 429, "A rate limit or quota of the caller is used up"},
      {"MICROSERVICE_UNAVAILABLE", 503, "The microservice is unavailable"},
      {"OVERLOADED", 503, "The gateway is saturated"},
      {"BACKEND_CONNECTION_LOST", 502, "The connection to the microservice was lost during the call"},
      {"EXECUTION_TIMEOUT", 504, "The executing timeout passed"},
      {"NODE_FAILED", 502, "No platform node answered the call"},
      {"NODE_TIMEOUT", 504, "The platform node did not answer in time"},
      {"METHOD_FAILED", 500, "The method threw"},
      {"INTERNAL", 500, "Internal error"}};
    for (Object[] row : table) CODES.put((String) row[0], new Object[] {row[1], row[2]});
  }

  /**
   * The error codes a call on a documented method's path can meet (openapi.ts ROA_ERRORS, which says why
   * each is listed and why ROUTE_NOT_FOUND, SERVLET_MICROSERVICE, ROA_NEEDS_ONE_PARAMETER and
   * UNTRUSTED_IDENTITY are not).
   */
  private static final List<String> ROA_ERRORS = List.of("UNAUTHENTICATED", "CLIENT_CERTIFICATE_REQUIRED",
      "MALFORMED_REQUEST", "MALFORMED_BODY", "ARGUMENT_COUNT", "METHOD_NOT_ALLOWED", "BAD_ARGUMENT",
      "UNKNOWN_API_ID", "UNKNOWN_SEQUENCE", "UNKNOWN_MICROSERVICE", "UNKNOWN_SERVICE", "UNKNOWN_METHOD",
      "FORMAT_MISMATCH", "BODY_TOO_LARGE", "BODY_TIMEOUT", "UNSUPPORTED_MEDIA_TYPE", "SEQUENCE_FORMAT_MISMATCH",
      "METHOD_FAILED", "INTERNAL", "BACKEND_CONNECTION_LOST", "MICROSERVICE_UNAVAILABLE", "OVERLOADED",
      "EXECUTION_TIMEOUT", "RATE_LIMITED");

  /**
   * info.license when the microservice names none (openapi.ts DEFAULT_LICENSE): a Java package has no
   * place to name one, so its description states this one.
   */
  private static final String LICENSE_NAME = "Proprietary";
  private static final String LICENSE_IDENTIFIER = "LicenseRef-Proprietary";

  /** The response header names (http-names.ts HEADER). */
  private static final String REQUEST_ID = "X-PLATFORM-Request-ID";
  private static final String VARY = "Vary";
  private static final String ALLOW = "Allow";
  private static final String RETRY_AFTER = "Retry-After";
  private static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
  private static final String RATE_LIMIT = "RateLimit";
  private static final String ALLOW_ORIGIN = "Access-Control-Allow-Origin";
  private static final String ALLOW_METHODS = "Access-Control-Allow-Methods";
  private static final String ALLOW_HEADERS = "Access-Control-Allow-Headers";
  private static final String MAX_AGE = "Access-Control-Max-Age";
  private static final String EXPOSE_HEADERS = "Access-Control-Expose-Headers";

  /** The headers that claim who is calling: the edge sets them (http-names.ts IDENTITY_HEADERS). */
  private static final List<String> IDENTITY_HEADERS = List.of("X-PLATFORM-IP", "X-PLATFORM-User",
      "X-PLATFORM-Session-ID", "X-PLATFORM-Client-Application-Name", "X-PLATFORM-Privilege-Names",
      "X-PLATFORM-Certificate-Subject");

  private static final String IDENTITY_NOTE = "Through the edge, " + String.join(", ", IDENTITY_HEADERS)
      + " are not taken from the caller: the edge sets the user, session, application and privilege names from a"
      + " credential (X-API-Key, a bearer token or a client certificate, when the platform accepts them) and the IP"
      + " from the connection.";

  /** The extension on an XML media type that holds its example as the serializer writes it. */
  static final String SERIALIZED_EXAMPLE = "x-serialized-example";

  /** An annotation that gives no example. */
  private static final Object NONE = new Object();

  private final Microservice ms;
  private final String sequence;
  private final String apiId;
  private final String jsonSequence;
  private final String xmlSequence;
  private final ObjectMapper json = new ObjectMapper();
  /** Jackson as the shipped beta JSON writes: XML examples are values of the component schemas, which have its shapes. */
  private final ObjectMapper jackson;

  /** `sequence` and `apiId`: the gateway's for a call without those headers; the shipped ones for a name that is none. */
  Description(Microservice ms, String sequence, String apiId) {
    this.ms = ms;
    this.sequence = SEQUENCE_NAMES.contains(sequence) ? sequence : SHIPPED_SEQUENCE;
    this.apiId = "ROA".equals(apiId) || "RMC".equals(apiId) ? apiId : "ROA";
    String[] shown = documented(this.sequence);
    jsonSequence = shown[0];
    xmlSequence = shown[1];
    jackson = new ObjectMapper();
    jackson.setTypeFactory(TypeFactory.defaultInstance().withClassLoader(ms.loader));
    // An example is a value of the declared type: a Map is a HashMap, as XStream and the JavaScript side
    // take a declared Map to be (Jackson would read a LinkedHashMap, which XStream names otherwise).
    jackson.registerModule(new SimpleModule().addAbstractTypeMapping(Map.class, HashMap.class));
  }

  /**
   * The sequence whose shapes each media type documents ({json, xml}): the default sequence for its own
   * format; for the other format, the one the shipped configuration pairs with it (beta JSON, alpha XML).
   */
  static String[] documented(String defaultSequence) {
    return defaultSequence.contains("Json")
        ? new String[] {defaultSequence, "alphaParamArrayXmlInOutSequence"}
        : new String[] {SHIPPED_SEQUENCE, defaultSequence};
  }

  String json() throws Exception {
    return json.writerWithDefaultPrettyPrinter().writeValueAsString(document());
  }

  ObjectNode document() {
    SchemaNames names = new SchemaNames(ms);
    SchemaComponents components = new SchemaComponents(names, xmlSequence.equals("betaParamArrayXmlInOutSequence"));
    SchemaAlphaJson alphaJson = jsonSequence.equals("alphaParamArrayJsonInOutSequence") ? new SchemaAlphaJson(names) : null;
    ObjectNode paths = F.objectNode();
    ArrayNode tags = F.arrayNode();
    for (Microservice.Service svc : ms.services.values()) {
      if (!svc.remotelyEnabled) continue;
      List<Method> documented = new ArrayList<>();
      for (Method m : svc.methods.values()) {
        Operation op = annotation(m, Operation.class);
        if (op != null && !op.hidden() && m.getParameterCount() == 1) documented.add(m);
      }
      if (documented.isEmpty()) continue;
      // Reflection gives methods in no fixed order: by name, so the document is the same on every run.
      documented.sort(Comparator.comparing(Method::getName));
      Tag[] notes = tags(svc.bean.getClass());
      String tag = notes.length > 0 && !notes[0].name().isEmpty() ? notes[0].name() : svc.name;
      // Swagger UI groups by an operation's first tag; the further tags travel as an extension so a
      // method is not listed twice.
      ObjectNode t = tags.addObject().put("name", tag);
      // A tag without a description is a warning of Redocly's recommended rules (openapi.ts).
      t.put("description", notes.length > 0 && !notes[0].description().isEmpty() ? notes[0].description()
          : "The documented ROA methods of service '" + svc.name + "'");
      if (notes.length > 1) {
        ArrayNode more = t.putArray("x-tags");
        for (Tag n : Arrays.copyOfRange(notes, 1, notes.length)) more.add(n.name());
      }
      for (Method m : documented) {
        ObjectNode path = paths.putObject("/" + svc.name + "/" + m.getName());
        path.set("post", operation(svc, m, tag, components, alphaJson));
        path.set("options", preflight(svc, m, tag));
      }
    }
    ObjectNode doc = F.objectNode().put("openapi", "3.1.0");
    ObjectNode info = doc.putObject("info").put("title", ms.config.name).put("version", ms.config.version);
    info.putObject("license").put("name", LICENSE_NAME).put("identifier", LICENSE_IDENTIFIER);
    info.put("description", "Remotely enabled ROA methods of microservice '" + ms.config.name + "'. " + bodiesNote() + " "
        + IDENTITY_NOTE);
    info.putObject("x-platform-defaults").put("sequence", sequence).put("apiId", apiId);
    doc.putArray("servers").addObject().put("url", EDGE_API_PREFIX + "/" + ms.config.name)
        .put("description", "the edge; the same call as /{service}/{method} on the gateway (:8082)");
    // What the edge enforces is its configuration's: it replaces this declaration with that when it
    // serves the description; as generated, no credential is declared.
    doc.putArray("security");
    doc.set("tags", tags);
    doc.set("paths", paths);
    ObjectNode componentsNode = doc.putObject("components");
    ObjectNode schemas = componentsNode.putObject("schemas");
    schemas.setAll(components.schemas);
    if (alphaJson != null) schemas.setAll(alphaJson.schemas);
    schemas.set("Problem", problemSchema());
    componentsNode.set("headers", responseHeaders());
    return doc;
  }

  private String bodiesNote() {
    String header = apiId.equals("RMC")
        ? " This platform calls a method RMC when X-PLATFORM-API-ID is not sent: send ROA for these bodies."
        : "";
    return "application/json bodies are shown as " + jsonSequence + " writes them, application/xml as " + xmlSequence
        + " writes them; a call without X-PLATFORM-Sequence-Name is read with " + sequence + "." + header;
  }

  private ObjectNode operation(Microservice.Service svc, Method m, String tag, SchemaComponents components,
      SchemaAlphaJson alphaJson) {
    Operation note = annotation(m, Operation.class);
    Type paramType = m.getGenericParameterTypes()[0];
    SchemaType param = SchemaType.of(paramType);
    Parameter p = parameterNote(m, note);
    ObjectNode jsonIn = F.objectNode();
    jsonIn.set("schema", alphaJson != null ? alphaJson.root(param, false) : components.schema(param, false, false));
    ObjectNode xmlIn = F.objectNode();
    xmlIn.set("schema", components.schema(param, false, true));
    Object example = p == null ? NONE : exampleValue(parameterExample(p), paramType);
    if (example != NONE) {
      withExample(jsonIn, wireJson(example, jsonSequence));
      withXmlExample(xmlIn, example);
    }
    ObjectNode responses = F.objectNode();
    if (Microservice.returnsVoid(m))
      responses.putObject("204").put("description", "the method returned (void)").set("headers", everyAnswer());
    else {
      Type returnType = m.getGenericReturnType();
      SchemaType returns = SchemaType.of(returnType);
      String[] result = resultNote(m, note);
      ObjectNode ok = responses.putObject("200").put("description", result[0] != null ? result[0] : returns.typeName());
      ok.set("headers", everyAnswer());
      ObjectNode jsonOut = F.objectNode();
      jsonOut.set("schema", alphaJson != null ? alphaJson.root(returns, true) : components.schema(returns, true, false));
      ObjectNode xmlOut = F.objectNode();
      xmlOut.set("schema", components.schema(returns, true, true));
      Object value = exampleValue(result[1], returnType);
      if (value != NONE) {
        withExample(jsonOut, wireJson(value, jsonSequence));
        withXmlExample(xmlOut, value);
      }
      ObjectNode content = ok.putObject("content");
      content.set("application/json", jsonOut);
      content.set("application/xml", xmlOut);
    }
    List<String> errors = new ArrayList<>(ROA_ERRORS);
    if (Microservice.needsPrivilege(m)) errors.add("PRIVILEGE_DENIED");
    for (Map.Entry<Integer, List<String>> e : byStatus(errors).entrySet()) {
      List<String> list = e.getValue();
      List<String> described = new ArrayList<>();
      for (String code : list) described.add(code + ": " + CODES.get(code)[1]);
      ObjectNode r = responses.putObject(String.valueOf(e.getKey())).put("description", String.join("; ", described));
      r.set("headers", problemHeaders(e.getKey(), list));
      r.set("content", problemContent(e.getKey(), list));
    }
    // A method's ServiceError chooses its own status (docs/errors.md, METHOD_FAILED).
    ObjectNode fallback = responses.putObject("default")
        .put("description", "METHOD_FAILED with the status the method chose (a ServiceError)");
    fallback.set("headers", everyAnswer());
    fallback.set("content", problemContent(500, List.of("METHOD_FAILED")));
    ObjectNode op = F.objectNode();
    op.putArray("tags").add(tag);
    if (!note.summary().isEmpty()) op.put("summary", note.summary());
    if (!note.description().isEmpty()) op.put("description", note.description());
    op.put("operationId", svc.name + "." + m.getName());
    op.set("parameters", headerParameters());
    ObjectNode body = op.putObject("requestBody").put("required", true);
    List<String> said = new ArrayList<>();
    if (p != null && !p.name().isEmpty()) said.add(p.name());
    if (p != null && !p.description().isEmpty()) said.add(p.description());
    body.put("description", said.isEmpty() ? param.typeName() : String.join(": ", said));
    ObjectNode content = body.putObject("content");
    content.set("application/json", jsonIn);
    content.set("application/xml", xmlIn);
    op.set("responses", responses);
    return op;
  }

  /**
   * A problem in each format the request may have: problem+xml answers an XML request, as the gateway
   * writes it (RFC 9457 appendix B's <problem> in urn:ietf:rfc:7807); openapi.ts problemContent.
   */
  private static ObjectNode problemContent(int status, List<String> list) {
    ObjectNode content = F.objectNode();
    for (boolean xml : new boolean[] {false, true}) {
      ObjectNode media = content.putObject(xml ? "application/problem+xml" : "application/problem+json");
      ObjectNode schema = media.putObject("schema");
      ArrayNode allOf = schema.putArray("allOf");
      allOf.addObject().put("$ref", "#/components/schemas/Problem");
      ArrayNode codes = allOf.addObject().putObject("properties").putObject("code").putArray("enum");
      list.forEach(codes::add);
      if (xml) schema.set("xml", problemXml());
      String first = list.get(0);
      media.putObject("example").put("type", "urn:platform:problem:" + first).put("title", (String) CODES.get(first)[1])
          .put("status", status).put("detail", "what went wrong, in words").put("code", first)
          .put("requestId", "3f2c9a1e-7b4d-4c55-9a0e-1d2b3c4d5e6f");
    }
    return content;
  }

  /** What the gateway, the authenticator and admission add to a problem of this status (openapi.ts problemHeaders). */
  private static ObjectNode problemHeaders(int status, List<String> list) {
    ObjectNode out = everyAnswer();
    if (status == 503 || list.contains("RATE_LIMITED")) out.set(RETRY_AFTER, requiredHeader("RetryAfter"));
    if (list.contains("RATE_LIMITED")) {
      out.set(RATE_LIMIT_POLICY, requiredHeader("RateLimitPolicy"));
      out.set(RATE_LIMIT, requiredHeader("RateLimit"));
    }
    if (list.contains("METHOD_NOT_ALLOWED")) out.set(ALLOW, requiredHeader("Allow"));
    if (list.contains("UNAUTHENTICATED")) out.set("WWW-Authenticate", headerRef("WWWAuthenticate"));
    return out;
  }

  /** The CORS preflight the gateway answers on every path: 204 with Allow, whatever the route (openapi.ts preflight). */
  private static ObjectNode preflight(Microservice.Service svc, Method m, String tag) {
    ObjectNode op = F.objectNode();
    op.putArray("tags").add(tag);
    op.put("summary", "CORS preflight for " + svc.name + "." + m.getName());
    op.put("description", "What a browser asks before a cross-origin POST. The Access-Control-* headers come only for an"
        + " origin the gateway allows (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP CORS settings).");
    op.put("operationId", svc.name + "." + m.getName() + ".preflight");
    ArrayNode parameters = op.putArray("parameters");
    header(parameters, "Origin", false, "the page asking");
    header(parameters, "Access-Control-Request-Method", false, "POST");
    header(parameters, "Access-Control-Request-Headers", false, "the headers the page means to send");
    ObjectNode responses = op.putObject("responses");
    ObjectNode headers = everyAnswer();
    headers.set(ALLOW, requiredHeader("Allow"));
    headers.set(ALLOW_METHODS, headerRef("AccessControlAllowMethods"));
    headers.set(ALLOW_HEADERS, headerRef("AccessControlAllowHeaders"));
    headers.set(MAX_AGE, headerRef("AccessControlMaxAge"));
    responses.putObject("204").put("description", "the methods and headers a call may use").set("headers", headers);
    ObjectNode refused = responses.putObject("403")
        .put("description", "CLIENT_CERTIFICATE_REQUIRED: " + CODES.get("CLIENT_CERTIFICATE_REQUIRED")[1]);
    refused.set("headers", everyAnswer());
    refused.set("content", problemContent(403, List.of("CLIENT_CERTIFICATE_REQUIRED")));
    return op;
  }

  private static ObjectNode headerRef(String name) {
    return F.objectNode().put("$ref", "#/components/headers/" + name);
  }

  /** A header component as one answer always has it. */
  private static ObjectNode requiredHeader(String name) {
    return headerRef(name + ".required");
  }

  /** Written on every answer: the request id always; CORS and rate limit fields when they apply (openapi.ts EVERY_ANSWER). */
  private static ObjectNode everyAnswer() {
    ObjectNode out = F.objectNode();
    out.set(REQUEST_ID, headerRef("RequestId"));
    out.set(RATE_LIMIT_POLICY, headerRef("RateLimitPolicy"));
    out.set(RATE_LIMIT, headerRef("RateLimit"));
    out.set(ALLOW_ORIGIN, headerRef("AccessControlAllowOrigin"));
    out.set(EXPOSE_HEADERS, headerRef("AccessControlExposeHeaders"));
    out.set(VARY, headerRef("Vary"));
    return out;
  }

  /** The response headers the gateway writes (openapi.ts RESPONSE_HEADERS). */
  private static ObjectNode responseHeaders() {
    ObjectNode out = F.objectNode();
    responseHeader(out, "RequestId", "the caller's X-PLATFORM-Request-ID, or the one the gateway generated", true);
    responseHeader(out, "RateLimitPolicy",
        "the rate limit rule matched (draft-ietf-httpapi-ratelimit-headers), when RATE_LIMITS.headers is on or on a 429",
        false);
    responseHeader(out, "RateLimitPolicy.required", "the rate limit rule that refused the call", true);
    responseHeader(out, "RateLimit",
        "the calls left and the seconds to the reset, when RATE_LIMITS.headers is on or on a 429", false);
    responseHeader(out, "RateLimit.required", "the calls left and the seconds to the reset", true);
    responseHeader(out, "RetryAfter.required", "seconds to wait before calling again", true).put("pattern", "^[0-9]+$");
    responseHeader(out, "Allow.required", "the methods the path answers", true).put("const", "POST, OPTIONS");
    responseHeader(out, "WWWAuthenticate", "the credential the edge asks for, when it accepts some (docs/security.md)",
        false);
    responseHeader(out, "AccessControlAllowOrigin", "the calling origin, or *, when the gateway allows it", false);
    responseHeader(out, "AccessControlExposeHeaders", "the answer headers a page may read, for an allowed origin", false);
    responseHeader(out, "Vary", "Origin, when the allowed origin depends on it", false);
    responseHeader(out, "AccessControlAllowMethods", "POST, OPTIONS, for an allowed origin", false);
    responseHeader(out, "AccessControlAllowHeaders", "the request headers a page may send, for an allowed origin", false);
    responseHeader(out, "AccessControlMaxAge", "seconds a browser may keep this preflight, for an allowed origin", false);
    return out;
  }

  /** Adds a header component; returns its schema. */
  private static ObjectNode responseHeader(ObjectNode out, String name, String description, boolean required) {
    return out.putObject(name).put("description", description).put("required", required).putObject("schema")
        .put("type", "string");
  }

  /** The gateway's problem+xml root element (openapi.ts PROBLEM_XML). */
  private static ObjectNode problemXml() {
    return F.objectNode().put("name", "problem").put("namespace", "urn:ietf:rfc:7807");
  }

  private static Map<Integer, List<String>> byStatus(List<String> codes) {
    Map<Integer, List<String>> out = new TreeMap<>();
    for (String code : codes) out.computeIfAbsent((Integer) CODES.get(code)[0], k -> new ArrayList<>()).add(code);
    return out;
  }

  /** The headers a caller through the edge may set (the identity headers are the edge's to set). */
  private ArrayNode headerParameters() {
    ArrayNode out = F.arrayNode();
    // X-PLATFORM-API-ID: without it this platform would read the body as an RMC argument array when RMC is its default.
    ObjectNode api = header(out, "X-PLATFORM-API-ID", !apiId.equals("ROA"),
        "Invocation mode: ROA for these methods; a call without this header is " + apiId + " here (case sensitive)");
    api.putArray("enum").add("ROA");
    if (apiId.equals("ROA")) api.put("default", "ROA");
    header(out, "X-PLATFORM-Locale", false, "Locale for translation, e.g. en");
    ObjectNode seq = header(out, "X-PLATFORM-Sequence-Name", false,
        "Sequence that reads the body and writes the answer; without this header, " + sequence + ", which reads "
            + (sequence.contains("Json") ? "JSON" : "XML") + ": a body in the other format names a sequence of its format");
    // Only the sequences whose shapes the media types describe: a client generated from the description
    // could neither write nor read another's bodies (openapi.ts).
    ArrayNode all = seq.putArray("enum");
    all.add(jsonSequence);
    if (!xmlSequence.equals(jsonSequence)) all.add(xmlSequence);
    seq.put("default", sequence);
    header(out, "X-PLATFORM-Request-ID", false, "Request identifier; generated when absent and echoed on the answer");
    return out;
  }

  /** Adds a header parameter; returns its schema. */
  private static ObjectNode header(ArrayNode out, String name, boolean required, String description) {
    ObjectNode h = out.addObject().put("name", name).put("in", "header").put("required", required).put("description", description);
    return h.putObject("schema").put("type", "string");
  }

  private static ObjectNode problemSchema() {
    ObjectNode s = F.objectNode().put("type", "object");
    s.set("xml", problemXml());
    s.put("description", "RFC 9457 problem details; `code` is stable (the error table).");
    ObjectNode props = s.putObject("properties");
    props.putObject("type").put("type", "string");
    props.putObject("title").put("type", "string");
    props.putObject("status").put("type", "integer");
    props.putObject("detail").put("type", "string");
    ArrayNode all = props.putObject("code").put("type", "string").putArray("enum");
    CODES.keySet().forEach(all::add);
    props.putObject("requestId").put("type", "string");
    ArrayNode required = s.putArray("required");
    for (String r : new String[] {"type", "title", "status", "detail", "code", "requestId"}) required.add(r);
    return s;
  }

  // ---- what the annotations say

  /** The annotation on the method, or on the method it overrides (a proxy's class extends the service's). */
  private static <A extends java.lang.annotation.Annotation> A annotation(Method m, Class<A> type) {
    for (Class<?> c = m.getDeclaringClass(); c != null; c = c.getSuperclass()) {
      try {
        A a = c.getDeclaredMethod(m.getName(), m.getParameterTypes()).getAnnotation(type);
        if (a != null) return a;
      } catch (NoSuchMethodException e) {
        // not declared here: its superclass, then
      }
    }
    return null;
  }

  /** The service class's @Tag annotations, the first one found up its class chain (a proxy's superclass). */
  private static Tag[] tags(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      Tag[] found = c.getAnnotationsByType(Tag.class);
      if (found.length > 0) return found;
    }
    return new Tag[0];
  }

  /** @Parameter on the one parameter (on the method or the one it overrides), else the first of @Operation(parameters). */
  private static Parameter parameterNote(Method m, Operation note) {
    for (Class<?> c = m.getDeclaringClass(); c != null; c = c.getSuperclass()) {
      try {
        Parameter p = c.getDeclaredMethod(m.getName(), m.getParameterTypes()).getParameters()[0].getAnnotation(Parameter.class);
        if (p != null) return p;
      } catch (NoSuchMethodException e) {
        // not declared here
      }
    }
    for (Parameter p : note.parameters()) if (!p.hidden()) return p;
    return null;
  }

  private static String parameterExample(Parameter p) {
    if (!p.example().isEmpty()) return p.example();
    if (!p.schema().example().isEmpty()) return p.schema().example();
    for (ExampleObject e : p.examples()) if (!e.value().isEmpty()) return e.value();
    return null;
  }

  /** The result's {description, example}: of the 200 (2xx, default) @ApiResponse, else of @Schema on the method; nulls when not said. */
  private static String[] resultNote(Method m, Operation note) {
    List<ApiResponse> all = new ArrayList<>(Arrays.asList(note.responses()));
    Method declared = m;
    for (Class<?> c = m.getDeclaringClass(); c != null; c = c.getSuperclass()) {
      try {
        Method d = c.getDeclaredMethod(m.getName(), m.getParameterTypes());
        if (d.getAnnotation(Operation.class) != null) {
          declared = d;
          break;
        }
      } catch (NoSuchMethodException e) {
        // not declared here
      }
    }
    all.addAll(Arrays.asList(declared.getAnnotationsByType(ApiResponse.class)));
    String description = null;
    String example = null;
    for (ApiResponse r : all) {
      String code = r.responseCode();
      if (!(code.startsWith("2") || code.equals("default") || code.isEmpty())) continue;
      if (description == null && !r.description().isEmpty()) description = r.description();
      for (Content c : r.content()) {
        if (example == null && !c.schema().example().isEmpty()) example = c.schema().example();
        for (ExampleObject e : c.examples()) if (example == null && !e.value().isEmpty()) example = e.value();
      }
    }
    Schema s = declared.getAnnotation(Schema.class);
    if (s != null && description == null && !s.description().isEmpty()) description = s.description();
    if (s != null && example == null && !s.example().isEmpty()) example = s.example();
    return new String[] {description, example};
  }

  /**
   * The value an example text stands for: JSON as Jackson reads it into the declared type; for a String
   * (or char) a text that is not JSON is the value itself. NONE when there is none or it does not read.
   */
  private Object exampleValue(String text, Type type) {
    if (text == null) return NONE;
    try {
      return jackson.readValue(text, jackson.getTypeFactory().constructType(type));
    } catch (Exception e) {
      if (type == String.class) return text;
      if ((type == char.class || type == Character.class) && text.length() == 1) return text.charAt(0);
      return NONE;
    }
  }

  // ---- examples, written by the sequences' serializers

  /** The example as the sequence's serializer writes it (the microservice's own bean when it has one); null when it cannot. */
  private String wireText(Object value, String seq) {
    try {
      return new String(ms.serializers.of(seq).write(value), StandardCharsets.UTF_8);
    } catch (Exception | StackOverflowError e) {
      return null;
    }
  }

  private JsonNode wireJson(Object value, String seq) {
    String text = wireText(value, seq);
    if (text == null) return null;
    try {
      return json.readTree(text);
    } catch (Exception e) {
      return null;
    }
  }

  private static void withExample(ObjectNode media, JsonNode example) {
    if (example != null) media.set("example", example);
  }

  /**
   * An XML example as OpenAPI 3.x gives one: the value itself (Jackson's shape, which the component
   * schemas have), and the text as the XML sequence's serializer writes it; only when that serializer
   * can write it, so an example is never shown that the XML side would refuse.
   */
  private void withXmlExample(ObjectNode media, Object value) {
    String text = wireText(value, xmlSequence);
    if (text == null) return;
    JsonNode example;
    try {
      example = json.readTree(jackson.writeValueAsBytes(value));
    } catch (Exception e) {
      return;
    }
    media.set("example", example);
    media.put(SERIALIZED_EXAMPLE, text);
  }
}
