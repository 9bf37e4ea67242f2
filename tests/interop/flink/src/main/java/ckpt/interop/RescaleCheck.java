package ckpt.interop;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

/**
 * Issue 11 §3, rescale-max-parallelism verified by real Flink: job "r-" with max parallelism 128
 * (keys Long, String or Tuple2&lt;Long,String&gt;: seq % 16; value states count and sum, a list of
 * the seqs seen, a map parity -&gt; count, an event-time timer per key that never fires) takes a
 * canonical savepoint and is cancelled. The same job with max parallelism 256 is refused by
 * Flink on that savepoint (the max parallelism it was written with differs);
 * `ckpt-tool rescale-max-parallelism --max-parallelism 256` rewrites it; the 256 job restores
 * the result (at parallelism 2 and, by Flink's own rescaling, 3) and runs on: every key's count,
 * sum, list and map carry over (checked per record against the model) and the source resumes
 * (no record twice, none skipped).
 *
 * <p>Usage: RescaleCheck --out DIR --ckpt-tool PATH [--backend hashmap|rocksdb] [--key long|string|tuple|row]
 * Exit 0 when every check holds; 1 with the reason otherwise.
 */
public final class RescaleCheck {
  static final SeqSource SOURCE = RemapCheck.SOURCE;
  static final long RUN1 = RemapCheck.RUN1;
  static final long RUN2 = RemapCheck.RUN2;
  static final int KEYS = RemapCheck.KEYS;

  /** "key,seq,count,sum" per record, in this JVM (the key as seq % 16). */
  static final ConcurrentLinkedQueue<String> LOG = new ConcurrentLinkedQueue<>();
  /** Mismatches the function found between its restored list/map state and its count. */
  static final ConcurrentLinkedQueue<String> ERRORS = new ConcurrentLinkedQueue<>();

  public static final class StateFn<K> extends KeyedProcessFunction<K, Rec, Long> {
    private transient ValueState<Long> count;
    private transient ValueState<Long> sum;
    private transient ListState<Long> seen;
    private transient MapState<String, Long> byParity;

