// Writes, as JSON, the time zones as java.text.SimpleDateFormat
// reads and writes them with Locale.ENGLISH (XStream's DateConverter), taken from the JDK that runs
// this: DateFormatSymbols' zone strings in their order (the order SimpleDateFormat searches them), each
// zone's DST savings, and each zone's raw and DST offsets as sun.util.calendar.ZoneInfo gives them to
// GregorianCalendar, by wall time (getOffsetsByWall: reading a date) and by UTC (getOffsets: writing
// one), between 1800 and 2100. Run by scripts/java-zones.sh.
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.text.DateFormatSymbols;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.time.zone.ZoneRulesProvider;
import sun.util.calendar.ZoneInfo;

public class JavaZones {
  static final long FROM = -5364662400000L; // 1800-01-01T00:00Z, before every table starts (1900)
  static final long TO = 4133980800000L; // 2101-01-01T00:00Z
  static final long STEP = 3_600_000L;
  static final long MINUTE = 60_000L;

  /**
   * When the offset (0 raw, 1 DST) changes, by wall time (getOffsetsByWall) or by UTC (getOffsets), and
   * the value from there: "initial;delta:value,delta:value" in base 36, offsets in seconds, each delta
   * in milliseconds from the change before it (the first from 1800-01-01T00:00).
   */
  static String changes(ZoneInfo zi, int which, boolean byWall) {
    int[] o = new int[2];
    offsets(zi, FROM, o, byWall);
    int current = o[which];
    StringBuilder sb = new StringBuilder(seconds(current));
    String sep = ";";
    long previous = FROM;
    for (long t = FROM + STEP; t <= TO; t += STEP) {
      offsets(zi, t, o, byWall);
      if (o[which] == current) continue;
      for (long m = t - STEP + MINUTE; m <= t; m += MINUTE) {
        offsets(zi, m, o, byWall);
        if (o[which] == current) continue;
        // The first millisecond in (m - MINUTE, m] with the new value.
        long lo = m - MINUTE, hi = m;
        while (hi - lo > 1) {
          long mid = lo + (hi - lo) / 2;
          offsets(zi, mid, o, byWall);
          if (o[which] == current) lo = mid; else hi = mid;
        }
        offsets(zi, hi, o, byWall);
        where = " (" + zi.getID() + " " + (byWall ? "wall" : "utc") + " " + which + " at " + hi + ")";
        current = o[which];
        sb.append(sep).append(Long.toString(hi - previous, 36)).append(':').append(seconds(current));
        previous = hi;
        sep = ",";
      }
    }
    return sb.toString();
  }

  static void offsets(ZoneInfo zi, long t, int[] o, boolean byWall) {
    if (byWall) zi.getOffsetsByWall(t, o); else zi.getOffsets(t, o);
  }

  static String where = "";

  static String seconds(long ms) {
    if (ms % 1000 != 0) throw new IllegalStateException(ms + " ms is not whole seconds" + where);
    return Long.toString(ms / 1000, 36);
  }

  static final java.util.regex.Pattern RULE_FIELD = java.util.regex.Pattern.compile("(\\w+)=(-?\\d+|true|false)");
  static final String[] RULE_FIELDS = {
    "offset", "dstSavings", "startYear", "startMode", "startMonth", "startDay", "startDayOfWeek", "startTime",
    "startTimeMode", "endMode", "endMonth", "endDay", "endDayOfWeek", "endTime", "endTimeMode"
  };

  /**
   * The SimpleTimeZone that ZoneInfo follows past its transitions (2037), as the fields its toString
   * gives: [raw offset, DST savings, start year, then mode, month, day, day of week, time, time mode of
   * the start and of the end]; null for a zone without one (it keeps its last offsets).
   */
  static String lastRule(ZoneInfo zi) {
    java.util.SimpleTimeZone rule = zi.getLastRuleInstance();
    if (rule == null) return "null";
    java.util.Map<String, String> f = new java.util.HashMap<>();
    java.util.regex.Matcher m = RULE_FIELD.matcher(rule.toString());
    while (m.find()) f.put(m.group(1), m.group(2));
    if (!"true".equals(f.get("useDaylight"))) return "null";
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < RULE_FIELDS.length; i++) {
      String v = f.get(RULE_FIELDS[i]);
      if (v == null) throw new IllegalStateException(zi.getID() + ": no " + RULE_FIELDS[i] + " in " + rule);
      sb.append(i > 0 ? "," : "").append(v);
    }
    return sb.append("]").toString();
  }

  static String json(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }

  public static void main(String[] args) throws Exception {
    String[][] rows = DateFormatSymbols.getInstance(Locale.ENGLISH).getZoneStrings();
    List<String> tables = new ArrayList<>();
    Map<String, Integer> index = new HashMap<>();
    StringBuilder zones = new StringBuilder();
    for (String[] row : rows) {
      TimeZone tz = TimeZone.getTimeZone(row[0]);
      if (!(tz instanceof ZoneInfo)) throw new IllegalStateException(row[0] + " is not a ZoneInfo");
      ZoneInfo zi = (ZoneInfo) tz;
      zones.append("[").append(json(row[0]));
      for (int i = 1; i <= 4; i++) zones.append(", ").append(json(row[i]));
      zones.append(", ").append(tz.getDSTSavings());
      for (boolean byWall : new boolean[] { true, false })
        for (int which = 0; which < 2; which++) {
          String t = changes(zi, which, byWall);
          zones.append(", ").append(index.computeIfAbsent(t, k -> { tables.add(k); return tables.size() - 1; }));
        }
      zones.append(", ").append(lastRule(zi)).append("],\n");
    }
    String tzdata = ZoneRulesProvider.getVersions("UTC").lastEntry().getKey();
    String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8))) {
      out.println("{\"source\": " + json(jdk + ", tzdata " + tzdata) + ",");
      out.println("\"zones\": [");
      out.print(zones.substring(0, zones.length() - 2));
      out.println("],");
      out.println("\"tables\": [");
      for (int i = 0; i < tables.size(); i++) out.println(json(tables.get(i)) + (i + 1 < tables.size() ? "," : ""));
      out.println("]}");
    }
    System.err.println(rows.length + " zones, " + tables.size() + " tables, tzdata " + tzdata);
  }
}
