// Prints, as JSON, the BMP characters above ASCII that Woodstox (the StAX parser under Jackson's
// XmlMapper) takes as the first character of a name and as a later one, in an XML 1.0 document and in
// an XML 1.1 one, as ranges [from, to] inclusive, asking Woodstox itself (com.ctc.wstx.util.XmlChars).
import com.ctc.wstx.util.XmlChars;

public class XmlNames {
  public static void main(String[] args) {
    StringBuilder out = new StringBuilder();
    out.append("{\"source\":\"").append(args[0]).append(", Java ").append(System.getProperty("java.version")).append("\",\"start\":").append(ranges(true));
    out.append(",\"name\":").append(ranges(false));
    out.append(",\"start11\":").append(ranges11(true)).append(",\"name11\":").append(ranges11(false)).append("}");
    System.out.println(out);
  }

  static String ranges(boolean start) {
    return ranges(start, false);
  }

  static String ranges11(boolean start) {
    return ranges(start, true);
  }

  static String ranges(boolean start, boolean xml11) {
    StringBuilder s = new StringBuilder("[");
    int from = -1;
    for (int c = 0x80; c <= 0x10000; c++) {
      char ch = (char) c;
      boolean in =
          c <= 0xFFFF
              && (xml11
                  ? (start ? XmlChars.is11NameStartChar(ch) : XmlChars.is11NameChar(ch))
                  : (start ? XmlChars.is10NameStartChar(ch) : XmlChars.is10NameChar(ch)));
      if (in && from < 0) from = c;
      if (!in && from >= 0) {
        if (s.length() > 1) s.append(',');
        s.append('[').append(from).append(',').append(c - 1).append(']');
        from = -1;
      }
    }
    return s.append(']').toString();
  }
}
