package ckpt.interop;

import java.io.File;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;

/**
 * The JVM baseline of bench/flink-ls-vs-jvm.sh: loads a `_metadata` with Flink's own
 * Checkpoints.loadCheckpointMetadata and prints the listing `ckpt-tool ls` prints for one snapshot
 * (checkpoint id, operator id, uid if Flink stored one, parallelism, max parallelism, subtask
 * states, coordinator bytes, total bytes).
 *
 * <p>Usage: JvmLs SNAPSHOT_DIR_OR_METADATA
 */
public final class JvmLs {
  private JvmLs() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: JvmLs SNAPSHOT_DIR_OR_METADATA");
      System.exit(2);
    }
    CheckpointMetadata md = MetaInfo.load(new File(args[0]));
    StringBuilder out = new StringBuilder();
    out.append(String.format("%10s  %-32s  %-20s  %11s  %15s  %14s  %17s  %11s%n", "CHECKPOINT",
        "UID HASH", "UID", "PARALLELISM", "MAX PARALLELISM", "SUBTASK STATES", "COORDINATOR BYTES",
        "TOTAL BYTES"));
    for (OperatorState op : MetaInfo.sorted(md)) {
      String uid = MetaInfo.optional(op, "getOperatorUid");
      long coord = op.getCoordinatorState() == null ? 0 : op.getCoordinatorState().getStateSize();
      out.append(String.format("%10d  %-32s  %-20s  %11d  %15d  %14d  %17d  %11d%n", md.getCheckpointId(),
          op.getOperatorID().toHexString(), uid == null ? "-" : uid, op.getParallelism(),
          op.getMaxParallelism(), op.getSubtaskStates().size(), coord, op.getStateSize()));
    }
    System.out.print(out);
  }
}
