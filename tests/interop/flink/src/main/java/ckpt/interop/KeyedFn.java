package ckpt.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReducingState;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by "k-NN" (seq % 16). Per key: ValueState "count", ReducingState "sum" (of seq),
 * ListState "recent" (seqs divisible by 4), MapState "by-parity" (even/odd -> count), ValueState
 * "last" (Tuple2 of the largest seq and its parity), ValueState "fired" (timers fired), and an
 * event-time timer at ts + 3000 for every seq divisible by 10.
 */
public final class KeyedFn extends KeyedProcessFunction<String, Rec, String>
    implements CheckpointedFunction {
  public static final String UID = "keyed";
  public static final String TIMERS = "_timer_state/event_user-timers";

  private transient ValueState<Long> count;
  private transient ReducingState<Long> sum;
  private transient ListState<Long> recent;
  private transient MapState<String, Long> byParity;
  private transient ValueState<Tuple2<Long, String>> last;
  private transient ValueState<Long> fired;

  /** The mirror: what Flink holds for each key. */
  private static final class M {
    long count;
    long sum;
    final List<Long> recent = new ArrayList<>();
    final TreeMap<String, Long> parity = new TreeMap<>();
    long lastSeq = -1;
    String lastParity;
    long fired;
    final TreeSet<Long> timers = new TreeSet<>();
  }

  private final TreeMap<String, M> mirror = new TreeMap<>();

  public static String keyOf(long seq) {
    return String.format("k-%02d", seq % 16);
  }

  @Override
  public void open(OpenContext ctx) {
    count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    sum = getRuntimeContext().getReducingState(new ReducingStateDescriptor<>("sum", Long::sum, Types.LONG));
    recent = getRuntimeContext().getListState(new ListStateDescriptor<>("recent", Types.LONG));
    byParity = getRuntimeContext().getMapState(new MapStateDescriptor<>("by-parity", Types.STRING, Types.LONG));
    last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Types.TUPLE(Types.LONG, Types.STRING)));
    fired = getRuntimeContext().getState(new ValueStateDescriptor<>("fired", Types.LONG));
  }

  @Override
  public void processElement(Rec r, Context ctx, Collector<String> out) throws Exception {
    String key = ctx.getCurrentKey();
    M m = mirror.computeIfAbsent(key, k -> new M());
    Long c = count.value();
    count.update(c == null ? 1 : c + 1);
    m.count++;
    sum.add(r.seq);
    m.sum += r.seq;
    if (r.seq % 4 == 0) {
      recent.add(r.seq);
      m.recent.add(r.seq);
    }
    String parity = r.seq % 2 == 0 ? "even" : "odd";
    Long p = byParity.get(parity);
    byParity.put(parity, p == null ? 1 : p + 1);
    m.parity.merge(parity, 1L, Long::sum);
    Tuple2<Long, String> l = last.value();
    if (l == null || r.seq > l.f0) {
      last.update(Tuple2.of(r.seq, parity));
      m.lastSeq = r.seq;
      m.lastParity = parity;
    }
    if (r.seq % 10 == 0) {
      ctx.timerService().registerEventTimeTimer(r.ts + 3000);
      m.timers.add(r.ts + 3000);
    }
    out.collect(key + "," + r.seq);
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) throws Exception {
    Long f = fired.value();
    fired.update(f == null ? 1 : f + 1);
    M m = mirror.get(ctx.getCurrentKey());
    m.fired++;
    m.timers.remove(timestamp);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext ctx) {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    List<Map<String, Object>> e = new ArrayList<>();
    for (Map.Entry<String, M> kv : mirror.entrySet()) {
      String k = kv.getKey();
      M m = kv.getValue();
      e.add(Truth.keyed("count", "value", subtask, k, null, null, false, m.count));
      e.add(Truth.keyed("sum", "reducing", subtask, k, null, null, false, m.sum));
      if (!m.recent.isEmpty()) e.add(Truth.keyed("recent", "list", subtask, k, null, null, false, new ArrayList<>(m.recent)));
      for (Map.Entry<String, Long> pe : m.parity.entrySet()) {
        e.add(Truth.keyed("by-parity", "map", subtask, k, null, pe.getKey(), true, pe.getValue()));
      }
      // Tuple2: Flink's TupleSerializer stores no field names, so (like our format's unnamed
      // TUPLE) the value is a JSON array [f0, f1].
      e.add(Truth.keyed("last", "value", subtask, k, null, null, false,
          java.util.Arrays.asList(m.lastSeq, m.lastParity)));
      if (m.fired > 0) e.add(Truth.keyed("fired", "value", subtask, k, null, null, false, m.fired));
      for (long t : m.timers) e.add(Truth.timer(TIMERS, subtask, k, null, t));
    }
    Truth.record(ctx.getCheckpointId(), UID, subtask, e);
  }

  @Override
  public void initializeState(FunctionInitializationContext ctx) {}
}
