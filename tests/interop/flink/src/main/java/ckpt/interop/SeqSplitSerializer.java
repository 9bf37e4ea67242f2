package ckpt.interop;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Big-endian: int id, long start, long end, long next (28 bytes). */
public final class SeqSplitSerializer implements SimpleVersionedSerializer<SeqSplit> {
  @Override
  public int getVersion() {
    return 1;
  }

  @Override
  public byte[] serialize(SeqSplit s) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(s.id);
    out.writeLong(s.start);
    out.writeLong(s.end);
    out.writeLong(s.next);
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public SeqSplit deserialize(int version, byte[] serialized) throws IOException {
    if (version != 1 || serialized.length != 28) {
      throw new IOException("bad SeqSplit: version " + version + ", " + serialized.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(serialized);
    return new SeqSplit(b.getInt(), b.getLong(), b.getLong(), b.getLong());
  }
}
