package platform.host;

import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import com.fasterxml.jackson.dataformat.xml.util.XmlRootNameLookup;
import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.io.json.JettisonMappedXmlDriver;
import com.thoughtworks.xstream.io.naming.NameCoder;
import com.thoughtworks.xstream.io.naming.NoNameCoder;
import com.thoughtworks.xstream.io.xml.XmlFriendlyNameCoder;
import com.thoughtworks.xstream.mapper.Mapper;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The names the serializers give types and fields, asked of the serializers themselves: XStream's
 * mapper (its aliases, registered in code or from microservice.json, and its annotations) for alpha
 * XML and alpha JSON, Jackson's root-name lookup for beta XML. The beans are the microservice's own
 * when its context defines them, else built as Serializers builds its defaults.
 */
final class SchemaNames {
  /** An XStream's names, coded as its writer codes them: XML escapes `$` and `_`, Jettison writes them as they are. */
  static final class Alpha {
    private final Mapper mapper;
    private final NameCoder coder;

    Alpha(XStream x, boolean json) {
      mapper = x.getMapper();
      coder = json ? new NoNameCoder() : new XmlFriendlyNameCoder();
    }

    /** The element XStream writes a value of this type as: int, string, list, in, int-array (alpha-node.ts alphaTypeName). */
    String type(SchemaType t) {
      return coder.encodeNode(mapper.serializedClass(t.runtime()));
    }

    /** A field's element name: its alias or its name. */
    String field(SchemaType.Member f) {
      return coder.encodeNode(mapper.serializedMember(f.owner, f.name));
    }

    /** A field written as an attribute (@XStreamAsAttribute, useAttributeFor): its attribute name; else null. */
    String attribute(SchemaType.Member f) {
      if (mapper.getConverterFromItemType(f.name, f.type.raw, f.owner) == null) return null;
      return coder.encodeAttribute(mapper.aliasForAttribute(mapper.serializedMember(f.owner, f.name)));
    }

    /** A collection field written without a wrapper (@XStreamImplicit): its items' element name; else null. */
    String implicit(SchemaType.Member f) {
      if (!f.type.isCollection()) return null;
      Mapper.ImplicitCollectionMapping m = mapper.getImplicitCollectionDefForFieldName(f.owner, f.name);
      if (m == null) return null;
      return m.getItemFieldName() != null ? coder.encodeNode(m.getItemFieldName()) : type(f.type.item);
    }
  }

  private final Microservice ms;

  SchemaNames(Microservice ms) {
    this.ms = ms;
  }

  /** The names of the alpha XML (json false) or alpha JSON sequence's serializer. */
  Alpha alpha(boolean json) {
    String bean = json ? "alphaJsonSerializer" : "alphaXmlSerializer";
    if (ms.context.containsBean(bean) && ms.context.getBean(bean) instanceof XStream)
      return new Alpha((XStream) ms.context.getBean(bean), json);
    XStream x = json ? new XStream(new JettisonMappedXmlDriver()) : new XStream();
    x.setClassLoader(ms.loader);
    x.processAnnotations(exposedClasses().toArray(new Class<?>[0]));
    try {
      for (Map.Entry<String, String> a : ms.config.aliases.entrySet()) x.alias(a.getValue(), ms.loader.loadClass(a.getKey()));
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("microservice.json names an alias for a class the jar lacks: " + e.getMessage());
    }
    return new Alpha(x, json);
  }

  /** The root element Jackson's XML mapper (the betaXmlSerializer bean's or a plain one) writes a value of this type as. */
  String betaRoot(SchemaType t) {
    Object bean = ms.context.containsBean("betaXmlSerializer") ? ms.context.getBean("betaXmlSerializer") : null;
    XmlMapper xml = bean instanceof XmlMapper ? (XmlMapper) bean : plainXml();
    return new XmlRootNameLookup().findRootName(t.runtime(), xml.getSerializationConfig()).getLocalPart();
  }

  private XmlMapper plain;

  private XmlMapper plainXml() {
    if (plain == null) plain = new XmlMapper();
    return plain;
  }

  /** What Serializers processes the annotations of: the package's classes among exposed parameters and results. */
  private List<Class<?>> exposedClasses() {
    List<Class<?>> out = new ArrayList<>();
    for (Microservice.Service s : ms.services.values())
      if (s.remotelyEnabled)
        for (Method m : s.methods.values()) {
          for (Class<?> p : m.getParameterTypes()) if (p.getClassLoader() == ms.loader) out.add(p);
          if (m.getReturnType().getClassLoader() == ms.loader) out.add(m.getReturnType());
        }
    return out;
  }
}
