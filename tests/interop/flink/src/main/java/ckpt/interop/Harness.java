package ckpt.interop;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs real Flink jobs on a MiniCluster and writes their checkpoints and savepoints, each with
 * its ground truth, under OUT/<flink-version>/<kind>/. See the README for the layout and schema.
 *
 * <p>Usage: Harness --out DIR [--only kind,kind,...]
 */
public final class Harness {
  static final long TIMEOUT_MS = 120_000;
  static final long START = System.nanoTime();

  private final File root;
  private final String version;
  private final List<Object> manifest = new ArrayList<>();

  Harness(File out) {
    this.version = EnvironmentInformation.getVersion();
    this.root = new File(out, version);
  }

  public static void main(String[] args) throws Exception {
    File out = null;
    Set<String> only = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--out") && i + 1 < args.length) out = new File(args[++i]);
      else if (args[i].equals("--only") && i + 1 < args.length) only = new HashSet<>(Arrays.asList(args[++i].split(",")));
      else usage("unknown argument " + args[i]);
    }
    if (out == null) usage("--out DIR is required");
    Harness h = new Harness(out.getAbsoluteFile());
    if (h.root.exists()) usage(h.root + " already exists: give an empty output directory");
    h.root.mkdirs();
    long t0 = System.nanoTime();
    // One MiniCluster for every job (its start dominates a run); each job brings its own
    // configuration (state backend, checkpoint storage, changelog, unaligned) in its JobGraph.
    Configuration cluster = new Configuration();
    cluster.set(TaskManagerOptions.NUM_TASK_SLOTS, 8);
    cluster.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
    cluster.set(ConfigOptions.key("rest.bind-port").stringType().noDefaultValue(), "0");
    // Read by the JobManager / TaskManager, not from the job: keep every checkpoint, and the
    // changelog jobs' DSTL on the file system.
    cluster.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 50);
    cluster.set(StateChangelogOptions.STATE_CHANGE_LOG_STORAGE, "filesystem");
    cluster.set(ConfigOptions.key("dstl.dfs.base-path").stringType().noDefaultValue(),
        new File(new File(h.root, "changelog"), "dstl").toURI().toString());
    try (MiniCluster mc = startCluster(cluster)) {
      System.out.printf("harness: [%.1f s] cluster up%n", (System.nanoTime() - START) / 1e9);
      // run name, backend, incremental, changelog
      if (only == null || only.contains("hashmap")) h.runMain(mc, "hashmap", "hashmap", false, false);
      if (only == null || only.contains("stop-with-savepoint")) h.runMain(mc, "stop-with-savepoint", "hashmap", false, false);
      if (only == null || only.contains("rocksdb")) h.runMain(mc, "rocksdb", "rocksdb", false, false);
      if (only == null || only.contains("rocksdb-incremental")) h.runMain(mc, "rocksdb-incremental", "rocksdb", true, false);
      if (only == null || only.contains("changelog")) h.runMain(mc, "changelog", "hashmap", false, true);
      if (only == null || only.contains("unaligned")) h.runUnaligned(mc);
    }
    h.writeManifest();
    System.out.printf("harness: Flink %s, %d snapshots in %s (%.1f s)%n", h.version, h.manifest.size(),
        h.root, (System.nanoTime() - t0) / 1e9);
    System.exit(0);
  }

  static void usage(String why) {
    System.err.println("harness: " + why + "\nusage: Harness --out DIR [--only hashmap,stop-with-savepoint,rocksdb,rocksdb-incremental,changelog,unaligned]");
    System.exit(2);
  }

  // ---------------------------------------------------------------- configuration

  Configuration config(String run, String backend, boolean incremental, boolean changelog, boolean unaligned) {
    Configuration c = new Configuration();
    File runDir = new File(root, run);
    c.set(StateBackendOptions.STATE_BACKEND, backend);
    c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, new File(runDir, "checkpoints").toURI().toString());
    c.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, new File(root, "savepoints-default").toURI().toString());
    c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
    c.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 50);
    c.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
    c.set(CheckpointingOptions.ENABLE_UNALIGNED, unaligned);
    if (unaligned) c.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
    if (changelog) {
      c.set(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG, true);
      c.set(StateChangelogOptions.STATE_CHANGE_LOG_STORAGE, "filesystem");
      c.set(StateChangelogOptions.PERIODIC_MATERIALIZATION_INTERVAL, Duration.ofHours(1));
      c.set(ConfigOptions.key("dstl.dfs.base-path").stringType().noDefaultValue(),
          new File(runDir, "dstl").toURI().toString());
    }
    // CKPT_HARNESS_SNAPSHOT_COMPRESSION=1: Snappy-compressed key groups (heap checkpoints and
    // canonical savepoints), for the reader's decompression against the same ground truth.
    if ("1".equals(System.getenv("CKPT_HARNESS_SNAPSHOT_COMPRESSION"))) {
      c.set(ConfigOptions.key("execution.checkpointing.snapshot-compression").booleanType().defaultValue(false), true);
    }
    c.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
    c.set(TaskManagerOptions.NUM_TASK_SLOTS, 8);
    c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
    c.set(ConfigOptions.key("rest.bind-port").stringType().noDefaultValue(), "0");
    return c;
  }

  static MiniCluster startCluster(Configuration c) throws Exception {
    MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder()
        .setConfiguration(c).setNumTaskManagers(1).setNumSlotsPerTaskManager(8).build());
    mc.start();
    return mc;
  }

  static StreamExecutionEnvironment env(Configuration c) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(Jobs.PARALLELISM);
    env.setMaxParallelism(Truth.MAX_PARALLELISM);
    return env;
  }

  // ---------------------------------------------------------------- the main job

  /** Per-reader budgets of the phases (a snapshot after each). */
  static final long[] MAIN_BUDGETS = {60, 130, 210, 300, 340};
  static final long[] RULES_BUDGETS = {3, 5, 8, 10, 12};

  void runMain(MiniCluster mc, String run, String backend, boolean incremental, boolean changelog) throws Exception {
    Control.reset();
    Truth.reset();
    Configuration c = config(run, backend, incremental, changelog, false);
    File runDir = new File(root, run);
    StreamExecutionEnvironment env = env(c);
    Jobs.buildMain(env, new File(runDir, "sink-output").getAbsolutePath());
    JobGraph job = env.getStreamGraph().getJobGraph();
    Snap.Run info = new Snap.Run(run, backend, incremental, changelog, false);
    boolean stop = run.equals("stop-with-savepoint");
    {
      JobID id = job.getJobID();
      mc.submitJob(job).get();
      String previous = null;
      // hashmap and changelog: 2 checkpoints; rocksdb: 2 + savepoints; incremental: 3; stop: 0.
      int checkpoints = stop ? 0 : incremental ? 3 : 2;
      int phase = 0;
      for (; phase < checkpoints; phase++) {
        advance(phase);
        long cp = triggerCheckpoint(mc, id);
        File dir = new File(new File(new File(runDir, "checkpoints"), id.toString()), "chk-" + cp);
        previous = writeSnapshot(run, run, dir, "checkpoint", null, info, phase, previous);
      }
      if (backend.equals("rocksdb") && !incremental) {
        for (SavepointFormatType f : new SavepointFormatType[] {SavepointFormatType.CANONICAL, SavepointFormatType.NATIVE}) {
          advance(phase);
          String kind = "savepoint-" + f.name().toLowerCase();
          String target = new File(root, kind).toURI().toString();
          String path = retrying(() -> mc.triggerSavepoint(id, target, false, f));
          writeSnapshot(kind, run, uriToFile(path), "savepoint", f.name().toLowerCase(), info, phase, null);
          phase++;
        }
      }
      if (stop) {
        // A canonical savepoint, then stop-with-savepoint: two consecutive canonical
        // savepoints of one job, so diff --keys has a pair in the most portable format.
        advance(0);
        String spTarget = new File(root, "savepoint-canonical").toURI().toString();
        String sp = retrying(() -> mc.triggerSavepoint(id, spTarget, false, SavepointFormatType.CANONICAL));
        previous = writeSnapshot("savepoint-canonical", run, uriToFile(sp), "savepoint", "canonical", info, 0, null);
        advance(1);
        phase = 1;
        String kind = "stop-with-savepoint";
        String target = new File(root, kind).toURI().toString();
        String path = retrying(() -> mc.stopWithSavepoint(id, target, false, SavepointFormatType.CANONICAL));
        writeSnapshot(kind, run, uriToFile(path), "savepoint", "canonical", info, phase, previous);
        awaitTerminal(mc, id);
      } else {
        mc.cancelJob(id).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        awaitTerminal(mc, id);
      }
    }
  }

  static void advance(int phase) throws InterruptedException {
    Control.setBudget("rules-source", RULES_BUDGETS[phase]);
    Control.setBudget("seq-source", MAIN_BUDGETS[phase]);
    Control.awaitAtBudget("rules-source", 1, TIMEOUT_MS);
    Control.awaitAtBudget("seq-source", Jobs.PARALLELISM, TIMEOUT_MS);
  }

  static File uriToFile(String path) {
    return path.startsWith("file:") ? new File(java.net.URI.create(path)) : new File(path);
  }

  interface Trigger<T> {
    java.util.concurrent.CompletableFuture<T> start();
  }

  /**
   * Runs a checkpoint / savepoint trigger, retrying while the job's tasks are still deploying
   * (Flink 2.x also aborts a trigger with "Checkpoint Coordinator is suspending" when its
   * scheduler is stopped and restarted as the tasks switch to RUNNING).
   */
  static <T> T retrying(Trigger<T> trigger) throws Exception {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (true) {
      try {
        return trigger.start().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        String why = String.valueOf(e.getMessage());
        boolean deploying = why.contains("not all required tasks") || why.contains("Not all required tasks")
            || why.contains("not being executed") || why.contains("Checkpoint Coordinator is suspending");
        if (!deploying || System.currentTimeMillis() > deadline) throw e;
        Thread.sleep(50);
      }
    }
  }

  static long triggerCheckpoint(MiniCluster mc, JobID id) throws Exception {
    return retrying(() -> mc.triggerCheckpoint(id, CheckpointType.CONFIGURED));
  }

  static void awaitTerminal(MiniCluster mc, JobID id) throws Exception {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (true) {
      JobStatus s = mc.getJobStatus(id).get();
      if (s.isGloballyTerminalState()) return;
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("job " + id + " still " + s);
      Thread.sleep(20);
    }
  }

  // ---------------------------------------------------------------- the unaligned job

  static final long[] UNALIGNED_BUDGETS = {1500, 2500};

  void runUnaligned(MiniCluster mc) throws Exception {
    Control.reset();
    Truth.reset();
    String run = "unaligned";
    Configuration c = config(run, "hashmap", false, false, true);
    File runDir = new File(root, run);
    StreamExecutionEnvironment env = env(c);
    Jobs.buildUnaligned(env);
    JobGraph job = env.getStreamGraph().getJobGraph();
    Snap.Run info = new Snap.Run(run, "hashmap", false, false, true);
    {
      JobID id = job.getJobID();
      mc.submitJob(job).get();
      String previous = null;
      for (int phase = 0; phase < UNALIGNED_BUDGETS.length; phase++) {
        Control.setBudget("seq-source", UNALIGNED_BUDGETS[phase]);
        Control.awaitAtBudget("seq-source", Jobs.PARALLELISM, TIMEOUT_MS);
        long cp = triggerCheckpoint(mc, id);
        File dir = new File(new File(new File(runDir, "checkpoints"), id.toString()), "chk-" + cp);
        previous = writeSnapshot(run, run, dir, "checkpoint", null, info, phase, previous);
      }
      mc.cancelJob(id).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      awaitTerminal(mc, id);
    }
  }

  // ---------------------------------------------------------------- ground truth

  /** Writes KIND/truth/<snapshot>.json; returns the snapshot's path relative to the version root. */
  String writeSnapshot(String kind, String run, File snapshot, String type, String format,
      Snap.Run info, int phase, String previous) throws IOException {
    CheckpointMetadata md = MetaInfo.load(snapshot);
    long cp = md.getCheckpointId();
    String rel = root.toPath().relativize(snapshot.toPath()).toString();
    Map<String, Object> truth = info.unaligned
        ? Snap.unalignedTruth(version, kind, rel, type, format, info, cp, phase, previous, md)
        : Snap.mainTruth(version, kind, rel, type, format, info, cp, phase, previous, md);
    File truthDir = new File(new File(root, kind), "truth");
    truthDir.mkdirs();
    File tf = new File(truthDir, snapshot.getName() + ".json");
    Files.write(tf.toPath(), (Json.write(truth) + "\n").getBytes(StandardCharsets.UTF_8));
    manifest.add(Json.obj("kind", kind, "run", run, "snapshot", rel,
        "truth", root.toPath().relativize(tf.toPath()).toString(), "type", type, "format", format,
        "checkpoint_id", cp, "previous", previous));
    System.out.printf("harness: [%.1f s] %s %s -> %s%n", (System.nanoTime() - START) / 1e9, kind, rel, root.toPath().relativize(tf.toPath()));
    return rel;
  }

  void writeManifest() throws IOException {
    Map<String, Object> m = Json.obj("schema", "ckpt-interop-flink-manifest/1", "flink_version", version,
        "snapshots", manifest);
    Files.write(new File(root, "manifest.json").toPath(), (Json.write(m) + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
