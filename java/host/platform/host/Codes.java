package platform.host;

import java.util.Map;

/** The HTTP status of each error code a microservice answers with (src/common/errors/codes.ts holds them all). */
final class Codes {
  private static final Map<String, Integer> STATUS = Map.of(
      "UNKNOWN_SEQUENCE", 400, "ROA_NEEDS_ONE_PARAMETER", 400, "ARGUMENT_COUNT", 400, "BAD_ARGUMENT", 400,
      "UNKNOWN_SERVICE", 404, "UNKNOWN_METHOD", 404, "PRIVILEGE_DENIED", 403, "OVERLOADED", 503,
      "EXECUTION_TIMEOUT", 504, "METHOD_FAILED", 500);

  private Codes() {}

  static int status(String code) {
    return STATUS.getOrDefault(code, 500);
  }
}
