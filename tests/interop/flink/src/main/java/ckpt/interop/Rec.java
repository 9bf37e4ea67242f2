package ckpt.interop;

/** One source record: a global sequence number and its event time (seq * 10 ms). */
public class Rec {
  public long seq;
  public long ts;

  public Rec() {}

  public Rec(long seq, long ts) {
    this.seq = seq;
    this.ts = ts;
  }

  public static long tsOf(long seq) {
    return seq * 10L;
  }
}
