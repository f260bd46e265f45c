package platform.api;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What a call carries besides its arguments: the X-PLATFORM-* headers of the HTTP request (docs/contract.md,
 * Call context) and whether the permission resolver found the call privileged. A method reads it with
 * {@link #current()} on the thread that runs it; its parameters stay the service's own.
 */
public final class CallContext {
  private static final ThreadLocal<CallContext> CURRENT = new ThreadLocal<>();
  private static final CallContext NONE =
      new CallContext(null, Collections.emptyList(), null, null, null, null, null, null, null, null, false);

  private final String locale;
  private final List<String> privilegeNames;
  private final String requestId;
  private final String sessionId;
  private final String user;
  private final String clientApplicationName;
  private final String ip;
  private final String traceparent;
  private final String tracestate;
  private final String certificateSubject;
  private final boolean privileged;

  /** A context without a client certificate (the constructor of the versions before certificateSubject). */
  public CallContext(String locale, List<String> privilegeNames, String requestId, String sessionId, String user,
      String clientApplicationName, String ip, String traceparent, String tracestate, boolean privileged) {
    this(locale, privilegeNames, requestId, sessionId, user, clientApplicationName, ip, traceparent, tracestate, null,
        privileged);
  }

  public CallContext(String locale, List<String> privilegeNames, String requestId, String sessionId, String user,
      String clientApplicationName, String ip, String traceparent, String tracestate, String certificateSubject,
      boolean privileged) {
    this.locale = locale;
    this.privilegeNames = Collections.unmodifiableList(privilegeNames);
    this.requestId = requestId;
    this.sessionId = sessionId;
    this.user = user;
    this.clientApplicationName = clientApplicationName;
    this.ip = ip;
    this.traceparent = traceparent;
    this.tracestate = tracestate;
    this.certificateSubject = certificateSubject;
    this.privileged = privileged;
  }

  /** The context of the call this thread runs; outside a call, one with nothing in it. */
  public static CallContext current() {
    CallContext c = CURRENT.get();
    return c == null ? NONE : c;
  }

  /** Runs {@code call} with {@code context} as the thread's current one (the host does, for each call). */
  public static <T> T within(CallContext context, Callable<T> call) throws Exception {
    CallContext before = CURRENT.get();
    CURRENT.set(context);
    try {
      return call.call();
    } finally {
      if (before == null) CURRENT.remove();
      else CURRENT.set(before);
    }
  }

  /** The same context, with the permission resolver's verdict. */
  public CallContext withPrivileged(boolean verdict) {
    return new CallContext(locale, privilegeNames, requestId, sessionId, user, clientApplicationName, ip, traceparent,
        tracestate, certificateSubject, verdict);
  }

  public String getLocale() { return locale; }
  public List<String> getPrivilegeNames() { return privilegeNames; }
  public String getRequestId() { return requestId; }
  public String getSessionId() { return sessionId; }
  public String getUser() { return user; }
  public String getClientApplicationName() { return clientApplicationName; }
  public String getIp() { return ip; }
  public String getTraceparent() { return traceparent; }
  public String getTracestate() { return tracestate; }
  /**
   * The subject of the client certificate verified for the call, RFC 4514 order ("CN=billing,O=Acme"):
   * by the gateway's or the edge's listener, or by a TLS terminator in front that the gateway trusts;
   * null without one.
   */
  public String getCertificateSubject() { return certificateSubject; }
  public boolean isPrivileged() { return privileged; }
}
