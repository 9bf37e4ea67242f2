package ckpt.interop;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A running Flink job to watch over REST (the inspector's live Checkpoints view test):
 *
 * <pre>
 *   LiveServe --dir DIR --out FILE [--interval-ms N] [--unaligned]
 * </pre>
 *
 * Starts a MiniCluster with its REST endpoint on 127.0.0.1 (a free port), runs a keyed job
 * "live-view" (parallelism 2, uids seq / slow / sum / sink, about 2000 records/s per subtask)
 * with checkpoints every N ms (default 200) under DIR/checkpoints (every one retained, the last
 * 1000 in the REST history), waits for two completed checkpoints, takes one canonical savepoint
 * into DIR/savepoints, starts a second job "live-view-restored" from that savepoint (left running
 * beside the first) and waits for its first checkpoint, then writes FILE (atomically, "key value"
 * lines: address, job_id, savepoint, restored_job_id, flink_version, checkpoint_dir) and serves
 * until its standard input closes (or DIR/stop appears), then cancels both jobs and exits 0.
 */
public final class LiveServe {
  static final long TIMEOUT_MS = 300_000;

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new TreeMap<>();
    for (int i = 0; i < args.length; ++i) {
      if (args[i].equals("--unaligned")) {
        a.put("unaligned", "true");
      } else if (args[i].startsWith("--") && i + 1 < args.length) {
        a.put(args[i].substring(2), args[++i]);
      } else {
        throw new IllegalArgumentException(
            "usage: LiveServe --dir DIR --out FILE [--interval-ms N] [--unaligned]");
      }
    }
    File dir = new File(a.get("dir")).getAbsoluteFile();
    Path out = Path.of(a.get("out")).toAbsolutePath();
    long interval = Long.parseLong(a.getOrDefault("interval-ms", "200"));
    boolean unaligned = a.containsKey("unaligned");
    File checkpoints = new File(dir, "checkpoints");
    File savepoints = new File(dir, "savepoints");

    Configuration c = new Configuration();
    c.set(RestOptions.BIND_PORT, "0");
    c.set(RestOptions.ADDRESS, "127.0.0.1");
    c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    c.set(TaskManagerOptions.NUM_TASK_SLOTS, 8);
    c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(64));
    // Read by the JobManager: every checkpoint stays on disk (so each one in the history can be
    // opened), and the REST history holds the savepoint for the whole run.
    c.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 100000);
    c.set(ConfigOptions.key("web.checkpoints.history").intType().defaultValue(10), 1000);
    c.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toURI().toString());
    c.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, savepoints.toURI().toString());
    c.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(interval));
    c.set(CheckpointingOptions.ENABLE_UNALIGNED, unaligned);
    if (unaligned) c.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);

    try (MiniCluster mc = Harness.startCluster(c)) {
      JobGraph job = jobGraph(c, "live-view");
      mc.submitJob(job).get();
      String address = mc.getRestAddress().get().toString().replaceAll("/$", "");
      String id = job.getJobID().toHexString();
      awaitCompleted(address, id, 2);
      String sp = mc.triggerSavepoint(job.getJobID(), savepoints.toURI().toString(), false,
          SavepointFormatType.CANONICAL).get();
      JobGraph restored = jobGraph(c, "live-view-restored");
      restored.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(sp, false));
      mc.submitJob(restored).get();
      awaitCompleted(address, restored.getJobID().toHexString(), 1);
      String text = "address " + address + "\njob_id " + id + "\nsavepoint " + sp
          + "\nrestored_job_id " + restored.getJobID().toHexString()
          + "\nflink_version " + EnvironmentInformation.getVersion()
          + "\ncheckpoint_dir " + checkpoints.getPath() + "\n";
      Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE);
      System.out.print(text);
      System.out.flush();
      // Serve until told to stop: standard input closes (the parent exited or closed it).
      Thread stdin = new Thread(() -> {
        try {
          while (System.in.read() >= 0) {
            // drain
          }
        } catch (Exception closed) {
          // as good as end of input
        }
      });
      stdin.setDaemon(true);
      stdin.start();
      File stop = new File(dir, "stop");
      while (stdin.isAlive() && !stop.exists()) stdin.join(100);
      mc.cancelJob(restored.getJobID()).get();
      mc.cancelJob(job.getJobID()).get();
    }
    System.exit(0);
  }

  static JobGraph jobGraph(Configuration c, String name) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(2);
    env.setMaxParallelism(128);
    env.fromSequence(0, Long.MAX_VALUE).uid("seq").name("seq")
        .map(new Paced()).uid("slow").name("slow")
        .keyBy(v -> v % 16).reduce(Long::sum).uid("sum").name("sum")
        .sinkTo(new DiscardingSink<>()).uid("sink").name("sink");
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName(name);
    return graph.getJobGraph();
  }

  /** Waits until job `id` has `n` completed checkpoints. */
  static void awaitCompleted(String address, String id, long n) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (true) {
      try {
        JsonNode cps = RestInterop.get(http, address, "/jobs/" + id + "/checkpoints");
        if (cps.get("counts").get("completed").asLong() >= n) return;
      } catch (IllegalStateException notYet) {
        // the job is still being scheduled
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("no checkpoints of job " + id + " on the MiniCluster");
      }
      Thread.sleep(50);
    }
  }

  /** About 2000 records/s per subtask: the two jobs leave the shared machine some CPU. */
  static final class Paced implements MapFunction<Long, Long> {
    @Override
    public Long map(Long v) throws Exception {
      if (v % 2 == 0) Thread.sleep(1);
      return v;
    }
  }

  private LiveServe() {}
}
