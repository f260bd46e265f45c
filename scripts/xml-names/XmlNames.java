// Prints, as JSON, the BMP characters above ASCII that Woodstox (the StAX parser under Jackson's
// XmlMapper) takes as the first character of an XML 1.0 name and as a later one, as ranges
// [from, to] inclusive, asking Woodstox itself (com.ctc.wstx.util.XmlChars).
import com.ctc.wstx.util.XmlChars;

public class XmlNames {
  public static void main(String[] args) {
    StringBuilder out = new StringBuilder();
    out.append("{\"source\":\"").append(args[0]).append(", Java ").append(System.getProperty("java.version")).append("\",\"start\":").append(ranges(true));
    out.append(",\"name\":").append(ranges(false)).append("}");
    System.out.println(out);
  }

  static String ranges(boolean start) {
    StringBuilder s = new StringBuilder("[");
    int from = -1;
    for (int c = 0x80; c <= 0x10000; c++) {
      boolean in = c <= 0xFFFF && (start ? XmlChars.is10NameStartChar((char) c) : XmlChars.is10NameChar((char) c));
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
