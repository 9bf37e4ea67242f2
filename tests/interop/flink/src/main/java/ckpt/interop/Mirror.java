package ckpt.interop;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * The connector jobs' map, chained to the source: every record is "STREAM|POSITION|payload"
 * (STREAM: "topic-partition" or a file name; POSITION: the Kafka offset or the 0-based line),
 * and this function keeps, per stream, the next position (last seen + 1) and the first position
 * it saw in this run. In {@code snapshotState} (the task thread, at the barrier, after every
 * record the chained source emitted before it) it copies the next positions out, per
 * checkpoint id: the source positions the snapshot must hold, exact whatever the timing. It
 * registers no state of its own. {@code paceMicros} slows it down so the job is mid-stream at
 * the snapshots (pacing only: nothing waits on time for correctness).
 */
public final class Mirror extends RichMapFunction<String, String> implements CheckpointedFunction {
  /** run -> stream -> next position, live (for the driver's wait conditions). */
  static final Map<String, Map<String, Long>> NEXT = new ConcurrentHashMap<>();
  /** run -> stream -> first position seen. */
  static final Map<String, Map<String, Long>> FIRST = new ConcurrentHashMap<>();
  /** run -> stream -> records seen. */
  static final Map<String, Map<String, Long>> COUNT = new ConcurrentHashMap<>();
  /** run -> checkpoint id -> stream -> next position at the barrier (every subtask merged). */
  static final Map<String, Map<Long, Map<String, Long>>> AT = new ConcurrentHashMap<>();
  /** run -> checkpoint id -> subtask -> records since the previous snapshot of that subtask. */
  static final Map<String, Map<Long, Map<Integer, Long>>> SINCE = new ConcurrentHashMap<>();

  private final String run;
  private final long paceMicros;
  private transient Map<String, Long> next;
  private transient long since;

  public Mirror(String run, long paceMicros) {
    this.run = run;
    this.paceMicros = paceMicros;
  }

  static void reset(String run) {
    NEXT.put(run, new ConcurrentHashMap<>());
    FIRST.put(run, new ConcurrentHashMap<>());
    COUNT.put(run, new ConcurrentHashMap<>());
    AT.put(run, new ConcurrentHashMap<>());
    SINCE.put(run, new ConcurrentHashMap<>());
  }

  static Map<String, Long> at(String run, long checkpointId) {
    Map<String, Long> m = AT.get(run).get(checkpointId);
    return m == null ? null : new TreeMap<>(m);
  }

  static long total(String run) {
    long n = 0;
    for (long c : COUNT.get(run).values()) n += c;
    return n;
  }

  @Override
  public String map(String value) {
    if (next == null) next = new HashMap<>();
    int a = value.indexOf('|');
    int b = value.indexOf('|', a + 1);
    String stream = value.substring(0, a);
    long pos = Long.parseLong(value.substring(a + 1, b < 0 ? value.length() : b));
    next.put(stream, pos + 1);
    NEXT.get(run).put(stream, pos + 1);
    FIRST.get(run).putIfAbsent(stream, pos);
    COUNT.get(run).merge(stream, 1L, Long::sum);
    since++;
    if (paceMicros > 0) LockSupport.parkNanos(paceMicros * 1000);
    return value.toUpperCase();
  }

  @Override
  public void snapshotState(FunctionSnapshotContext ctx) {
    Map<String, Long> at = AT.get(run).computeIfAbsent(ctx.getCheckpointId(), k -> new ConcurrentHashMap<>());
    if (next != null) at.putAll(next);
    SINCE.get(run).computeIfAbsent(ctx.getCheckpointId(), k -> new ConcurrentHashMap<>())
        .put(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), since);
    since = 0;
  }

  @Override
  public void initializeState(FunctionInitializationContext ctx) {}
}
