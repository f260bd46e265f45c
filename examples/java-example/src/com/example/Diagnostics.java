package com.example;

import java.util.ArrayList;
import platform.api.CallContext;

/** What a call carries, and values that must travel exactly. */
public class Diagnostics {
  public Context context() {
    CallContext c = CallContext.current();
    Context out = new Context();
    out.locale = c.getLocale();
    out.privilegeNames = new ArrayList<>(c.getPrivilegeNames());
    out.requestId = c.getRequestId();
    out.sessionId = c.getSessionId();
    out.user = c.getUser();
    out.clientApplicationName = c.getClientApplicationName();
    out.ip = c.getIp();
    out.privileged = c.isPrivileged();
    return out;
  }

  public String echo(String s) {
    return s;
  }

  public Long echoLong(Long n) {
    return n;
  }
}
