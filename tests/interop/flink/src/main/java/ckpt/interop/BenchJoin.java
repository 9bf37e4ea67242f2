package ckpt.interop;

import java.time.Duration;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * The two-input join of bench/flink/run_steady_state.sh (run by BenchSteady): sources "left" and
 * "right", each the numbers 1..RECORDS/2 at event time (n - 1) * STEP_MS, key = n mod KEYS, an
 * interval join on the key (a right record at s joins a left one at t when -BOUND_MS <= s - t <=
 * BOUND_MS), each pair emitted as (key, left, right) to a discarding sink: ckpt-engine's
 * `interval-join` with `lower_ms: -BOUND_MS, upper_ms: BOUND_MS`.
 */
final class BenchJoin {
  private BenchJoin() {}

  static final class Pair extends ProcessJoinFunction<Long, Long, Tuple3<Long, Long, Long>> {
    private final long keys;
    private final LongCounter emitted = new LongCounter();

    Pair(long keys) {
      this.keys = keys;
    }

    @Override
    public void open(OpenContext ctx) {
      getRuntimeContext().addAccumulator(BenchSteady.EMITTED, emitted);
    }

    @Override
    public void processElement(Long l, Long r, Context ctx, Collector<Tuple3<Long, Long, Long>> out) {
      emitted.add(1L);
      out.collect(Tuple3.of(l % keys, l, r));
    }
  }

  static void build(StreamExecutionEnvironment env, long records, long keys, long stepMs, long boundMs) {
    long half = records / 2;
    BenchSteady.numbers(env, "left", 1, half, stepMs).keyBy(v -> v % keys)
        .intervalJoin(BenchSteady.numbers(env, "right", 1, half, stepMs).keyBy(v -> v % keys))
        .between(Duration.ofMillis(-boundMs), Duration.ofMillis(boundMs))
        .process(new Pair(keys)).uid("join").name("join")
        .sinkTo(new DiscardingSink<>()).uid("sink").name("sink");
  }
}
