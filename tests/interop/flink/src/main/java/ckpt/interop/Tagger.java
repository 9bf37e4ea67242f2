package ckpt.interop;

import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Forwards records; holds operator list state "tagger-seen" (records this subtask saw) and union
 * list state "tagger-max" (the largest sequence number it saw).
 */
public final class Tagger extends RichMapFunction<Rec, Rec> implements CheckpointedFunction {
  public static final String UID = "tagger";
  private transient ListState<Long> seenState;
  private transient ListState<Long> maxState;
  private long seen;
  private long max = -1;

  @Override
  public Rec map(Rec r) {
    seen++;
    max = Math.max(max, r.seq);
    return r;
  }

  @Override
  public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
    seenState.update(List.of(seen));
    maxState.update(List.of(max));
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    Truth.record(ctx.getCheckpointId(), UID, subtask, List.<Map<String, Object>>of(
        Truth.operator("tagger-seen", "operator-list", subtask, null, false, seen),
        Truth.operator("tagger-max", "operator-union", subtask, null, false, max)));
  }

  @Override
  public void initializeState(FunctionInitializationContext ctx) throws Exception {
    seenState = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("tagger-seen", Long.class));
    maxState = ctx.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("tagger-max", Long.class));
  }
}
