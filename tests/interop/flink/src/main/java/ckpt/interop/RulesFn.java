package ckpt.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;

/** Forwards the main stream; broadcast state "rules": "rule-(seq % 5)" -> the latest rule seq. */
public final class RulesFn extends BroadcastProcessFunction<Rec, Rec, Rec>
    implements CheckpointedFunction {
  public static final String UID = "rules-fn";
  public static final MapStateDescriptor<String, Long> RULES =
      new MapStateDescriptor<>("rules", String.class, Long.class);
  private final TreeMap<String, Long> mirror = new TreeMap<>();

  @Override
  public void processElement(Rec r, ReadOnlyContext ctx, Collector<Rec> out) {
    out.collect(r);
  }

  @Override
  public void processBroadcastElement(Rec r, Context ctx, Collector<Rec> out) throws Exception {
    String k = "rule-" + (r.seq % 5);
    ctx.getBroadcastState(RULES).put(k, r.seq);
    mirror.put(k, r.seq);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext ctx) {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    List<Map<String, Object>> entries = new ArrayList<>();
    for (Map.Entry<String, Long> e : mirror.entrySet()) {
      entries.add(Truth.operator("rules", "broadcast", subtask, e.getKey(), true, e.getValue()));
    }
    Truth.record(ctx.getCheckpointId(), UID, subtask, entries);
  }

  @Override
  public void initializeState(FunctionInitializationContext ctx) {}
}
