package com.example;

import java.util.List;

/** What a call carries, as diagnostics.context answers it. */
public class Context {
  public String locale;
  public List<String> privilegeNames;
  public String requestId;
  public String sessionId;
  public String user;
  public String clientApplicationName;
  public String ip;
  public Boolean privileged;
}
