package ckpt.interop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/** Assigns reader r every split i with i % parallelism == r, except the reserved last split. */
final class SeqEnumerator implements SplitEnumerator<SeqSplit, EnumState> {
  private final SplitEnumeratorContext<SeqSplit> ctx;
  private final List<SeqSplit> unassigned;
  private final List<Integer> assigned;

  SeqEnumerator(SplitEnumeratorContext<SeqSplit> ctx, List<SeqSplit> unassigned, List<Integer> assigned) {
    this.ctx = ctx;
    this.unassigned = new ArrayList<>(unassigned);
    this.assigned = new ArrayList<>(assigned);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<SeqSplit> splits, int subtaskId) {
    for (SeqSplit s : splits) {
      assigned.remove(Integer.valueOf(s.id));
      unassigned.add(s);
    }
  }

  @Override
  public synchronized void addReader(int subtaskId) {
    int p = ctx.currentParallelism();
    int reserved = unassigned.stream().mapToInt(s -> s.id).max().orElse(-1);
    List<SeqSplit> mine = new ArrayList<>();
    for (SeqSplit s : new ArrayList<>(unassigned)) {
      if (s.id != reserved && s.id % p == subtaskId) {
        mine.add(s);
        unassigned.remove(s);
        assigned.add(s.id);
      }
    }
    Collections.sort(assigned);
    for (SeqSplit s : mine) ctx.assignSplit(s, subtaskId);
  }

  @Override
  public synchronized EnumState snapshotState(long checkpointId) {
    List<Integer> left = new ArrayList<>();
    for (SeqSplit s : unassigned) left.add(s.id);
    Collections.sort(left);
    return new EnumState(assigned, left);
  }

  @Override
  public void close() {}
}
