package ckpt.interop;

import java.time.Duration;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The window aggregate of bench/flink/run_steady_state.sh (run by BenchSteady): numbers
 * 1..RECORDS at event time (n - 1) * STEP_MS, key = n mod KEYS, tumbling event-time windows of
 * SIZE_MS with a sum reduce (reducing state), each fired window emitted as (key, start, end, sum)
 * to a discarding sink: ckpt-engine's `tumbling-window` with `aggregate: sum, state: reducing`.
 */
final class BenchWindowSum {
  private BenchWindowSum() {}

  /** Emits the window's one reduced value as (key, start, end, sum), as ckpt-engine's window does. */
  static final class Emit extends ProcessWindowFunction<Long, Tuple4<Long, Long, Long, Long>, Long, TimeWindow> {
    private final LongCounter emitted = new LongCounter();

    @Override
    public void open(OpenContext ctx) {
      getRuntimeContext().addAccumulator(BenchSteady.EMITTED, emitted);
    }

    @Override
    public void process(Long key, Context ctx, Iterable<Long> sums, Collector<Tuple4<Long, Long, Long, Long>> out) {
      for (Long s : sums) {
        emitted.add(1L);
        out.collect(Tuple4.of(key, ctx.window().getStart(), ctx.window().getEnd(), s));
      }
    }
  }

  static void build(StreamExecutionEnvironment env, long records, long keys, long stepMs, long sizeMs) {
    BenchSteady.numbers(env, "numbers", 1, records, stepMs)
        .keyBy(v -> v % keys)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(sizeMs)))
        .reduce((a, b) -> a + b, new Emit()).uid("window").name("window")
        .sinkTo(new DiscardingSink<>()).uid("sink").name("sink");
  }
}
