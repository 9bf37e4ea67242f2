package ckpt.interop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/** The two job graphs the harness runs. */
public final class Jobs {
  public static final int PARALLELISM = 2;
  /** Main source: 4 splits of 200 (reader r: splits r and r+2) plus the reserved split 4. */
  public static final SeqSource MAIN = new SeqSource("seq-source", 4, 0, 200);
  /** Rules source (parallelism 1): far-future timestamps, so it never holds back watermarks. */
  public static final SeqSource RULES = new SeqSource("rules-source", 1, 1_000_000, 100);
  /** Unaligned job's source: 4 splits of 2000. */
  public static final SeqSource UNALIGNED = new SeqSource("seq-source", 4, 0, 2000);
  public static final long WINDOW_MS = 1000;

  private Jobs() {}

  static WatermarkStrategy<Rec> watermarks() {
    return WatermarkStrategy.forGenerator(ctx -> new PunctuatedWatermarks());
  }

  public static final class KeyOf implements KeySelector<Rec, String> {
    @Override
    public String getKey(Rec r) {
      return KeyedFn.keyOf(r.seq);
    }
  }

  public static final class SeqOf extends RichMapFunction<Rec, Long> {
    @Override
    public Long map(Rec r) {
      return r.seq;
    }
  }

  public static final class Mod7 implements KeySelector<Long, Long> {
    @Override
    public Long getKey(Long s) {
      return s % 7;
    }
  }

  public static final class Sum implements ReduceFunction<Long> {
    @Override
    public Long reduce(Long a, Long b) {
      return a + b;
    }
  }

  /** Counts fired window results (operator list state "results-seen"); the harness checks it. */
  public static final class WindowResults extends RichMapFunction<Long, String>
      implements CheckpointedFunction {
    public static final String UID = "window-results";
    private transient ListState<Long> state;
    private long seen;

    @Override
    public String map(Long v) {
      seen++;
      return "window," + v;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
      state.update(List.of(seen));
      int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
      Truth.record(ctx.getCheckpointId(), UID, subtask, List.<Map<String, Object>>of(
          Truth.operator("results-seen", "operator-list", subtask, null, false, seen)));
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
      state = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("results-seen", Long.class));
    }
  }

  /** Sources, operator/union/broadcast state, keyed state and timers, a window, a FileSink. */
  public static void buildMain(StreamExecutionEnvironment env, String sinkDir) {
    DataStream<Rec> main = env.fromSource(MAIN, watermarks(), "seq-source").uid("seq-source");
    DataStream<Rec> rules = env.fromSource(RULES, watermarks(), "rules-source").uid("rules-source")
        .setParallelism(1);
    BroadcastStream<Rec> broadcast = rules.broadcast(RulesFn.RULES);
    DataStream<Rec> tagged = main.map(new Tagger()).uid(Tagger.UID).name("tagger");
    DataStream<Rec> ruled = tagged.connect(broadcast).process(new RulesFn()).uid(RulesFn.UID)
        .name("rules-fn");
    DataStream<String> keyed = ruled.keyBy(new KeyOf()).process(new KeyedFn()).uid(KeyedFn.UID)
        .name("keyed");
    DataStream<String> windows = ruled.map(new SeqOf()).uid("seq-of").name("seq-of")
        .keyBy(new Mod7(), Types.LONG)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(WINDOW_MS)))
        .reduce(new Sum()).uid("window").name("window")
        .map(new WindowResults()).uid(WindowResults.UID).name("window-results");
    FileSink<String> sink = FileSink.forRowFormat(new Path(sinkDir), new SimpleStringEncoder<String>())
        .withRollingPolicy(OnCheckpointRollingPolicy.build())
        .build();
    keyed.union(windows).sinkTo(sink).uid("file-sink").name("file-sink");
  }

  /** Source -> keyBy -> a slow keyed function: backpressure, so unaligned barriers overtake data. */
  public static void buildUnaligned(StreamExecutionEnvironment env) {
    env.fromSource(UNALIGNED, watermarks(), "seq-source").uid("seq-source")
        .keyBy(new KeyOf())
        .process(new SlowFn()).uid(SlowFn.UID).name("slow")
        .sinkTo(new DiscardingSink<>()).uid("discard").name("discard");
  }
}
