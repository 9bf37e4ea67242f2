package ckpt.interop;

import java.io.File;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;
import org.apache.flink.util.Collector;

/**
 * The harness of the older Flink lines (1.15-1.19), whose APIs differ from 1.20's: one small keyed
 * job written with the APIs all five lines share, run once per snapshot kind. Each case
 * <ol>
 *   <li>runs {@code stream-source} (a legacy parallel source, its position as operator list
 *       state) → keyBy {@code k-NN} (seq % 16) → {@code counter} (value states {@code count} and
 *       {@code sum}; one event-time timer per key that never fires) → {@code sink} for N records;
 *   <li>takes the case's snapshot: a checkpoint whose barrier followed every record (aligned), a
 *       checkpoint while the slowed counter has a backlog (unaligned, in-flight data), or a
 *       canonical / native savepoint; then cancels the job;
 *   <li>restores the same job from the snapshot and runs N more records: Flink's verdict is
 *       whether every key's count and sum end at the totals over both runs (exactly once).
 * </ol>
 * It writes {@code OUT/<version>/manifest.json} with one line per snapshot: its path, the case,
 * whether Flink restored it, and (aligned snapshots) every key's expected count and sum, which
 * check_old_line.py compares with ckpt-tool's validate --deep and dump.
 *
 * <p>Usage: {@code OldLine --out DIR [--only case,case]}. Cases: see {@link #CASES}. Without
 * {@code --uids} in a case, Flink derives the operator IDs from the graph (generated hashes).
 */
public final class OldLine {
  static final int KEYS = 16;

  /** One snapshot kind. */
  record Case(String name, String backend, boolean incremental, boolean unaligned, int maxParallelism,
      int parallelism, String savepoint, boolean uids) {}

  static final List<Case> CASES = List.of(
      new Case("rocksdb-full-maxp4", "rocksdb", false, false, 4, 4, null, true),
      new Case("rocksdb-full", "rocksdb", false, false, 128, 2, null, true),
      new Case("rocksdb-full-maxp4-nouid", "rocksdb", false, false, 4, 2, null, false),
      new Case("hashmap", "hashmap", false, false, 128, 2, null, true),
      new Case("hashmap-maxp4", "hashmap", false, false, 4, 4, null, true),
      new Case("rocksdb-incremental", "rocksdb", true, false, 128, 2, null, true),
      new Case("savepoint-canonical-rocksdb", "rocksdb", false, false, 4, 4, "canonical", true),
      new Case("savepoint-native-rocksdb", "rocksdb", false, false, 4, 4, "native", true),
      new Case("savepoint-canonical-hashmap", "hashmap", false, false, 128, 2, "canonical", true),
      new Case("unaligned", "hashmap", false, true, 128, 2, null, true),
      new Case("unaligned-rocksdb-maxp4", "rocksdb", false, true, 4, 4, null, true));

  // Shared with the job's functions (one JVM, a MiniCluster per run).
  static volatile long budget;          // records each source stream emits in this run
  static volatile boolean slow;         // the counter sleeps per record (unaligned cases)
  static final AtomicLong processed = new AtomicLong();
  static final Map<Long, AtomicLong> processedAtSnapshot = new ConcurrentHashMap<>();
  static final Map<Long, AtomicLong> snapshottedSubtasks = new ConcurrentHashMap<>();
  static final Set<Long> completed = ConcurrentHashMap.newKeySet();
  static final Map<String, long[]> lastSeen = new ConcurrentHashMap<>();  // key -> {count, sum}

