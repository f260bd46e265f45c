package platform.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.converters.basic.DateConverter;
import com.thoughtworks.xstream.io.json.JettisonMappedXmlDriver;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import org.springframework.context.ApplicationContext;

/**
 * The serializer of each sequence (SPEC, Serialization sequences): the bean of the sequence's name in the
 * microservice's context when it defines one, whatever its configuration, else SPEC's default definition.
 */
final class Serializers {
  /** Sequence name → bean name, as SPEC's table has them. */
  static final Map<String, String> SEQUENCES = Map.of(
      "alphaParamArrayXmlInOutSequence", "alphaXmlSerializer",
      "alphaParamArrayJsonInOutSequence", "alphaJsonSerializer",
      "betaParamArrayXmlInOutSequence", "betaXmlSerializer",
      "betaParamArrayJsonInOutSequence", "betaJsonSerializer");
  static final Set<String> BEANS = Set.copyOf(SEQUENCES.values());

  /** One sequence's serializer: reads an argument as its parameter's type, writes a result. */
  interface Codec {
    Object read(byte[] bytes, Type type) throws Exception;

    byte[] write(Object value) throws Exception;
  }

  private final Map<String, Codec> bySequence;

  Serializers(ApplicationContext context, Config config, ClassLoader loader, List<Class<?>> exposed) throws Exception {
    TimeZone zone = TimeZone.getTimeZone(config.timeZone);
    bySequence = Map.of(
        "alphaParamArrayXmlInOutSequence", alpha(context, "alphaXmlSerializer", false, config, loader, exposed, zone),
        "alphaParamArrayJsonInOutSequence", alpha(context, "alphaJsonSerializer", true, config, loader, exposed, zone),
        "betaParamArrayXmlInOutSequence", beta(context, "betaXmlSerializer", true, loader, zone),
        "betaParamArrayJsonInOutSequence", beta(context, "betaJsonSerializer", false, loader, zone));
  }

  /** The codec of a sequence; null for a name that is none. */
  Codec of(String sequence) {
    return bySequence.get(sequence);
  }

  private static Codec alpha(ApplicationContext context, String bean, boolean json, Config config, ClassLoader loader,
      List<Class<?>> exposed, TimeZone zone) throws Exception {
    XStream x;
    if (context.containsBean(bean)) {
      Object b = context.getBean(bean);
      if (!(b instanceof XStream))
        throw new IllegalStateException("the bean '" + bean + "' is a " + b.getClass().getName() + ", not an XStream");
      x = (XStream) b;
    } else {
      x = json ? new XStream(new JettisonMappedXmlDriver()) : new XStream();
      x.setClassLoader(loader);
      // XStream's own allow-list (primitives, strings, collections, dates) and the package's own classes:
      // never a JDK or library class a document names to reach a gadget.
      x.addPermission(type -> type != null && type.getClassLoader() == loader);
      x.processAnnotations(exposed.toArray(new Class<?>[0]));
      for (Map.Entry<String, String> a : config.aliases.entrySet()) x.alias(a.getValue(), loader.loadClass(a.getKey()));
      if (!zone.getID().equals("UTC")) x.registerConverter(new DateConverter(zone));
    }
    XStream xs = x;
    return new Codec() {
      public Object read(byte[] bytes, Type type) {
        return xs.fromXML(new String(bytes, StandardCharsets.UTF_8));
      }

      public byte[] write(Object value) {
        return xs.toXML(value).getBytes(StandardCharsets.UTF_8);
      }
    };
  }

  private static Codec beta(ApplicationContext context, String bean, boolean xml, ClassLoader loader, TimeZone zone) {
    ObjectMapper m;
    if (context.containsBean(bean)) {
      Object b = context.getBean(bean);
      if (!(b instanceof ObjectMapper) || (xml && !(b instanceof XmlMapper)))
        throw new IllegalStateException("the bean '" + bean + "' is a " + b.getClass().getName() + ", not "
            + (xml ? "an XmlMapper" : "an ObjectMapper"));
      m = (ObjectMapper) b;
    } else {
      m = xml ? new XmlMapper() : new ObjectMapper();
      m.setTypeFactory(TypeFactory.defaultInstance().withClassLoader(loader));
      if (!zone.getID().equals("UTC")) m.setTimeZone(zone);
    }
    ObjectMapper mapper = m;
    return new Codec() {
      public Object read(byte[] bytes, Type type) throws Exception {
        return mapper.readValue(bytes, mapper.getTypeFactory().constructType(type));
      }

      // As a microservice writes its result: by the value's runtime class. Through a String: Jackson 2.14's
      // byte generator writes a character past U+FFFF as two escaped UTF-16 units, its character one writes it
      // as it is, as the oracle does (docs/java.md, Serializers).
      public byte[] write(Object value) throws Exception {
        return mapper.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
      }
    };
  }
}
