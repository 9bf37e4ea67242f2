package ckpt.interop;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A FLIP-27 source of sequence numbers. Split i covers [base + i*len, base + (i+1)*len) and
 * belongs to reader i % parallelism (assigned when the reader registers), so what each reader
 * emits is fixed. One extra split (id = splits) is never assigned: the enumerator keeps it, so the
 * coordinator state is never empty. Emission is paced by {@link Control} budgets.
 */
public final class SeqSource implements Source<Rec, SeqSplit, EnumState> {
  final String name;
  final int splits;
  final long base;
  final long len;

  public SeqSource(String name, int splits, long base, long len) {
    this.name = name;
    this.splits = splits;
    this.base = base;
    this.len = len;
  }

  public List<SeqSplit> allSplits() {
    List<SeqSplit> out = new ArrayList<>();
    for (int i = 0; i <= splits; i++) {
      long s = base + i * len;
      out.add(new SeqSplit(i, s, s + len, s));
    }
    return out;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<SeqSplit, EnumState> createEnumerator(
      SplitEnumeratorContext<SeqSplit> ctx) {
    return new SeqEnumerator(ctx, allSplits(), new ArrayList<>());
  }

  @Override
  public SplitEnumerator<SeqSplit, EnumState> restoreEnumerator(
      SplitEnumeratorContext<SeqSplit> ctx, EnumState state) {
    List<SeqSplit> all = allSplits();
    List<SeqSplit> left = new ArrayList<>();
    for (int id : state.unassigned) left.add(all.get(id));
    return new SeqEnumerator(ctx, left, state.assigned);
  }

  @Override
  public SimpleVersionedSerializer<SeqSplit> getSplitSerializer() {
    return new SeqSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<EnumState> getEnumeratorCheckpointSerializer() {
    return new EnumState.Serializer();
  }

  @Override
  public SourceReader<Rec, SeqSplit> createReader(SourceReaderContext ctx) {
    return new SeqReader(name, ctx);
  }
}
