package ckpt.interop;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;

/** Reads a `_metadata` through Flink's own Checkpoints.loadCheckpointMetadata. */
public final class MetaInfo {
  private MetaInfo() {}

  public static File metadataFile(File snapshot) {
    return snapshot.isDirectory() ? new File(snapshot, "_metadata") : snapshot;
  }

  public static CheckpointMetadata load(File snapshot) throws IOException {
    File f = metadataFile(snapshot);
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(f), 1 << 16))) {
      return Checkpoints.loadCheckpointMetadata(in, MetaInfo.class.getClassLoader(), f.getParent());
    }
  }

  /** Flink 2.x records operator name and uid in OperatorState; 1.20 does not (reflection). */
  public static String optional(OperatorState op, String getter) {
    try {
      Method m = OperatorState.class.getMethod(getter);
      Object v = m.invoke(op);
      if (v instanceof Optional) return (String) ((Optional<?>) v).orElse(null);
      return (String) v;
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  public static List<OperatorState> sorted(CheckpointMetadata md) {
    List<OperatorState> ops = new ArrayList<>(md.getOperatorStates());
    ops.sort(Comparator.comparing(o -> o.getOperatorID().toHexString()));
    return ops;
  }

  /** The operators as Flink loaded them (ground truth for ls). */
  public static List<Object> operators(CheckpointMetadata md) {
    List<Object> out = new ArrayList<>();
    for (OperatorState op : sorted(md)) {
      int withState = 0;
      java.util.TreeSet<String> handles = new java.util.TreeSet<>();
      for (OperatorSubtaskState s : op.getStates()) {
        if (s.hasState()) withState++;
        s.getManagedKeyedState().forEach(h -> handles.add("keyed:" + h.getClass().getSimpleName()));
        s.getManagedOperatorState().forEach(h -> handles.add("operator:" + h.getClass().getSimpleName()));
        s.getInputChannelState().forEach(h -> handles.add("input-channel:" + h.getClass().getSimpleName()));
        s.getResultSubpartitionState().forEach(h -> handles.add("output-channel:" + h.getClass().getSimpleName()));
      }
      Map<String, Object> o = Json.obj(
          "operator_id", op.getOperatorID().toHexString(),
          "uid", optional(op, "getOperatorUid"),
          "name", optional(op, "getOperatorName"),
          "parallelism", op.getParallelism(),
          "max_parallelism", op.getMaxParallelism(),
          "subtask_states", op.getSubtaskStates().size(),
          "subtask_states_with_state", withState,
          "coordinator_bytes", op.getCoordinatorState() == null ? 0 : op.getCoordinatorState().getStateSize(),
          "state_size", op.getStateSize(),
          "fully_finished", op.isFullyFinished(),
          "handle_types", new ArrayList<>(handles));
      out.add(o);
    }
    return out;
  }

  /** The OperatorID Flink derives from a uid (murmur3_128 of its UTF-8 bytes, seed 0). */
  public static String operatorIdOfUid(String uid) {
    return new OperatorID(operatorIdBytesOfUid(uid)).toHexString();
  }

  public static byte[] operatorIdBytesOfUid(String uid) {
    for (String v : new String[] {"33", "32", "31", "30"}) {
      try {
        String pkg = "org.apache.flink.shaded.guava" + v + ".com.google.common.hash.";
        Class<?> hashing = Class.forName(pkg + "Hashing");
        Object fn = hashing.getMethod("murmur3_128", int.class).invoke(null, 0);
        Object hasher = Class.forName(pkg + "HashFunction").getMethod("newHasher").invoke(fn);
        Class<?> hasherI = Class.forName(pkg + "Hasher");
        hasherI.getMethod("putString", CharSequence.class, java.nio.charset.Charset.class)
            .invoke(hasher, uid, StandardCharsets.UTF_8);
        Object code = hasherI.getMethod("hash").invoke(hasher);
        byte[] bytes = (byte[]) Class.forName(pkg + "HashCode").getMethod("asBytes").invoke(code);
        return bytes;
      } catch (ClassNotFoundException e) {
        // try the next shaded Guava
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("hashing uid " + uid, e);
      }
    }
    throw new IllegalStateException("no shaded Guava Hashing found");
  }
}
