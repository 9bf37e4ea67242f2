package ckpt.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The backpressure stage of the unaligned-checkpoint job: ValueState "count" per key, and a pause
 * after every record so its input channels fill and the barrier overtakes in-flight records.
 */
public final class SlowFn extends KeyedProcessFunction<String, Rec, String>
    implements CheckpointedFunction {
  public static final String UID = "slow";
  private transient ValueState<Long> count;
  private final TreeMap<String, Long> mirror = new TreeMap<>();

  @Override
  public void open(OpenContext ctx) {
    count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
  }

  @Override
  public void processElement(Rec r, Context ctx, Collector<String> out) throws Exception {
    Long c = count.value();
    count.update(c == null ? 1 : c + 1);
    mirror.merge(ctx.getCurrentKey(), 1L, Long::sum);
    Thread.sleep(2);
    out.collect(ctx.getCurrentKey() + "," + r.seq);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext ctx) {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    List<Map<String, Object>> e = new ArrayList<>();
    for (Map.Entry<String, Long> kv : mirror.entrySet()) {
      e.add(Truth.keyed("count", "value", subtask, kv.getKey(), null, null, false, kv.getValue()));
    }
    Truth.record(ctx.getCheckpointId(), UID, subtask, e);
  }

  @Override
  public void initializeState(FunctionInitializationContext ctx) {}
}
