package ckpt.interop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * The Flink side of bench/flink/run_side_by_side.sh: the keyed-sum job of ckpt-engine's spec
 * (sequence 1..RECORDS, key = n mod KEYS, running sum per key in value state `sum`, the sum
 * emitted to a discarding sink) on a MiniCluster: heap backend (hashmap), parallelism PARALLELISM,
 * max parallelism 128, a checkpoint every 1 s into CHECKPOINT_DIR. After the job finishes, its
 * checkpoint statistics are read from the MiniCluster's REST API (/jobs/:id/checkpoints) and one
 * RESULT line is printed for the script.
 *
 * <p>Usage: BenchKeyedSum RECORDS KEYS PARALLELISM CHECKPOINT_DIR
 */
public final class BenchKeyedSum {
  private BenchKeyedSum() {}

  /** Running sum per key; the state is created on first use (the same on Flink 1.20 and 2.x). */
  static final class Sum extends KeyedProcessFunction<Long, Long, Long> {
    private transient ValueState<Long> sum;

    @Override
    public void processElement(Long v, Context ctx, Collector<Long> out) throws Exception {
      if (sum == null) sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
      Long s = sum.value();
      long n = (s == null ? 0L : s) + v;
      sum.update(n);
      out.collect(n);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: BenchKeyedSum RECORDS KEYS PARALLELISM CHECKPOINT_DIR");
      System.exit(2);
    }
    long records = Long.parseLong(args[0]);
    long keys = Long.parseLong(args[1]);
    int p = Integer.parseInt(args[2]);
    Configuration c = new Configuration();
    c.set(RestOptions.BIND_PORT, "0");
    c.set(RestOptions.ADDRESS, "127.0.0.1");
    c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    try (MiniCluster mc = Harness.startCluster(c)) {
      Configuration jc = new Configuration();
      jc.set(StateBackendOptions.STATE_BACKEND, "hashmap");
      jc.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, new java.io.File(args[3]).toURI().toString());
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jc);
      env.setParallelism(p);
      env.setMaxParallelism(128);
      env.enableCheckpointing(1000);
      env.fromSequence(1, records).uid("numbers").name("numbers")
          .keyBy(v -> v % keys).process(new Sum()).uid("sum").name("sum")
          .sinkTo(new DiscardingSink<>()).uid("sink").name("sink");
      JobGraph job = env.getStreamGraph().getJobGraph();
      mc.submitJob(job).get();
      JobResult r = mc.requestJobResult(job.getJobID()).get();
      if (!r.isSuccess()) throw new IllegalStateException("job failed: " + r.getSerializedThrowable());
      String address = mc.getRestAddress().get().toString().replaceAll("/$", "");
      HttpResponse<String> h = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(address + "/jobs/" + job.getJobID().toHexString() + "/checkpoints")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (h.statusCode() != 200) throw new IllegalStateException("GET checkpoints: " + h.statusCode() + " " + h.body());
      JsonNode cp = new ObjectMapper().readTree(h.body());
      JsonNode e2e = cp.path("summary").path("end_to_end_duration");
      JsonNode size = cp.path("summary").path("state_size");
      System.out.printf("RESULT net_runtime_ms=%d completed=%d e2e_avg_ms=%d e2e_p50_ms=%d e2e_max_ms=%d state_size_avg=%d%n",
          r.getNetRuntime(), cp.path("counts").path("completed").asLong(), e2e.path("avg").asLong(),
          e2e.path("p50").asLong(), e2e.path("max").asLong(), size.path("avg").asLong());
    }
  }
}
