package platform.host;

import gateway.Gateway;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import platform.api.CallContext;
import platform.api.ServiceException;

/**
 * Runs one Invoke to its Result on the calling thread: the same checks and the same error codes and
 * sentences as the JavaScript host (src/microservice/host/executor.ts), then deserialize, call, serialize.
 */
final class Invoker {
  private final Microservice ms;
  /** Faults logged per method and minute; the rest are counted (a client can make a method throw on every call). */
  private final ConcurrentHashMap<String, long[]> faults = new ConcurrentHashMap<>();
  final AtomicLong executed = new AtomicLong();

  Invoker(Microservice ms) {
    this.ms = ms;
  }

  /** A failure of the code's own status: the gateway knows each code's (proto/gateway.proto, Error.status 0). */
  static Gateway.Result fail(String code, String detail) {
    return Gateway.Result.newBuilder().setError(Gateway.Error.newBuilder().setCode(code).setDetail(detail)).build();
  }

  Gateway.Result invoke(Gateway.Invoke inv) throws InterruptedException {
    Microservice.Service svc = ms.services.get(inv.getService());
    if (svc == null || !svc.remotelyEnabled)
      return fail("UNKNOWN_SERVICE", "service '" + inv.getService() + "' is not remotely enabled in microservice '"
          + ms.config.name + "'");
    Method m = svc.methods.get(inv.getMethod());
    if (m == null) return fail("UNKNOWN_METHOD", "service '" + inv.getService() + "' has no method '" + inv.getMethod() + "'");
    int params = m.getParameterCount();
    if (inv.getMode() == Gateway.Mode.ROA && params != 1)
      return fail("ROA_NEEDS_ONE_PARAMETER", inv.getService() + "." + inv.getMethod() + " has " + params
          + " parameters; ROA calls only methods with exactly one, use RMC (X-PLATFORM-API-ID: RMC)");
    if (inv.getArgumentsCount() != params)
      return fail("ARGUMENT_COUNT", inv.getService() + "." + inv.getMethod() + " takes " + params + " argument"
          + (params == 1 ? "" : "s") + ", the body has " + inv.getArgumentsCount());
    Serializers.Codec codec = ms.serializers.of(inv.getSequence());
    if (codec == null) return fail("UNKNOWN_SEQUENCE", "unknown sequence '" + inv.getSequence() + "'");

    Gateway.CallContext c = inv.getContext();
    CallContext base = new CallContext(c.hasLocale() ? c.getLocale() : null, c.getPrivilegeNamesList(),
        c.hasRequestId() ? c.getRequestId() : null, c.hasSessionId() ? c.getSessionId() : null,
        c.hasUser() ? c.getUser() : null, c.hasClientApplicationName() ? c.getClientApplicationName() : null,
        c.hasIp() ? c.getIp() : null, c.hasTraceparent() ? c.getTraceparent() : null,
        c.hasTracestate() ? c.getTracestate() : null, c.hasCertificateSubject() ? c.getCertificateSubject() : null,
        false);
    // Asked for every call, with or without names: a resolver may decide by user or address as well.
    boolean privileged = ms.resolver.isPrivileged(base.getPrivilegeNames(), base);
    if (Microservice.needsPrivilege(m) && !privileged)
      return fail("PRIVILEGE_DENIED", inv.getService() + "." + inv.getMethod() + " needs a privileged call");
    CallContext ctx = base.withPrivileged(privileged);

    Type[] types = m.getGenericParameterTypes();
    Class<?>[] classes = m.getParameterTypes();
    Object[] args = new Object[params];
    for (int k = 0; k < params; k++) {
      Object v;
      try {
        v = codec.read(inv.getArguments(k).toByteArray(), types[k]);
      } catch (Exception | StackOverflowError e) {
        return badArgument(k, m, types[k], firstLine(e));
      }
      Class<?> want = boxed(classes[k]);
      if (v == null ? classes[k].isPrimitive() : !want.isInstance(v))
        return badArgument(k, m, types[k], v == null ? "null for a primitive parameter" : "a " + v.getClass().getName()
            + " where a " + want.getName() + " is expected");
      args[k] = v;
    }
    Object value;
    try {
      value = CallContext.within(ctx, () -> m.invoke(svc.bean, args));
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof ServiceException)
        return Gateway.Result.newBuilder().setError(Gateway.Error.newBuilder().setCode("METHOD_FAILED")
            .setDetail(String.valueOf(t.getMessage())).setStatus(((ServiceException) t).getStatus())).build();
      if (t instanceof InterruptedException) throw (InterruptedException) t;
      if (t instanceof Error && !(t instanceof StackOverflowError)) throw (Error) t;
      logFault(inv, t);
      // No stack traces leave the process; the exception's class and message are the method's own words.
      return fail("METHOD_FAILED", t.getClass().getSimpleName() + ": " + t.getMessage());
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      return fail("INTERNAL", "the method could not be called: " + firstLine(e));
    }
    executed.incrementAndGet();
    if (Microservice.returnsVoid(m)) return Gateway.Result.newBuilder().setIsVoid(true).build();
    try {
      return Gateway.Result.newBuilder().setBody(com.google.protobuf.ByteString.copyFrom(codec.write(value))).build();
    } catch (Exception e) {
      logFault(inv, e);
      return fail("INTERNAL", "the method's result could not be serialized: " + firstLine(e));
    }
  }

  private static Gateway.Result badArgument(int k, Method m, Type type, String why) {
    return fail("BAD_ARGUMENT", "argument " + k + " of " + m.getName() + " (" + type.getTypeName() + "): " + why);
  }

  /** The first line of what an exception says (XStream's messages start with a line break). */
  static String firstLine(Throwable e) {
    String msg = e.getMessage() == null ? e.getClass().getName() : e.getMessage().strip();
    if (msg.isEmpty()) msg = e.getClass().getName();
    int nl = msg.indexOf('\n');
    return nl < 0 ? msg : msg.substring(0, nl);
  }

  static Class<?> boxed(Class<?> c) {
    if (!c.isPrimitive()) return c;
    if (c == int.class) return Integer.class;
    if (c == long.class) return Long.class;
    if (c == double.class) return Double.class;
    if (c == boolean.class) return Boolean.class;
    if (c == float.class) return Float.class;
    if (c == short.class) return Short.class;
    if (c == byte.class) return Byte.class;
    return Character.class;
  }

  private void logFault(Gateway.Invoke inv, Throwable t) {
    String key = inv.getService() + "." + inv.getMethod();
    long now = System.currentTimeMillis();
    long[] w = faults.compute(key, (k, old) -> old == null || now - old[0] >= 60_000 ? new long[] {now, 0, 0} : old);
    synchronized (w) {
      if (w[1] == 10) {
        w[2]++;
        return;
      }
      w[1]++;
    }
    String id = inv.getContext().hasRequestId() ? inv.getContext().getRequestId() : "without an id";
    java.io.StringWriter trace = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(trace));
    System.err.print(key + " threw (request " + id + "): " + trace);
    System.err.flush();
  }
}
