package com.example;

import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.io.json.JettisonMappedXmlDriver;

/** The example's own alpha serializer beans: XStream with its aliases (SPEC, Serialization sequences 4). */
public final class AlphaSerializers {
  private AlphaSerializers() {}

  public static XStream xml() {
    return configured(new XStream());
  }

  public static XStream json() {
    return configured(new XStream(new JettisonMappedXmlDriver()));
  }

  private static XStream configured(XStream x) {
    x.allowTypesByWildcard(new String[] {"com.example.**"});
    x.alias("in", In.class);
    x.alias("out", Out.class);
    x.alias("context", Context.class);
    return x;
  }
}
