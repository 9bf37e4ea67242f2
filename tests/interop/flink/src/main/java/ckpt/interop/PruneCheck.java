package ckpt.interop;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * Issue 11 §3, prune verified by real Flink: RemapCheck's job v1 on RocksDB with incremental
 * checkpoints takes three retained checkpoints (20, 40, 60 records per reader; the later ones
 * share SST files under shared/) and is cancelled. `ckpt-tool prune JOB_DIR --keep-last 1
 * --min-orphan-age 0s --yes` deletes what the latest no longer references (after a dry run that
 * must delete nothing); then Flink restores the latest checkpoint — which reads every file it
 * references, so a pruned file it needed fails the restore — and the job continues with every
 * key's count and sum and the source positions (RemapCheck.verify). Also checked: chk-1 and
 * chk-2 are gone, the latest checkpoint's files are all still there, and taskowned/ is untouched.
 *
 * <p>Usage: PruneCheck --out DIR --ckpt-tool PATH. Exit 0 when every check holds.
 */
public final class PruneCheck {
  static void fail(String why) {
    Check.fail("prune-check", why);
  }

  static TreeSet<String> tree(File root) throws Exception {
    TreeSet<String> out = new TreeSet<>();
    if (!root.exists()) return out;
    try (Stream<Path> s = Files.walk(root.toPath())) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(root.toPath().relativize(p).toString()));
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    Check check = Check.parse("prune-check", "PruneCheck --out DIR --ckpt-tool PATH", args, Map.of());
    String tool = check.tool;
    File root = check.freshRoot("");
    String tag = "prune-check [Flink " + check.version + ", rocksdb incremental]";
    Configuration c = Check.config(root, "rocksdb", 8);
    c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    Check.retainCheckpoints(c);

    try (MiniCluster mc = Harness.startCluster(c)) {
      Control.reset();
      RemapCheck.LOG.clear();
      JobGraph v1 = RemapCheck.job(c, "v1-", null);
      mc.submitJob(v1).get();
      File jobDir = new File(new File(root, "checkpoints"), v1.getJobID().toString());
      List<File> checkpoints = new ArrayList<>();
      for (long budget : new long[] {20, 40, RemapCheck.RUN1}) {
        Control.setBudget(RemapCheck.SOURCE.name, budget);
        Control.awaitAtBudget(RemapCheck.SOURCE.name, 2, Harness.TIMEOUT_MS);
        long id = Harness.triggerCheckpoint(mc, v1.getJobID());
        File chk = new File(jobDir, "chk-" + id);
        if (!new File(chk, "_metadata").isFile()) fail(chk + " has no _metadata");
        checkpoints.add(chk);
      }
      mc.cancelJob(v1.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Harness.awaitTerminal(mc, v1.getJobID());
      List<String> run1 = new ArrayList<>(RemapCheck.LOG);
      if (run1.size() != 2 * RemapCheck.RUN1) fail("run 1 processed " + run1.size() + " records, want " + 2 * RemapCheck.RUN1);
      File latest = checkpoints.get(checkpoints.size() - 1);

      TreeSet<String> before = tree(jobDir);
      TreeSet<String> taskOwned = tree(new File(jobDir, "taskowned"));
      File dryLog = new File(root, "prune-dry-run.txt");
      if (Check.run(List.of(tool, "prune", jobDir.getAbsolutePath(), "--keep-last", "1", "--min-orphan-age", "0s"), dryLog) != 0
          || !tree(jobDir).equals(before)) {
        fail("ckpt-tool prune (dry run) failed or deleted files: " + Files.readString(dryLog.toPath()));
      }
      File log = new File(root, "prune.txt");
      if (Check.run(List.of(tool, "prune", jobDir.getAbsolutePath(), "--keep-last", "1", "--min-orphan-age", "0s", "--yes"), log) != 0) {
        fail("ckpt-tool prune --yes failed: " + Files.readString(log.toPath()));
      }
      TreeSet<String> after = tree(jobDir);
      TreeSet<String> pruned = new TreeSet<>(before);
      pruned.removeAll(after);
      for (File old : checkpoints.subList(0, checkpoints.size() - 1)) {
        if (old.exists()) fail("prune --keep-last 1 kept " + old);
      }
      if (pruned.isEmpty()) fail("prune deleted nothing");
      if (!tree(new File(jobDir, "taskowned")).equals(taskOwned)) fail("prune changed taskowned/");
      long sharedPruned = pruned.stream().filter(p -> p.startsWith("shared/")).count();
      System.out.println(tag + ": prune --keep-last 1 deleted " + pruned.size() + " file(s) (" + sharedPruned
          + " under shared/), kept " + after.size() + "; latest " + latest.getName());

      int n = RemapCheck.restoreAndVerify(mc, c, "v1-", latest, run1, new File(root, "processed-pruned.txt"));
      System.out.println(tag + ": PASS prune: Flink restored " + latest.getName() + " after the prune; " + n
          + " records after it continue every key's count and sum and the source positions (no pruned file was needed)");
    }
    System.exit(0);
  }
}
