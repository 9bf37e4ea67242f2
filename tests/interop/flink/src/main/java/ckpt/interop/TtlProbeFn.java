package ckpt.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Restored in place of {@link TtlFn} (same uid and states) with a TTL chosen at open() so that,
 * by Flink's own expiry check, every TTL entry of batch A is expired and every one of batch B is
 * alive: ttl = now - (batch A's max_after_write_ms) - MARGIN_MS. Then A's timestamps + ttl are
 * before now; B's are after as long as the probe reads within (gap - MARGIN_MS) of open(). Per
 * key it reads the four states and records what it found against what TtlFn wrote.
 */
public final class TtlProbeFn extends KeyedProcessFunction<String, Rec, String> {
  static final long MARGIN_MS = 250;

  /** run -> key -> "" (as expected) or what differed. */
  static final Map<String, Map<String, String>> RESULTS = new ConcurrentHashMap<>();

  static Map<String, String> results(String run) {
    return RESULTS.computeIfAbsent(run, r -> new ConcurrentHashMap<>());
  }

  private final String run;
  private final long aMaxAfterMs;
  private final long bMinBeforeMs;
  private transient long ttlMs;
  private transient ValueState<Long> ttlValue;
  private transient MapState<String, Long> ttlMap;
  private transient ListState<Long> ttlList;
  private transient ValueState<Long> plainValue;

  public TtlProbeFn(String run, long aMaxAfterMs, long bMinBeforeMs) {
    this.run = run;
    this.aMaxAfterMs = aMaxAfterMs;
    this.bMinBeforeMs = bMinBeforeMs;
  }

  @Override
  public void open(OpenContext ctx) {
    ttlMs = System.currentTimeMillis() - aMaxAfterMs - MARGIN_MS;
    if (ttlMs <= 0) throw new IllegalStateException("batch A's writes are in the future: " + aMaxAfterMs);
    StateTtlConfig ttl = TtlFn.ttlConfig(ttlMs);
    ValueStateDescriptor<Long> v = new ValueStateDescriptor<>(TtlFn.TTL_STATES[0], Types.LONG);
    v.enableTimeToLive(ttl);
    MapStateDescriptor<String, Long> m = new MapStateDescriptor<>(TtlFn.TTL_STATES[1], Types.STRING, Types.LONG);
    m.enableTimeToLive(ttl);
    ListStateDescriptor<Long> l = new ListStateDescriptor<>(TtlFn.TTL_STATES[2], Types.LONG);
    l.enableTimeToLive(ttl);
    ttlValue = getRuntimeContext().getState(v);
    ttlMap = getRuntimeContext().getMapState(m);
    ttlList = getRuntimeContext().getListState(l);
    plainValue = getRuntimeContext().getState(new ValueStateDescriptor<>(TtlFn.PLAIN_STATE, Types.LONG));
  }

  @Override
  public void processElement(Rec r, Context ctx, Collector<String> out) throws Exception {
    String key = ctx.getCurrentKey();
    long seq = r.seq;
    boolean alive = seq >= TtlFn.BATCH_A;
    Long value = ttlValue.value();
    TreeMap<String, Long> map = new TreeMap<>();
    for (Map.Entry<String, Long> e : ttlMap.entries()) map.put(e.getKey(), e.getValue());
    List<Long> list = new ArrayList<>();
    Iterable<Long> it = ttlList.get();
    if (it != null) it.forEach(list::add);
    Long plain = plainValue.value();
    long readMs = System.currentTimeMillis();

    TreeMap<String, Long> wantMap = new TreeMap<>();
    List<Long> wantList = new ArrayList<>();
    if (alive) {
      for (int j = 0; j < TtlFn.mapEntries(seq); j++) wantMap.put("m-" + j, seq * 100 + j);
      for (int j = 0; j < TtlFn.listEntries(seq); j++) wantList.add(seq * 1000 + j);
    }
    Long wantValue = alive ? Long.valueOf(seq) : null;
    StringBuilder bad = new StringBuilder();
    if (alive && readMs >= bMinBeforeMs + ttlMs) {
      bad.append("inconclusive: read ").append(readMs - (bMinBeforeMs + ttlMs)).append(" ms too late for batch B; ");
    }
    if (!java.util.Objects.equals(value, wantValue)) bad.append("ttl-value ").append(value).append(" want ").append(wantValue).append("; ");
    if (!map.equals(wantMap)) bad.append("ttl-map ").append(map).append(" want ").append(wantMap).append("; ");
    if (!list.equals(wantList)) bad.append("ttl-list ").append(list).append(" want ").append(wantList).append("; ");
    if (plain == null || plain != seq) bad.append("plain-value ").append(plain).append(" want ").append(seq).append("; ");
    results(run).put(key, bad.toString());
  }
}
