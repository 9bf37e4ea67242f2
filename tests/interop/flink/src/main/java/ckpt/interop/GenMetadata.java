package ckpt.interop;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.filesystem.RelativeFileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

/**
 * Writes a canonical-savepoint `_metadata` with OPERATORS operators of PARALLELISM subtasks each
 * (default 10 x 1000 = 10,000 subtask states) through Flink's own Checkpoints.storeCheckpointMetadata
 * (the current MetadataSerializer): half the operators keyed (a KeyGroupsSavepointStateHandle per
 * subtask over its key-group range), half with operator list state, the first with coordinator
 * state. State handles are relative files next to `_metadata`; the files themselves are not
 * written (this snapshot is for timing `ls`, which reads `_metadata` only).
 *
 * <p>Usage: GenMetadata OUT_DIR [OPERATORS PARALLELISM]
 */
public final class GenMetadata {
  private GenMetadata() {}

  static OperatorState newOperatorState(String name, OperatorID id, int p, int maxP) throws Exception {
    for (Constructor<?> c : OperatorState.class.getConstructors()) {
      Class<?>[] t = c.getParameterTypes();
      if (t.length == 5) return (OperatorState) c.newInstance(name, name, id, p, maxP); // Flink 2.x
      if (t.length == 3) return (OperatorState) c.newInstance(id, p, maxP); // Flink 1.x
    }
    throw new IllegalStateException("no known OperatorState constructor");
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1 && args.length != 3) {
      System.err.println("usage: GenMetadata OUT_DIR [OPERATORS PARALLELISM]");
      System.exit(2);
    }
    File dir = new File(args[0]).getAbsoluteFile();
    int operators = args.length == 3 ? Integer.parseInt(args[1]) : 10;
    int p = args.length == 3 ? Integer.parseInt(args[2]) : 1000;
    int maxP = Math.max(128, KeyGroupRangeAssignment.computeDefaultMaxParallelism(p));
    dir.mkdirs();
    List<OperatorState> states = new ArrayList<>();
    for (int o = 0; o < operators; o++) {
      String uid = "synthetic-" + o;
      OperatorState op = newOperatorState(uid, new OperatorID(MetaInfo.operatorIdBytesOfUid(uid)), p, maxP);
      boolean keyed = o % 2 == 1;
      for (int s = 0; s < p; s++) {
        String file = String.format("%s-%04d", uid, s);
        RelativeFileStateHandle h = new RelativeFileStateHandle(new Path(new File(dir, file).toURI()), file, 4096 + s);
        OperatorSubtaskState.Builder b = OperatorSubtaskState.builder();
        if (keyed) {
          KeyGroupRange r = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(maxP, p, s);
          long[] offsets = new long[r.getNumberOfKeyGroups()];
          for (int k = 0; k < offsets.length; k++) offsets[k] = 64L + 32L * k;
          b.setManagedKeyedState(new KeyGroupsSavepointStateHandle(new KeyGroupRangeOffsets(r, offsets), h));
        } else {
          Map<String, OperatorStateHandle.StateMetaInfo> meta = Map.of("offsets",
              new OperatorStateHandle.StateMetaInfo(new long[] {57L}, OperatorStateHandle.Mode.SPLIT_DISTRIBUTE));
          b.setManagedOperatorState(new OperatorStreamStateHandle(meta, h));
        }
        op.putState(s, b.build());
      }
      if (o == 0) op.setCoordinatorState(new ByteStreamStateHandle(uid + "-coordinator", new byte[] {0, 0, 0, 1, 0, 0, 0, 0}));
      states.add(op);
    }
    CheckpointMetadata md = new CheckpointMetadata(42L, states, List.of(),
        CheckpointProperties.forSavepoint(true, SavepointFormatType.CANONICAL));
    File f = new File(dir, "_metadata");
    try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(f), 1 << 16))) {
      Checkpoints.storeCheckpointMetadata(md, out);
    }
    System.out.printf("GenMetadata: %s: %d operators x %d subtasks = %d subtask states, max parallelism %d, %d bytes%n",
        f, operators, p, operators * p, maxP, f.length());
  }
}
