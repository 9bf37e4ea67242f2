package ckpt.interop;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A minimal JSON writer (insertion-ordered objects) so the harness needs no JSON library. */
public final class Json {
  private Json() {}

  /** An insertion-ordered JSON object. */
  public static Map<String, Object> obj(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i + 1 < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  public static List<Object> arr(Collection<?> items) {
    return new ArrayList<>(items);
  }

  public static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v, 0, true);
    return sb.toString();
  }

  /** One line, no indentation (for entries). */
  public static String line(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v, 0, false);
    return sb.toString();
  }

  private static void indent(StringBuilder sb, int n) {
    sb.append('\n');
    for (int i = 0; i < n; i++) sb.append("  ");
  }

  @SuppressWarnings("unchecked")
  private static void write(StringBuilder sb, Object v, int depth, boolean pretty) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      quote(sb, (String) v);
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map) {
      Map<String, Object> m = (Map<String, Object>) v;
      // Entry objects (they have "state") stay on one line so the file reads like dump output.
      boolean flat = !pretty || m.containsKey("state") && (m.containsKey("value") || m.containsKey("timestamp"));
      sb.append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : m.entrySet()) {
        if (!first) sb.append(flat ? "," : ",");
        first = false;
        if (!flat) indent(sb, depth + 1);
        quote(sb, e.getKey());
        sb.append(flat ? ":" : ": ");
        write(sb, e.getValue(), depth + 1, !flat);
      }
      if (!flat && !m.isEmpty()) indent(sb, depth);
      sb.append('}');
    } else if (v instanceof Collection) {
      Collection<Object> c = (Collection<Object>) v;
      boolean flat = !pretty || c.stream().noneMatch(x -> x instanceof Map || x instanceof Collection);
      sb.append('[');
      boolean first = true;
      for (Object x : c) {
        if (!first) sb.append(flat ? "," : ",");
        first = false;
        if (!flat) indent(sb, depth + 1);
        write(sb, x, depth + 1, pretty);
      }
      if (!flat && !c.isEmpty()) indent(sb, depth);
      sb.append(']');
    } else {
      throw new IllegalArgumentException("not JSON: " + v.getClass());
    }
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': sb.append("\\\""); break;
        case '\\': sb.append("\\\\"); break;
        case '\n': sb.append("\\n"); break;
        case '\r': sb.append("\\r"); break;
        case '\t': sb.append("\\t"); break;
        default:
          if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
          else sb.append(c);
      }
    }
    sb.append('"');
  }
}
