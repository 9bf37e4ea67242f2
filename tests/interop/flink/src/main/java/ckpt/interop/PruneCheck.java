package ckpt.interop;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    System.out.println("prune-check: FAIL: " + why);
    System.exit(1);
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
    File out = null;
    String tool = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--out": out = new File(args[i + 1]).getAbsoluteFile(); break;
        case "--ckpt-tool": tool = args[i + 1]; break;
        default: fail("unknown argument " + args[i]);
      }
    }
    if (out == null || tool == null) fail("usage: PruneCheck --out DIR --ckpt-tool PATH");
    String version = EnvironmentInformation.getVersion();
    File root = new File(out, version);
    if (root.exists()) fail(root + " exists");
    root.mkdirs();
    String tag = "prune-check [Flink " + version + ", rocksdb incremental]";

    Configuration c = new Configuration();
    c.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, new File(root, "checkpoints").toURI().toString());
    c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
    c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    c.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 50);
    c.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        org.apache.flink.configuration.ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    c.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
    c.set(TaskManagerOptions.NUM_TASK_SLOTS, 8);
    c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
    c.set(ConfigOptions.key("rest.bind-port").stringType().noDefaultValue(), "0");

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
      if (RemapCheck.run(List.of(tool, "prune", jobDir.getAbsolutePath(), "--keep-last", "1", "--min-orphan-age", "0s"), dryLog) != 0
          || !tree(jobDir).equals(before)) {
        fail("ckpt-tool prune (dry run) failed or deleted files: " + Files.readString(dryLog.toPath()));
      }
      File log = new File(root, "prune.txt");
      if (RemapCheck.run(List.of(tool, "prune", jobDir.getAbsolutePath(), "--keep-last", "1", "--min-orphan-age", "0s", "--yes"), log) != 0) {
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
