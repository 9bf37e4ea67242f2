package ckpt.interop;

import java.io.File;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * What the checks that put a ckpt-tool verdict in front of a real Flink restore share
 * (RemapCheck, RescaleCheck, PruneCheck, ValidateMatrix): the command line ({@code --out DIR
 * --ckpt-tool PATH} plus each check's own options with their defaults), a fresh result directory
 * per Flink version and variant, the MiniCluster configuration, running ckpt-tool, and failing.
 */
final class Check {
  final String name;  // "remap-check": the prefix of every line the check prints
  final File out;
  final String tool;
  final String version = EnvironmentInformation.getVersion();
  private final Map<String, String> options;

  private Check(String name, File out, String tool, Map<String, String> options) {
    this.name = name;
    this.out = out;
    this.tool = tool;
    this.options = options;
  }

  /**
   * Parses {@code args}: {@code --out} and {@code --ckpt-tool} are required; {@code defaults}
   * names the check's other options (without "--") and their values when not given. Fails on an
   * unknown option or a missing required one, printing {@code usage}.
   */
  static Check parse(String name, String usage, String[] args, Map<String, String> defaults) {
    Map<String, String> options = new LinkedHashMap<>(defaults);
    File out = null;
    String tool = null;
    for (int i = 0; i < args.length; i += 2) {
      String flag = args[i];
      if (i + 1 >= args.length) fail(name, flag + " needs a value; usage: " + usage);
      String value = args[i + 1];
      if (flag.equals("--out")) {
        out = new File(value).getAbsoluteFile();
      } else if (flag.equals("--ckpt-tool")) {
        tool = value;
      } else if (flag.startsWith("--") && options.containsKey(flag.substring(2))) {
        options.put(flag.substring(2), value);
      } else {
        fail(name, "unknown argument " + flag + "; usage: " + usage);
      }
    }
    if (out == null || tool == null) fail(name, "usage: " + usage);
    return new Check(name, out, tool, options);
  }

  String option(String key) {
    return options.get(key);
  }

  /** A new directory {@code OUT/<flink version><variant>}; fails if it exists already. */
  File freshRoot(String variant) {
    File root = new File(out, version + variant);
    if (root.exists()) fail(root + " exists");
    root.mkdirs();
    return root;
  }

  /**
   * The MiniCluster configuration of a check: {@code backend}, checkpoints under
   * {@code root/checkpoints} triggered only by the check, no automatic watermarks, {@code slots}
   * task slots and a free REST port.
   */
  static Configuration config(File root, String backend, int slots) {
    Configuration c = new Configuration();
    c.set(StateBackendOptions.STATE_BACKEND, backend);
    c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, new File(root, "checkpoints").toURI().toString());
    c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
    c.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
    c.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
    c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(128));
    c.set(ConfigOptions.key("rest.bind-port").stringType().noDefaultValue(), "0");
    return c;
  }

  /** Adds to {@code c}: every checkpoint retained (up to 50) after the job is cancelled. */
  static void retainCheckpoints(Configuration c) {
    c.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 50);
    c.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        org.apache.flink.configuration.ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
  }

  /** Runs {@code cmd} (ckpt-tool) with its output in {@code log}; its exit code. */
  static int run(List<String> cmd, File log) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("ckpt-tool", String.join(" ", cmd) + " did not finish in 300 s");
    }
    return p.exitValue();
  }

  void fail(String why) {
    fail(name, why);
  }

  static void fail(String name, String why) {
    System.out.println(name + ": FAIL: " + why);
    System.exit(1);
  }
}