  public static void main(String[] args) throws Exception {
    File out = null;
    List<String> only = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--out")) out = new File(args[i + 1]).getAbsoluteFile();
      else if (args[i].equals("--only")) only = Arrays.asList(args[i + 1].split(","));
      else fail("unknown argument " + args[i] + "; usage: OldLine --out DIR [--only case,case]");
    }
    if (out == null) fail("usage: OldLine --out DIR [--only case,case]");
    String version = EnvironmentInformation.getVersion();
    File root = new File(out, version);
    if (root.exists()) fail(root + " exists");
    root.mkdirs();
    List<String> lines = new ArrayList<>();
    for (Case c : CASES) {
      if (only != null && !only.contains(c.name())) continue;
      long t0 = System.nanoTime();
      lines.add(runCase(root, c));
      System.err.printf("old-line %s %s: %.1f s%n", version, c.name(), (System.nanoTime() - t0) / 1e9);
    }
    if (only != null) {
      for (String o : only) {
        if (CASES.stream().noneMatch(c -> c.name().equals(o))) fail("unknown case " + o);
      }
    }
    try (PrintWriter w = new PrintWriter(new File(root, "manifest.json"), StandardCharsets.UTF_8)) {
      w.println("{\"schema\": \"ckpt-interop-flink-old-manifest/1\", \"flink_version\": \"" + version
          + "\", \"snapshots\": [");
      w.println(String.join(",\n", lines));
      w.println("]}");
    }
    System.exit(0);  // MiniCluster threads may linger
  }

  static String runCase(File root, Case c) throws Exception {
    File dir = new File(root, c.name());
    long records = c.unaligned() ? 8000 : 400;  // over all source streams, per run
    long perStream = records / c.parallelism();
    reset(perStream, c.unaligned());
    JobClient job = start(dir, c, null);
    String snapshot;
    long cp = -1;
    if (c.savepoint() != null) {
      waitFor(() -> processed.get() == records, "all records processed");
      SavepointFormatType f = c.savepoint().equals("native") ? SavepointFormatType.NATIVE : SavepointFormatType.CANONICAL;
      snapshot = job.triggerSavepoint(new File(dir, "savepoints").toURI().toString(), f).get(120, TimeUnit.SECONDS);
      snapshot = snapshot.replaceFirst("^file:", "");
    } else {
      // The first completed checkpoint whose barrier came after every record (aligned), or
      // while the slowed counter still had records queued (unaligned).
      final long[] found = {-1};
      waitFor(() -> {
        for (long id : completed) {
          AtomicLong subtasks = snapshottedSubtasks.get(id);
          AtomicLong at = processedAtSnapshot.get(id);
          if (subtasks == null || subtasks.get() != c.parallelism()) continue;
          boolean fits = c.unaligned() ? at.get() < records : at.get() == records;
          if (fits && (found[0] < 0 || id < found[0])) found[0] = id;
        }
        return found[0] >= 0;
      }, "a completed checkpoint");
      cp = found[0];
      snapshot = new File(new File(new File(dir, "checkpoints"), job.getJobID().toString()), "chk-" + cp).getPath();
    }
    job.cancel().get(60, TimeUnit.SECONDS);
    waitTerminal(job);
    // Flink's verdict: the same job restored from the snapshot, N more records.
    reset(2 * perStream, false);
    String restored;
    try {
      JobClient again = start(dir, c, snapshot);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (running(again) && !verdict(records).equals("ok") && System.nanoTime() < deadline) Thread.sleep(20);
      Thread.sleep(300);  // a duplicate or a late record would arrive by now
      restored = running(again) ? verdict(records) : "job ended: " + again.getJobStatus().get();
      if (running(again)) again.cancel().get(60, TimeUnit.SECONDS);
      waitTerminal(again);
    } catch (Exception e) {
      restored = "restore failed: " + e;
    }
    Map<String, Object> expect = new TreeMap<>();
    if (!c.unaligned()) {
      for (int k = 0; k < KEYS; k++) {
        long count = 0;
        long sum = 0;
        for (long s = k; s < records; s += KEYS) {
          count++;
          sum += s;
        }
        expect.put(key(k), new long[] {count, sum});
      }
    }
    StringBuilder e = new StringBuilder();
    for (Map.Entry<String, Object> x : expect.entrySet()) {
      long[] v = (long[]) x.getValue();
      if (e.length() > 0) e.append(", ");
      e.append("\"").append(x.getKey()).append("\": [").append(v[0]).append(", ").append(v[1]).append("]");
    }
    System.err.println("old-line " + c.name() + ": " + snapshot + ": restore " + restored);
    return "{\"case\": \"" + c.name() + "\", \"snapshot\": " + quote(snapshot) + ", \"backend\": \"" + c.backend()
        + "\", \"incremental\": " + c.incremental() + ", \"unaligned\": " + c.unaligned() + ", \"savepoint\": "
        + (c.savepoint() == null ? "null" : "\"" + c.savepoint() + "\"") + ", \"checkpoint_id\": " + cp
        + ", \"max_parallelism\": " + c.maxParallelism() + ", \"parallelism\": " + c.parallelism()
        + ", \"uids\": " + c.uids() + ", \"keys\": " + KEYS + ", \"flink_restored\": " + quote(restored)
        + ", \"expect\": {" + e + "}}";
  }

  /** "ok" when every key's count and sum are the totals over both runs, else what differs. */
  static String verdict(long firstRun) {
    long records = 2 * firstRun;
    List<String> wrong = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      long count = 0;
      long sum = 0;
      for (long s = k; s < records; s += KEYS) {
        count++;
        sum += s;
      }
      long[] got = lastSeen.get(key(k));
      if (got == null || got[0] != count || got[1] != sum) {
        wrong.add(key(k) + " " + (got == null ? "unseen" : got[0] + "/" + got[1]) + " != " + count + "/" + sum);
      }
    }
    return wrong.isEmpty() ? "ok" : String.join("; ", wrong);
  }

  static void reset(long perStream, boolean slowCounter) {
    budget = perStream;
    slow = slowCounter;
    processed.set(0);
    processedAtSnapshot.clear();
    snapshottedSubtasks.clear();
    completed.clear();
    lastSeen.clear();
  }

  static JobClient start(File dir, Case c, String restoreFrom) throws Exception {
    Configuration conf = new Configuration();
    set(conf, "state.backend", c.backend());  // 1.15-1.19 key (state.backend.type from 1.17 falls back to it)
    set(conf, "state.checkpoints.dir", new File(dir, "checkpoints").toURI().toString());
    set(conf, "state.backend.incremental", String.valueOf(c.incremental()));
    set(conf, "state.checkpoints.num-retained", "50");
    set(conf, "execution.checkpointing.interval", c.unaligned() ? "300 ms" : "150 ms");
    set(conf, "execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    set(conf, "execution.checkpointing.unaligned", String.valueOf(c.unaligned()));
    set(conf, "execution.checkpointing.aligned-checkpoint-timeout", "0 ms");
    set(conf, "taskmanager.numberOfTaskSlots", String.valueOf(c.parallelism()));
    set(conf, "taskmanager.memory.managed.size", "128m");
    set(conf, "restart-strategy", "none");
    set(conf, "rest.bind-port", "0");
    if (restoreFrom != null) set(conf, "execution.savepoint.path", restoreFrom);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(c.parallelism(), conf);
    env.setMaxParallelism(c.maxParallelism());
    DataStream<Tuple2<Long, String>> src = env.addSource(new StreamSource()).name("stream-source");
    if (c.uids()) src = ((org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator<Tuple2<Long, String>>) src).uid("stream-source");
    var counted = src.keyBy(new ByKey()).process(new Counter()).name("counter");
    if (c.uids()) counted = counted.uid("counter");
    var sink = counted.addSink(new DiscardingSink<>()).name("sink");
    if (c.uids()) sink.uid("sink");
    return env.executeAsync("old-line-" + c.name());
  }

  static void set(Configuration conf, String key, String value) {
    conf.setString(ConfigOptions.key(key).stringType().noDefaultValue(), value);
  }

  static boolean running(JobClient job) {
    try {
      return !job.getJobStatus().get(30, TimeUnit.SECONDS).isTerminalState();
    } catch (Exception e) {
      return false;
    }
  }

  static void waitTerminal(JobClient job) throws Exception {
    waitFor(() -> !running(job), "the job to end");
  }

  interface Cond {
    boolean ok() throws Exception;
  }

  static void waitFor(Cond c, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (!c.ok()) {
      if (System.nanoTime() > deadline) fail("timed out waiting for " + what);
      Thread.sleep(20);
    }
  }

  static String key(long k) {
    return String.format("k-%02d", k);
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static void fail(String why) {
    System.out.println("old-line: FAIL: " + why);
    System.exit(1);
  }

  /**
   * Stream s of P emits seqs s, s+P, s+2P, ... up to the budget; its operator list state holds
   * s * 2^32 + records emitted, so a restore continues every stream where it stood whichever
   * subtask it lands on. Records carry padding in the unaligned cases, so buffers fill.
   */
  static final class StreamSource extends RichParallelSourceFunction<Tuple2<Long, String>>
      implements CheckpointedFunction {
    private volatile boolean running = true;
    private transient ListState<Long> state;
    private final List<long[]> streams = new ArrayList<>();  // {stream id, emitted}

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
      restored = ctx.isRestored();
      state = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("positions", Types.LONG));
      for (Long v : state.get()) streams.add(new long[] {v >>> 32, v & 0xffffffffL});
    }

    @Override
    public void run(SourceContext<Tuple2<Long, String>> ctx) throws Exception {
      int p = getRuntimeContext().getNumberOfParallelSubtasks();
      if (!restored) streams.add(new long[] {getRuntimeContext().getIndexOfThisSubtask(), 0});
      String pad = slow ? "x".repeat(200) : "";
      while (running) {
        boolean emitted = false;
        synchronized (ctx.getCheckpointLock()) {
          for (long[] s : streams) {
            if (s[1] < budget) {
              ctx.collect(Tuple2.of(s[0] + s[1] * p, pad));
              s[1]++;
              emitted = true;
            }
          }
        }
        if (!emitted) Thread.sleep(5);
      }
    }

    private boolean restored;

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
      state.clear();
      for (long[] s : streams) state.add(s[0] << 32 | s[1]);
    }

    @Override
    public void cancel() {
      running = false;
    }
  }

  static final class ByKey implements KeySelector<Tuple2<Long, String>, String> {
    @Override
    public String getKey(Tuple2<Long, String> r) {
      return key(r.f0 % KEYS);
    }
  }

  /** count and sum per key; one timer per key at Long.MAX_VALUE - 1 (never fires: no watermarks). */
  static final class Counter extends KeyedProcessFunction<String, Tuple2<Long, String>, Long>
      implements CheckpointedFunction, CheckpointListener {
    private transient ValueState<Long> count;
    private transient ValueState<Long> sum;
    private transient long seenHere;

    @Override
    public void open(Configuration parameters) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
      sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
    }

    @Override
    public void processElement(Tuple2<Long, String> r, Context ctx, Collector<Long> out) throws Exception {
      if (slow) Thread.sleep(1);
      long c = (count.value() == null ? 0 : count.value()) + 1;
      long s = (sum.value() == null ? 0 : sum.value()) + r.f0;
      if (c == 1) ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE - 1);
      count.update(c);
      sum.update(s);
      lastSeen.put(ctx.getCurrentKey(), new long[] {c, s});
      seenHere++;
      processed.incrementAndGet();
      out.collect(c);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) {
      processedAtSnapshot.computeIfAbsent(ctx.getCheckpointId(), k -> new AtomicLong()).addAndGet(seenHere);
      snapshottedSubtasks.computeIfAbsent(ctx.getCheckpointId(), k -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) {}

    @Override
    public void notifyCheckpointComplete(long id) {
      completed.add(id);
    }
  }
}
