package platform.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of a Java package's microservice.json the host needs. The platform has validated the file at
 * upload (src/microservice/host/package-config.ts); the defaults here are the same as there.
 */
final class Config {
  final String name;
  final String version;
  final String type;
  final String jar;
  final String applicationContext;
  final long readTimeout;
  final int threadPoolSize;
  final long threadExecutingTimeOut;
  final int backlog;
  final int queueLimit;
  final int maxFrameBytes;
  final String timeZone;
  final List<String> privilegedNames = new ArrayList<>();
  /** When set, replaces the context's list (the operator's say over what is exposed). */
  final List<String> remotelyEnabled;
  /** Java class name → alias, registered on the default alpha serializers. */
  final Map<String, String> aliases = new LinkedHashMap<>();

  Config(File dir) throws Exception {
    File file = new File(dir, "microservice.json");
    if (!file.isFile()) throw new IllegalStateException(file + " is missing");
    JsonNode o = new ObjectMapper().readTree(file);
    name = text(o, "name", null);
    version = text(o, "version", null);
    type = text(o, "type", "nativeApp");
    jar = text(o, "jar", null);
    applicationContext = text(o, "applicationContext", null);
    if (name == null || version == null || jar == null || applicationContext == null)
      throw new IllegalStateException(file + ": name, version, jar and applicationContext are required");
    JsonNode s = o.path("settings");
    readTimeout = s.path("readTimeout").asLong(480000);
    threadPoolSize = s.path("threadPoolSize").asInt(128);
    threadExecutingTimeOut = s.path("threadExecutingTimeOut").asLong(240000);
    backlog = s.path("backlog").asInt(0);
    queueLimit = s.path("queueLimit").asInt(10000);
    maxFrameBytes = s.path("maxFrameBytes").asInt(17 * 1024 * 1024);
    timeZone = s.path("timeZone").asText("UTC");
    for (JsonNode n : o.path("permissions").path("privilegedNames")) privilegedNames.add(n.asText());
    JsonNode enabled = o.get("platformRegularExpressionToRemotelyEnabled");
    if (enabled == null) remotelyEnabled = null;
    else {
      remotelyEnabled = new ArrayList<>();
      for (JsonNode n : enabled) remotelyEnabled.add(n.asText());
    }
    o.path("aliases").fields().forEachRemaining(e -> aliases.put(e.getKey(), e.getValue().asText()));
  }

  private static String text(JsonNode o, String key, String fallback) {
    JsonNode v = o.get(key);
    return v == null || !v.isTextual() ? fallback : v.asText();
  }
}
