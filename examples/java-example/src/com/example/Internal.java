package com.example;

/** A service that is not remotely enabled: its bean exists, callers never reach it. */
public class Internal {
  public String secret(String s) {
    return "not for callers";
  }
}
