// Writes test/conformance/characters/vectors.json (to stdout): how the Java serializers write and read characters.
// Run by scripts/character-vectors.sh against Debian's XStream 1.4.20, Jettison 1.5.3, Jackson 2.14
// and Woodstox 6.2.1; the output is committed so that the suite needs no Java to check it.
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.io.json.JettisonMappedXmlDriver;
import java.util.*;

public class CharacterVectors {
  static final XmlMapper BETA_XML = new XmlMapper();
  static final ObjectMapper BETA_JSON = new ObjectMapper();
  static final XStream ALPHA_XML = new XStream();
  static final XStream ALPHA_JSON = new XStream(new JettisonMappedXmlDriver());

  static String write(String family, String s) {
    try {
      switch (family) {
        case "alphaXml": return ALPHA_XML.toXML(s);
        case "alphaJson": return ALPHA_JSON.toXML(s);
        case "betaXml": return BETA_XML.writeValueAsString(s);
        default: return BETA_JSON.writeValueAsString(s);
      }
    } catch (Exception e) {
      return null;
    }
  }

  static Object read(String family, String text) {
    try {
      Object v = family.equals("alphaXml") ? ALPHA_XML.fromXML(text) : BETA_XML.readValue(text, String.class);
      return Map.of("value", v);
    } catch (Exception e) {
      return Map.of("error", e.getClass().getSimpleName());
    }
  }

  static String wrap(String family, String raw) {
    switch (family) {
      case "alphaXml": return "<string>" + raw + "</string>";
      case "alphaJson": return "{\"string\":\"" + raw + "\"}";
      case "betaXml": return "<String>" + raw + "</String>";
      default: return "\"" + raw + "\"";
    }
  }

  public static void main(String[] args) throws Exception {
    ALPHA_XML.allowTypesByWildcard(new String[] {"**"});
    ALPHA_JSON.allowTypesByWildcard(new String[] {"**"});
    String[] families = {"alphaXml", "alphaJson", "betaXml", "betaJson"};
    Map<String, Object> out = new LinkedHashMap<>();

    // Every BMP character but the surrogates, alone: only those not written as themselves are kept.
    Map<String, Map<String, String>> single = new LinkedHashMap<>();
    for (String f : families) {
      Map<String, String> special = new TreeMap<>(Comparator.comparingInt(Integer::parseInt));
      for (int c = 0; c <= 0xffff; c++) {
        if (c >= 0xd800 && c <= 0xdfff) continue;
        String s = String.valueOf((char) c);
        String w = write(f, s);
        if (w == null) special.put(Integer.toString(c), null);
        else if (!w.equals(wrap(f, s))) special.put(Integer.toString(c), w);
      }
      single.put(f, special);
    }
    out.put("single", single);

    // Strings from an alphabet of the characters that matter, at lengths around Woodstox's 12 and 512.
    char[] alphabet = {'a', 'a', 'a', 'a', ']', ']', '>', '>', '<', '&', '\r', '\n', '\t', '\u0085', '\u007f', '\u2028', '\u2029',
      '\u00e9', '"', '\'', '/', '\\', '\uffff', '\ufffe', ' ', '\u0001'};
    int[] lengths = {0, 1, 2, 3, 5, 10, 11, 12, 13, 20, 100, 255, 256, 511, 512, 513, 600, 1023, 1024, 1025, 1100, 1600};
    Random random = new Random(20261122L);
    List<Map<String, Object>> strings = new ArrayList<>();
    for (int len : lengths) {
      for (int k = 0; k < 12; k++) {
        StringBuilder b = new StringBuilder();
        // Mostly plain text so that '>' lands at every kind of position, sometimes dense specials.
        double density = k < 6 ? 0.05 : 0.5;
        for (int i = 0; i < len; i++) {
          if (random.nextDouble() < density) b.append(alphabet[random.nextInt(alphabet.length)]);
          else b.append(random.nextInt(20) == 0 ? '>' : 'x');
        }
        if (k == 0 && len > 0) b.setCharAt(0, '>');
        if (k == 1 && len > 512) b.setCharAt(512, '>');
        if (k == 2 && len > 513) { b.setCharAt(511, ']'); b.setCharAt(512, '>'); }
        String s = b.toString();
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("value", s);
        for (String f : families) c.put(f, write(f, s));
        strings.add(c);
      }
    }
    out.put("strings", strings);

    // Character references, as the two XML readers read them (null value: refused).
    int[] points = {0x0, 0x1, 0x8, 0x9, 0xa, 0xb, 0xd, 0x1f, 0x20, 0x41, 0x7f, 0x85, 0x9f, 0xa0, 0xd7ff, 0xd800, 0xdbff,
      0xdc00, 0xdfff, 0xe000, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x1f600, 0x10ffff, 0x110000};
    List<Map<String, Object>> refs = new ArrayList<>();
    for (int p : points) {
      for (String form : new String[] {"&#x" + Integer.toHexString(p) + ";", "&#" + p + ";", "&#x" + Integer.toHexString(p).toUpperCase() + ";"}) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("reference", form);
        c.put("alphaXml", read("alphaXml", "<string>a" + form + "b</string>"));
        c.put("betaXml", read("betaXml", "<String>a" + form + "b</String>"));
        refs.add(c);
      }
    }
    out.put("references", refs);

    ObjectMapper json = new ObjectMapper();
    json.getFactory().enable(JsonGenerator.Feature.ESCAPE_NON_ASCII);
    System.out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(out));
  }
}
