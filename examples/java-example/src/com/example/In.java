package com.example;

/** The input of SPEC's example: two Integer fields a and b. */
public class In {
  public Integer a;
  public Integer b;
}
