package platform.host;

/** The OpenAPI description of a Java microservice's ROA methods (being written). */
final class Description {
  private final Microservice ms;

  Description(Microservice ms, String sequence, String apiId) {
    this.ms = ms;
  }

  String json() {
    return "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"" + ms.config.name + "\",\"version\":\"" + ms.config.version + "\"},\"paths\":{}}";
  }
}
