package platform.api;

/**
 * The user availability flag (SPEC, Limits: a microservice is reported unavailable when the flag is false).
 * Every Pong the host sends carries it; the gateway stops sending calls while it is false.
 */
public final class Availability {
  private static volatile boolean available = true;

  private Availability() {}

  public static void set(boolean flag) { available = flag; }

  public static boolean get() { return available; }
}
