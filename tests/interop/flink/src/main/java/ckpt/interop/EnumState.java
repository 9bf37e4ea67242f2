package ckpt.interop;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The enumerator's checkpoint (the source coordinator's state): the split ids it has assigned, in
 * assignment order, and the ids still unassigned. Serialized big-endian: int nAssigned, int
 * ids..., int nUnassigned, int ids...
 */
public final class EnumState {
  public final List<Integer> assigned;
  public final List<Integer> unassigned;

  public EnumState(List<Integer> assigned, List<Integer> unassigned) {
    this.assigned = new ArrayList<>(assigned);
    this.unassigned = new ArrayList<>(unassigned);
  }

  public static final class Serializer implements SimpleVersionedSerializer<EnumState> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(EnumState s) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(s.assigned.size());
      for (int id : s.assigned) out.writeInt(id);
      out.writeInt(s.unassigned.size());
      for (int id : s.unassigned) out.writeInt(id);
      out.flush();
      return bytes.toByteArray();
    }

    @Override
    public EnumState deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) throw new IOException("bad EnumState version " + version);
      ByteBuffer b = ByteBuffer.wrap(serialized);
      List<Integer> a = new ArrayList<>();
      for (int n = b.getInt(); n > 0; n--) a.add(b.getInt());
      List<Integer> u = new ArrayList<>();
      for (int n = b.getInt(); n > 0; n--) u.add(b.getInt());
      return new EnumState(a, u);
    }
  }
}
