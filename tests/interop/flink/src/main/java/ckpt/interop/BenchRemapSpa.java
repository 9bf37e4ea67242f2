package ckpt.interop;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The State Processor API's way to change one operator's uid in a savepoint (the baseline of
 * bench/flink/run_side_by_side.sh against `ckpt-tool remap`):
 * SavepointWriter.fromExistingSavepoint(env, IN, heap backend).changeOperatorIdentifier(forUid(FROM),
 * forUid(TO)).write(OUT), then env.execute() on a local MiniCluster (batch mode, as the State
 * Processor API documents). The script times this whole process (JVM start included).
 *
 * <p>Usage: BenchRemapSpa IN_SAVEPOINT OUT_DIR FROM_UID TO_UID, or BenchRemapSpa --uid-hash UID...
 * (prints the operator ID Flink derives from each uid, one a line: Flink 1.20's `_metadata` has no
 * uids, so the script maps by ID)
 */
public final class BenchRemapSpa {
  private BenchRemapSpa() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 1 && args[0].equals("--uid-hash")) {
      for (int i = 1; i < args.length; i++) {
        System.out.println(new OperatorID(MetaInfo.operatorIdBytesOfUid(args[i])).toHexString());
      }
      return;
    }
    if (args.length != 4) {
      System.err.println("usage: BenchRemapSpa IN_SAVEPOINT OUT_DIR FROM_UID TO_UID");
      System.exit(2);
    }
    long t0 = System.nanoTime();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    SavepointWriter.fromExistingSavepoint(env, args[0], new HashMapStateBackend())
        .changeOperatorIdentifier(OperatorIdentifier.forUid(args[2]), OperatorIdentifier.forUid(args[3]))
        .write(args[1]);
    env.execute("state-processor-api changeOperatorIdentifier");
    System.out.printf("BenchRemapSpa: %s -> %s (%s -> %s) in %.0f ms inside the JVM%n",
        args[0], args[1], args[2], args[3], (System.nanoTime() - t0) / 1e6);
  }
}