    @Override
    public void open(OpenContext ctx) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
      sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Long.class));
      seen = getRuntimeContext().getListState(new ListStateDescriptor<>("seen", Long.class));
      byParity = getRuntimeContext().getMapState(new MapStateDescriptor<>("by-parity", String.class, Long.class));
    }

    @Override
    public void processElement(Rec r, Context ctx, Collector<Long> out) throws Exception {
      long c = count.value() == null ? 1 : count.value() + 1;
      long s = (sum.value() == null ? 0 : sum.value()) + r.seq;
      // The list and map hold what count and sum say: restored state is checked on every record.
      long listed = 0;
      long listSum = 0;
      for (Long v : seen.get()) {
        listed++;
        listSum += v;
      }
      long mapped = 0;
      for (Long v : byParity.values()) mapped += v;
      if (listed != c - 1 || listSum != s - r.seq || mapped != c - 1) {
        ERRORS.add("key " + ctx.getCurrentKey() + " at seq " + r.seq + ": count " + (c - 1) + " but list " + listed
            + " (sum " + listSum + " vs " + (s - r.seq) + "), map " + mapped);
      }
      count.update(c);
      sum.update(s);
      seen.add(r.seq);
      String parity = r.seq % 2 == 0 ? "even" : "odd";
      byParity.put(parity, (byParity.get(parity) == null ? 0 : byParity.get(parity)) + 1);
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE - 1000 + (r.seq % KEYS));
      LOG.add((r.seq % KEYS) + "," + r.seq + "," + c + "," + s);
      out.collect(r.seq);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static JobGraph job(Configuration c, int parallelism, int maxParallelism, String key, String savepoint) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(parallelism);
    env.setMaxParallelism(maxParallelism);
    KeySelector<Rec, ?> selector;
    TypeInformation<?> type;
    switch (key) {
      case "string":
        selector = (KeySelector<Rec, String>) r -> "k-" + (r.seq % KEYS);
        type = Types.STRING;
        break;
      case "tuple":
        selector = (KeySelector<Rec, Tuple2<Long, String>>) r -> Tuple2.of(r.seq % KEYS, "t" + (r.seq % KEYS));
        type = Types.TUPLE(Types.LONG, Types.STRING);
        break;
      case "row":  // Row.hashCode (RowUtils.deepHashCodeRow), a null field in every third key
        selector = (KeySelector<Rec, Row>) r -> {
          long k = r.seq % KEYS;
          return Row.of(k, k % 3 == 0 ? null : "r" + k, (int) (k * 7));
        };
        type = Types.ROW(Types.LONG, Types.STRING, Types.INT);
        break;
      default:
        selector = (KeySelector<Rec, Long>) r -> r.seq % KEYS;
        type = Types.LONG;
    }
    // The source stays at parallelism 2 (the continuation model: reader r owns splits r, r + 2);
    // the keyed operator and the sink take `parallelism`.
    env.fromSource(SOURCE, Jobs.watermarks(), "r-source").uid("r-source").setParallelism(2)
        .keyBy((KeySelector) selector, (TypeInformation) type)
        .process(new StateFn()).uid("r-state").name("r-state").setParallelism(parallelism)
        .sinkTo(new DiscardingSink<>()).uid("r-sink").name("r-sink").setParallelism(parallelism);
    JobGraph g = env.getStreamGraph().getJobGraph();
    if (savepoint != null) g.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
    return g;
  }

  static void fail(String why) {
    Check.fail("rescale-check", why);
  }

  public static void main(String[] args) throws Exception {
    Check check = Check.parse("rescale-check", "RescaleCheck --out DIR --ckpt-tool PATH [--backend B] [--key K]",
        args, Map.of("backend", "hashmap", "key", "long"));
    String tool = check.tool;
    String backend = check.option("backend");
    String key = check.option("key");
    File root = check.freshRoot("-" + backend + "-" + key);
    String tag = "rescale-check [Flink " + check.version + ", " + backend + ", " + key + " keys]";
    Configuration c = Check.config(root, backend, 8);

    try (MiniCluster mc = Harness.startCluster(c)) {
      Control.reset();
      LOG.clear();
      JobGraph v1 = job(c, 2, 128, key, null);
      mc.submitJob(v1).get();
      Control.setBudget(SOURCE.name, RUN1);
      Control.awaitAtBudget(SOURCE.name, 2, Harness.TIMEOUT_MS);
      String target = new File(root, "savepoints").toURI().toString();
      String sp = Harness.retrying(() -> mc.triggerSavepoint(v1.getJobID(), target, false, SavepointFormatType.CANONICAL));
      File original = Harness.uriToFile(sp);
      mc.cancelJob(v1.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Harness.awaitTerminal(mc, v1.getJobID());
      List<String> run1 = new ArrayList<>(LOG);
      if (run1.size() != 2 * RUN1) fail("run 1 processed " + run1.size() + " records, want " + 2 * RUN1);
      if (!ERRORS.isEmpty()) fail("run 1: " + ERRORS.peek());
      System.out.println(tag + ": canonical savepoint at max parallelism 128: " + original);

      // The job at max parallelism 256 on the original: Flink refuses it.
      String refusal = RemapCheck.refusal(mc, job(c, 2, 256, key, original.getAbsolutePath()));
      if (refusal == null) fail("Flink restored the max-parallelism-256 job from the 128 savepoint " + original);
      if (!refusal.contains("maximum parallelism") && !refusal.contains("max parallelism")) {
        fail("Flink refused the 128 savepoint, but not for its max parallelism: " + refusal);
      }
      System.out.println(tag + ": Flink refuses the original: " + RemapCheck.lineWith(refusal, "parallelism"));

      File rescaled = new File(root, "rescaled-256");
      File dryLog = new File(root, "rescale-dry-run.txt");
      if (Check.run(List.of(tool, "rescale-max-parallelism", original.getAbsolutePath(), "--max-parallelism", "256",
              "--to", rescaled.getAbsolutePath(), "--dry-run"), dryLog) != 0 || rescaled.exists()) {
        fail("ckpt-tool rescale-max-parallelism --dry-run failed or wrote " + rescaled + ": "
            + Files.readString(dryLog.toPath()));
      }
      File log = new File(root, "rescale.txt");
      if (Check.run(List.of(tool, "rescale-max-parallelism", original.getAbsolutePath(), "--max-parallelism", "256",
              "--to", rescaled.getAbsolutePath()), log) != 0) {
        fail("ckpt-tool rescale-max-parallelism failed: " + Files.readString(log.toPath()));
      }
      System.out.println(tag + ": ckpt-tool rescale-max-parallelism wrote " + rescaled + "\n"
          + Files.readString(log.toPath()).trim());

      for (int parallelism : new int[] {2, 3}) {
        int n = restoreAndVerify(mc, c, parallelism, key, rescaled, run1,
            new File(root, "processed-p" + parallelism + ".txt"));
        System.out.println(tag + ": PASS rescale-max-parallelism: Flink restored the rescaled savepoint into the job "
            + "with max parallelism 256 at parallelism " + parallelism + "; " + n + " records after the restore "
            + "continue every key's count, sum, list and map state; no record repeated or skipped");
      }
    }
    System.exit(0);
  }

  static int restoreAndVerify(MiniCluster mc, Configuration c, int parallelism, String key, File snapshot,
      List<String> run1, File record) throws Exception {
    Control.reset();
    LOG.clear();
    ERRORS.clear();
    JobGraph g = job(c, parallelism, 256, key, snapshot.getAbsolutePath());
    mc.submitJob(g).get();
    Control.setBudget(SOURCE.name, RUN2);
    Control.awaitAtBudget(SOURCE.name, 2, Harness.TIMEOUT_MS);
    long deadline = System.currentTimeMillis() + Harness.TIMEOUT_MS;
    while (LOG.size() < 2 * RUN2 && System.currentTimeMillis() < deadline) Thread.sleep(5);
    JobStatus s = mc.getJobStatus(g.getJobID()).get();
    if (s != JobStatus.RUNNING) fail("the 256 job restored from " + snapshot + " is " + s);
    mc.cancelJob(g.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
    Harness.awaitTerminal(mc, g.getJobID());
    List<String> run2 = new ArrayList<>(LOG);
    Files.write(record.toPath(),
        (String.join("\n", run1) + "\n--- restore ---\n" + String.join("\n", run2) + "\n").getBytes(StandardCharsets.UTF_8));
    if (!ERRORS.isEmpty()) fail("after the restore: " + ERRORS.peek());
    RemapCheck.verify(run1, run2);
    return run2.size();
  }
}
