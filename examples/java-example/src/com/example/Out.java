package com.example;

/** The output of SPEC's example: one Integer field result. */
public class Out {
  public Integer result;

  public Out() {}

  public Out(Integer result) {
    this.result = result;
  }
}
