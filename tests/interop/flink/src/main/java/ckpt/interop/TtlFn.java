package ckpt.interop;

import java.time.Duration;
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
 * The TTL job's keyed function: one record per key. Per key it writes the TTL-wrapped states
 * "ttl-value" (ValueState Long = seq), "ttl-map" (MapState String -> Long: 1 + seq % 3 entries
 * "m-J" -> seq * 100 + J) and "ttl-list" (ListState Long: 1 + seq % 4 elements seq * 1000 + J,
 * added one by one), and the plain "plain-value" (ValueState Long = seq, no TTL). The wall clock
 * read right before the first write and right after the last one brackets every last-access
 * timestamp Flink's TTL wrapper stored for that key (its time provider is
 * System.currentTimeMillis()); the mirror keeps both.
 */
public final class TtlFn extends KeyedProcessFunction<String, Rec, String> {
  public static final String UID = "ttl-keyed";
  public static final long TTL_MS = Duration.ofHours(1).toMillis();
  public static final String[] TTL_STATES = {"ttl-value", "ttl-map", "ttl-list"};
  public static final String PLAIN_STATE = "plain-value";
  /** Seqs below this are batch A (keys a-00..), the rest batch B (keys b-00..). */
  public static final long BATCH_A = 20;

  /** What one key got: its record, the subtask that wrote it and the clock around the writes. */
  public static final class Written {
    public final long seq;
    public final int subtask;
    public final long beforeMs;
    public final long afterMs;

    Written(long seq, int subtask, long beforeMs, long afterMs) {
      this.seq = seq;
      this.subtask = subtask;
      this.beforeMs = beforeMs;
      this.afterMs = afterMs;
    }
  }

  /** run -> key -> what was written (JVM-wide: the MiniCluster runs in this JVM). */
  static final Map<String, Map<String, Written>> MIRROR = new ConcurrentHashMap<>();

  static Map<String, Written> mirror(String run) {
    return MIRROR.computeIfAbsent(run, r -> new ConcurrentHashMap<>());
  }

  public static String keyOf(long seq) {
    return seq < BATCH_A ? String.format("a-%02d", seq) : String.format("b-%02d", seq - BATCH_A);
  }

  public static int mapEntries(long seq) {
    return 1 + (int) (seq % 3);
  }

  public static int listEntries(long seq) {
    return 1 + (int) (seq % 4);
  }

  public static StateTtlConfig ttlConfig() {
    return ttlConfig(TTL_MS);
  }

  /** The job's TTL config with another duration (TtlProbeFn restores with a shorter one). */
  public static StateTtlConfig ttlConfig(long ttlMs) {
    // OnCreateAndWrite, expired never returned, processing time; no cleanup at all (neither in
    // the background nor in full snapshots), so whatever is in the state is in the snapshot.
    return StateTtlConfig.newBuilder(Duration.ofMillis(ttlMs))
        .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
        .disableCleanupInBackground()
        .build();
  }

  private final String run;
  private transient ValueState<Long> ttlValue;
  private transient MapState<String, Long> ttlMap;
  private transient ListState<Long> ttlList;
  private transient ValueState<Long> plainValue;

  public TtlFn(String run) {
    this.run = run;
  }

  @Override
  public void open(OpenContext ctx) {
    StateTtlConfig ttl = ttlConfig();
    ValueStateDescriptor<Long> v = new ValueStateDescriptor<>(TTL_STATES[0], Types.LONG);
    v.enableTimeToLive(ttl);
    MapStateDescriptor<String, Long> m = new MapStateDescriptor<>(TTL_STATES[1], Types.STRING, Types.LONG);
    m.enableTimeToLive(ttl);
    ListStateDescriptor<Long> l = new ListStateDescriptor<>(TTL_STATES[2], Types.LONG);
    l.enableTimeToLive(ttl);
    ttlValue = getRuntimeContext().getState(v);
    ttlMap = getRuntimeContext().getMapState(m);
    ttlList = getRuntimeContext().getListState(l);
    plainValue = getRuntimeContext().getState(new ValueStateDescriptor<>(PLAIN_STATE, Types.LONG));
  }

  @Override
  public void processElement(Rec r, Context ctx, Collector<String> out) throws Exception {
    String key = ctx.getCurrentKey();
    if (!key.equals(keyOf(r.seq))) throw new IllegalStateException("record " + r.seq + " under key " + key);
    if (plainValue.value() != null) throw new IllegalStateException("key " + key + " written twice");
    long before = System.currentTimeMillis();
    ttlValue.update(r.seq);
    for (int j = 0; j < mapEntries(r.seq); j++) ttlMap.put("m-" + j, r.seq * 100 + j);
    for (int j = 0; j < listEntries(r.seq); j++) ttlList.add(r.seq * 1000 + j);
    plainValue.update(r.seq);
    long after = System.currentTimeMillis();
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    mirror(run).put(key, new Written(r.seq, subtask, before, after));
  }

  /** The mirror of a run, sorted by key. */
  static TreeMap<String, Written> written(String run) {
    return new TreeMap<>(mirror(run));
  }
}
