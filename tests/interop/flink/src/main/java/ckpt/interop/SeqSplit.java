package ckpt.interop;

import org.apache.flink.api.connector.source.SourceSplit;

/** A range [start, end) of sequence numbers; next is the first one not yet emitted. */
public final class SeqSplit implements SourceSplit {
  public final int id;
  public final long start;
  public final long end;
  public final long next;

  public SeqSplit(int id, long start, long end, long next) {
    this.id = id;
    this.start = start;
    this.end = end;
    this.next = next;
  }

  @Override
  public String splitId() {
    return "split-" + id;
  }

  public SeqSplit at(long position) {
    return new SeqSplit(id, start, end, position);
  }
}
