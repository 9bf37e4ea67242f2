package ckpt.interop;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
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
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * Issue 11 §3, remap verified by real Flink: a savepoint of job v1 (uids v1-source, v1-count,
 * v1-sink); job v2 is the same job with uids v2-*, so Flink refuses the original savepoint;
 * `ckpt-tool remap --uid-prefix v1-=v2-` rewrites it; job v2 restores the result, every key's
 * count carries over, and the FLIP-27 source resumes where it stopped (its enumerator's
 * coordinator state kept): the records processed across both runs have no duplicate and no gap.
 *
 * <p>Usage: RemapCheck --out DIR --ckpt-tool PATH [--backend hashmap|rocksdb] [--format canonical|native]
 * Exit 0 when every check holds; 1 with the reason otherwise.
 */
public final class RemapCheck {
  static final SeqSource SOURCE = new SeqSource("remap-source", 4, 0, 200);
  static final long RUN1 = 60;   // records per reader before the savepoint
  static final long RUN2 = 70;   // records per reader after the restore
  static final int KEYS = 16;

  /** What the counting function processed, in this JVM: "key,seq,count". */
  static final ConcurrentLinkedQueue<String> LOG = new ConcurrentLinkedQueue<>();

  /** Keyed by seq % 16: ValueState "count" and "sum"; logs each record with the new count. */
  public static final class CountFn extends KeyedProcessFunction<Long, Rec, Long> {
    private transient ValueState<Long> count;
    private transient ValueState<Long> sum;

