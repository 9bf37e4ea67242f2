package ckpt.interop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The Flink side of bench/flink/run_steady_state.sh: one of the side-by-side jobs on a MiniCluster
 * whose REST API stays up while the job runs, so the script's sampler can read the source
 * vertices' numRecordsOut (the same metric it reads from ckpt-engine) next to the process's CPU
 * time. Prints "REST endpoint: URL" and "Job ID 'NAME' started" as ckpt-engine does, and after the
 * job one RESULT line (net runtime, checkpoints, and the records the window or join emitted).
 *
 * <p>Jobs (each the ckpt-engine spec the script writes; numbers 1..RECORDS, key = n mod KEYS,
 * for window and join event timestamp (n - 1) * STEP_MS from sources of parallelism 1, ascending
 * watermarks as the sequence source's):
 * <ul>
 *   <li>keyed-sum: running sum per key in value state (BenchKeyedSum.Sum), discard sink;
 *   <li>window: tumbling event-time windows of ARG ms with a sum reduce (BenchWindowSum);
 *   <li>join: two sources of RECORDS / 2 numbers each ("left", "right"), interval join on the key
 *       between -ARG and +ARG ms (BenchJoin).
 * </ul>
 *
 * <p>Usage: BenchSteady JOB RECORDS KEYS PARALLELISM hashmap|rocksdb INTERVAL_MS CHECKPOINT_DIR
 * STEP_MS ARG (INTERVAL_MS 0 = no checkpoints)
 */
public final class BenchSteady {
  private BenchSteady() {}

  /** Accumulator of the records the window and join jobs emit (the RESULT line's emitted=). */
  static final String EMITTED = "emitted";

  /**
   * The numbers from..to as a source of the job's parallelism; with stepMs > 0, at event time
   * (n - 1) * stepMs with ascending watermarks, and of parallelism 1 (one split: the event time
   * then advances with the whole stream, so windows fire and join state expires steadily).
   */
  static DataStream<Long> numbers(StreamExecutionEnvironment env, String name, long from, long to, long stepMs) {
    if (stepMs <= 0) {
      return env.fromSource(new NumberSequenceSource(from, to), WatermarkStrategy.noWatermarks(), name)
          .uid(name).name(name);
    }
    WatermarkStrategy<Long> wm = WatermarkStrategy.<Long>forMonotonousTimestamps()
        .withTimestampAssigner((SerializableTimestampAssigner<Long>) (v, ts) -> (v - 1) * stepMs);
    return env.fromSource(new NumberSequenceSource(from, to), wm, name).setParallelism(1).uid(name).name(name);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println("usage: BenchSteady keyed-sum|window|join RECORDS KEYS PARALLELISM hashmap|rocksdb "
          + "INTERVAL_MS CHECKPOINT_DIR STEP_MS ARG");
      System.exit(2);
    }
    String job = args[0];
    long records = Long.parseLong(args[1]);
    long keys = Long.parseLong(args[2]);
    int p = Integer.parseInt(args[3]);
    String backend = args[4];
    long interval = Long.parseLong(args[5]);
    long step = Long.parseLong(args[7]);
    long arg = Long.parseLong(args[8]);
    if (!backend.equals("hashmap") && !backend.equals("rocksdb")) {
      System.err.println("BenchSteady: backend must be hashmap or rocksdb, not " + backend);
      System.exit(2);
    }
    Configuration c = new Configuration();
    c.set(RestOptions.BIND_PORT, "0");
    c.set(RestOptions.ADDRESS, "127.0.0.1");
    c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    // The REST metric values are the metric fetcher's last answer, 10 s old by default: fetch on
    // every request older than 100 ms, as close as Flink gets to ckpt-engine's live counters.
    c.addAll(Configuration.fromMap(Map.of("metrics.fetcher.update-interval", "100")));
    try (MiniCluster mc = Harness.startCluster(c)) {
      Configuration jc = new Configuration();
      jc.set(StateBackendOptions.STATE_BACKEND, backend);
      jc.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, new java.io.File(args[6]).toURI().toString());
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jc);
      env.setParallelism(p);
      env.setMaxParallelism(128);
      if (interval > 0) env.enableCheckpointing(interval);
      switch (job) {
        case "keyed-sum":
          numbers(env, "numbers", 1, records, 0)
              .keyBy(v -> v % keys).process(new BenchKeyedSum.Sum()).uid("sum").name("sum")
              .sinkTo(new DiscardingSink<>()).uid("sink").name("sink");
          break;
        case "window":
          BenchWindowSum.build(env, records, keys, step, arg);
          break;
        case "join":
          BenchJoin.build(env, records, keys, step, arg);
          break;
        default:
          System.err.println("BenchSteady: unknown job " + job + " (keyed-sum, window, join)");
          System.exit(2);
      }
      JobGraph graph = env.getStreamGraph().getJobGraph();
      String address = mc.getRestAddress().get().toString().replaceAll("/$", "");
      mc.submitJob(graph).get();
      System.out.println("REST endpoint: " + address);
      System.out.println("Job " + graph.getJobID().toHexString() + " 'bench-" + job + "' started");
      System.out.flush();
      JobResult r = mc.requestJobResult(graph.getJobID()).get();
      if (!r.isSuccess()) throw new IllegalStateException("job failed: " + r.getSerializedThrowable());
      HttpResponse<String> h = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(address + "/jobs/" + graph.getJobID().toHexString() + "/checkpoints")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (h.statusCode() != 200) throw new IllegalStateException("GET checkpoints: " + h.statusCode() + " " + h.body());
      JsonNode cp = new ObjectMapper().readTree(h.body());
      Object emitted = r.toJobExecutionResult(BenchSteady.class.getClassLoader()).getAccumulatorResult(EMITTED);
      System.out.printf("RESULT net_runtime_ms=%d completed=%d e2e_avg_ms=%d emitted=%s%n", r.getNetRuntime(),
          cp.path("counts").path("completed").asLong(),
          cp.path("summary").path("end_to_end_duration").path("avg").asLong(), emitted == null ? "-" : emitted);
    }
  }
}
