package ckpt.interop;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/** Emits its splits' records in split-id order, one per poll, up to the Control budget. */
final class SeqReader implements SourceReader<Rec, SeqSplit> {
  private final String name;
  private final SourceReaderContext ctx;
  private final List<SeqSplit> splits = new ArrayList<>();
  private long emitted;
  private CompletableFuture<Void> splitsArrived = new CompletableFuture<>();

  SeqReader(String name, SourceReaderContext ctx) {
    this.name = name;
    this.ctx = ctx;
  }

  private int subtask() {
    return ctx.getIndexOfSubtask();
  }

  @Override
  public void start() {
    Control.reportPosition(name, subtask(), emitted);
  }

  private int current() {
    for (int i = 0; i < splits.size(); i++) {
      if (splits.get(i).next < splits.get(i).end) return i;
    }
    return -1;
  }

  @Override
  public synchronized InputStatus pollNext(ReaderOutput<Rec> output) {
    if (emitted >= Control.budget(name)) {
      Control.reportPosition(name, subtask(), emitted);
      return InputStatus.NOTHING_AVAILABLE;
    }
    int i = current();
    if (i < 0) return InputStatus.NOTHING_AVAILABLE;
    SeqSplit s = splits.get(i);
    long seq = s.next;
    splits.set(i, s.at(seq + 1));
    emitted++;
    output.collect(new Rec(seq, Rec.tsOf(seq)), Rec.tsOf(seq));
    if (emitted >= Control.budget(name)) Control.reportPosition(name, subtask(), emitted);
    return InputStatus.MORE_AVAILABLE;
  }

  @Override
  public synchronized List<SeqSplit> snapshotState(long checkpointId) {
    return new ArrayList<>(splits);
  }

  @Override
  public synchronized CompletableFuture<Void> isAvailable() {
    CompletableFuture<Void> budgetChange = Control.budgetChanged(name);
    if (emitted >= Control.budget(name)) return budgetChange;
    if (current() < 0) return splitsArrived;
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized void addSplits(List<SeqSplit> newSplits) {
    splits.addAll(newSplits);
    splits.sort(Comparator.comparingInt(s -> s.id));
    CompletableFuture<Void> f = splitsArrived;
    splitsArrived = new CompletableFuture<>();
    f.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() {}
}