    @Override
    public void open(OpenContext ctx) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
      sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Long.class));
    }

    @Override
    public void processElement(Rec r, Context ctx, Collector<Long> out) throws Exception {
      long c = count.value() == null ? 1 : count.value() + 1;
      count.update(c);
      sum.update((sum.value() == null ? 0 : sum.value()) + r.seq);
      LOG.add(ctx.getCurrentKey() + "," + r.seq + "," + c + "," + sum.value());
      out.collect(r.seq);
    }
  }

  static JobGraph job(Configuration c, String prefix, String savepoint) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(2);
    env.setMaxParallelism(128);
    env.fromSource(SOURCE, Jobs.watermarks(), prefix + "source").uid(prefix + "source")
        .keyBy(r -> r.seq % KEYS, org.apache.flink.api.common.typeinfo.Types.LONG)
        .process(new CountFn()).uid(prefix + "count").name(prefix + "count")
        .sinkTo(new DiscardingSink<>()).uid(prefix + "sink").name(prefix + "sink");
    JobGraph g = env.getStreamGraph().getJobGraph();
    if (savepoint != null) g.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
    return g;
  }

  static void fail(String why) {
    Check.fail("remap-check", why);
  }

  public static void main(String[] args) throws Exception {
    Check check = Check.parse("remap-check", "RemapCheck --out DIR --ckpt-tool PATH [--backend B] [--format F]",
        args, Map.of("backend", "hashmap", "format", "canonical"));
    String tool = check.tool;
    String backend = check.option("backend");
    String format = check.option("format");
    File root = check.freshRoot("-" + backend + "-" + format);
    String tag = "remap-check [Flink " + check.version + ", " + backend + ", " + format + "]";

    Configuration c = Check.config(root, backend, 8);
    c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, backend.equals("rocksdb"));
    Check.retainCheckpoints(c);
    SavepointFormatType ft = format.equals("native") ? SavepointFormatType.NATIVE : SavepointFormatType.CANONICAL;

    try (MiniCluster mc = Harness.startCluster(c)) {
      // Run 1: job v1 to RUN1 records per reader, savepoint, cancel.
      Control.reset();
      LOG.clear();
      JobGraph v1 = job(c, "v1-", null);
      mc.submitJob(v1).get();
      Control.setBudget(SOURCE.name, RUN1);
      Control.awaitAtBudget(SOURCE.name, 2, Harness.TIMEOUT_MS);
      String target = new File(root, "savepoints").toURI().toString();
      String sp = Harness.retrying(() -> mc.triggerSavepoint(v1.getJobID(), target, false, ft));
      // RocksDB: also a retained (incremental) checkpoint at the same point (the readers still
      // stand at their budgets), for relocate; taken after the savepoint so nothing subsumes it.
      File checkpoint = null;
      if (backend.equals("rocksdb")) {
        long cp = Harness.triggerCheckpoint(mc, v1.getJobID());
        checkpoint = new File(new File(new File(root, "checkpoints"), v1.getJobID().toString()), "chk-" + cp);
        if (!new File(checkpoint, "_metadata").isFile()) fail("retained checkpoint " + checkpoint + " has no _metadata");
      }
      File original = Harness.uriToFile(sp);
      mc.cancelJob(v1.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Harness.awaitTerminal(mc, v1.getJobID());
      List<String> run1 = new ArrayList<>(LOG);
      if (run1.size() != 2 * RUN1) fail("run 1 processed " + run1.size() + " records, want " + 2 * RUN1);
      System.out.println(tag + ": savepoint of v1 at " + original);

      // Job v2 on the original savepoint: Flink must refuse it (no operator for the v1 state).
      String refusal = refusal(mc, job(c, "v2-", original.getAbsolutePath()));
      if (refusal == null) fail("Flink restored job v2 from the unmapped savepoint " + original);
      if (!refusal.contains("Cannot map checkpoint/savepoint state") && !refusal.contains("There is no operator for the state")) {
        fail("Flink refused the unmapped savepoint, but not for unmapped state: " + refusal);
      }
      System.out.println(tag + ": Flink refuses the original: " + lineWith(refusal, "state"));

      // ckpt-tool remap: dry run (writes nothing), then the real thing.
      File remapped = new File(root, "remapped");
      // Flink 2.x (metadata v5+) stores uids: a prefix rewrite. 1.20 (v4) stores only the IDs:
      // each old uid is found by its hash.
      List<String> how = check.version.startsWith("1.")
          ? List.of("--map", "v1-source=v2-source", "--map", "v1-count=v2-count", "--map", "v1-sink=v2-sink")
          : List.of("--uid-prefix", "v1-=v2-");
      List<String> dry = new ArrayList<>(List.of(tool, "remap", original.getAbsolutePath(), "--to", remapped.getAbsolutePath()));
      dry.addAll(how);
      dry.add("--dry-run");
      File dryLog = new File(root, "remap-dry-run.txt");
      if (Check.run(dry, dryLog) != 0 || remapped.exists()) fail("ckpt-tool remap --dry-run failed or wrote " + remapped + "; see " + dryLog);
      String plan = Files.readString(dryLog.toPath());
      for (String uid : List.of("v2-source", "v2-count")) {
        if (!plan.contains(uid)) fail("the dry-run plan does not mention " + uid + ":\n" + plan);
      }
      if (plan.contains("unmatched")) fail("the dry-run plan has unmatched requests:\n" + plan);
      File remapLog = new File(root, "remap.txt");
      List<String> real = new ArrayList<>(List.of(tool, "remap", original.getAbsolutePath(), "--to", remapped.getAbsolutePath()));
      real.addAll(how);
      if (Check.run(real, remapLog) != 0) fail("ckpt-tool remap failed: " + Files.readString(remapLog.toPath()));
      System.out.println(tag + ": ckpt-tool remap wrote " + remapped);

      // Job v2 on the remapped savepoint: restores; counts carry over; the source resumes.
      int after = restoreAndVerify(mc, c, "v2-", remapped, run1, new File(root, "processed-remapped.txt"));
      System.out.println(tag + ": PASS remap: Flink restored the remapped savepoint; " + after
          + " records after the restore continue " + run1.size() + " before it: every key's count and sum carried over, "
          + "no record repeated or skipped (coordinator state kept)");

      if (checkpoint != null) {
        // relocate: the retained checkpoint (absolute paths, shared/ files) made self-contained,
        // then moved; its original directory moved away too, so nothing absolute can still work.
        File relocated = new File(root, "relocated");
        File relocateLog = new File(root, "relocate.txt");
        if (Check.run(List.of(tool, "relocate", checkpoint.getAbsolutePath(), "--to", relocated.getAbsolutePath()), relocateLog) != 0) {
          fail("ckpt-tool relocate failed: " + Files.readString(relocateLog.toPath()));
        }
        File movedDir = new File(root, "moved-elsewhere");
        movedDir.mkdirs();
        File moved = new File(movedDir, "relocated-checkpoint");
        Files.move(relocated.toPath(), moved.toPath());
        File checkpoints = new File(root, "checkpoints");
        File gone = new File(root, "checkpoints-moved-away");
        Files.move(checkpoints.toPath(), gone.toPath());
        File dangling = new File(gone, checkpoints.toPath().relativize(checkpoint.toPath()).toString());
        File danglingLog = new File(root, "relocate-dangling.txt");
        int rc = Check.run(List.of(tool, "relocate", dangling.getAbsolutePath(), "--to", new File(root, "never").getAbsolutePath()), danglingLog);
        String why = Files.readString(danglingLog.toPath());
        if (rc == 0 || !why.contains("does not exist") || new File(root, "never").exists()) {
          fail("relocate of a moved checkpoint with absolute handles did not report the dangling reference (exit " + rc + "): " + why);
        }
        System.out.println(tag + ": relocate of the moved-away checkpoint refused: " + firstLine(why.trim()));
        int n = restoreAndVerify(mc, c, "v1-", moved, run1, new File(root, "processed-relocated.txt"));
        System.out.println(tag + ": PASS relocate: Flink restored the relocated, moved checkpoint " + moved
            + "; " + n + " records after it continue the state and the source positions");
      }
    }
    System.exit(0);
  }

  /** Runs `prefix` job restored from `snapshot` for RUN2 records per reader; checks continuation. */
  static int restoreAndVerify(MiniCluster mc, Configuration c, String prefix, File snapshot, List<String> run1,
      File record) throws Exception {
    Control.reset();
    LOG.clear();
    JobGraph g = job(c, prefix, snapshot.getAbsolutePath());
    mc.submitJob(g).get();
    Control.setBudget(SOURCE.name, RUN2);
    Control.awaitAtBudget(SOURCE.name, 2, Harness.TIMEOUT_MS);
    // Every record emitted has reached the counting function once it logged 2 x RUN2 records.
    long deadline = System.currentTimeMillis() + Harness.TIMEOUT_MS;
    while (LOG.size() < 2 * RUN2 && System.currentTimeMillis() < deadline) Thread.sleep(5);
    JobStatus s = mc.getJobStatus(g.getJobID()).get();
    if (s != JobStatus.RUNNING) fail("job " + prefix + "* restored from " + snapshot + " is " + s);
    mc.cancelJob(g.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
    Harness.awaitTerminal(mc, g.getJobID());
    List<String> run2 = new ArrayList<>(LOG);
    Files.write(record.toPath(),
        (String.join("\n", run1) + "\n--- restore ---\n" + String.join("\n", run2) + "\n").getBytes(StandardCharsets.UTF_8));
    verify(run1, run2);
    return run2.size();
  }

  static String lineWith(String s, String word) {
    for (String line : s.split("\n")) {
      if (line.contains(word)) return line;
    }
    return firstLine(s);
  }

  static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** Submits `job`; returns why it failed to start or run, or null if it ran. */
  static String refusal(MiniCluster mc, JobGraph job) throws Exception {
    try {
      mc.submitJob(job).get();
    } catch (Exception e) {
      return causes(e);
    }
    JobResult r = mc.requestJobResult(job.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
    if (r.getSerializedThrowable().isPresent()) {
      return causes(r.getSerializedThrowable().get().deserializeError(RemapCheck.class.getClassLoader()));
    }
    return null;
  }

  static String causes(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable x = t; x != null; x = x.getCause()) b.append(x.getClass().getName()).append(": ").append(x.getMessage()).append('\n');
    return b.toString();
  }

  /** No seq twice, none missing (the model: reader r owns splits r and r+2, emits in order). */
  static void verify(List<String> run1, List<String> run2) {
    Map<Long, Integer> seen = new HashMap<>();
    Map<Long, long[]> byKey = new TreeMap<>();  // key -> {count, sum} from the model
    List<String> all = new ArrayList<>(run1);
    all.addAll(run2);
    for (String line : all) {
      long seq = Long.parseLong(line.split(",")[1]);
      seen.merge(seq, 1, Integer::sum);
    }
    List<Long> expected = new ArrayList<>();
    for (int reader = 0; reader < 2; reader++) {
      for (long i = 0; i < RUN1 + RUN2; i++) expected.add(reader * SOURCE.len + i);  // within split `reader`
    }
    for (long seq : expected) {
      Integer n = seen.get(seq);
      if (n == null) fail("seq " + seq + " was never processed (a gap: the source skipped it)");
      if (n > 1) fail("seq " + seq + " was processed " + n + " times (the source started again)");
      long[] m = byKey.computeIfAbsent(seq % KEYS, k -> new long[2]);
      m[0]++;
      m[1] += seq;
    }
    if (seen.size() != expected.size()) fail(seen.size() + " distinct seqs processed, want " + expected.size());
    // The last count and sum logged per key after the restore equal the model's totals, so the
    // restored state held run 1's counts.
    Map<Long, String> last = new TreeMap<>();
    for (String line : run2) last.put(Long.parseLong(line.split(",")[0]), line);
    for (String line : run1) last.putIfAbsent(Long.parseLong(line.split(",")[0]), line);
    for (Map.Entry<Long, long[]> e : byKey.entrySet()) {
      String[] f = last.get(e.getKey()).split(",");
      if (Long.parseLong(f[2]) != e.getValue()[0] || Long.parseLong(f[3]) != e.getValue()[1]) {
        fail("key " + e.getKey() + ": count/sum after the restore " + f[2] + "/" + f[3] + ", want "
            + e.getValue()[0] + "/" + e.getValue()[1] + " (state did not carry over)");
      }
    }
    boolean continued = false;
    for (String line : run2) {
      if (Long.parseLong(line.split(",")[2]) > 1) continued = true;
    }
    if (!continued) fail("every count restarted at 1 after the restore");
  }
}
