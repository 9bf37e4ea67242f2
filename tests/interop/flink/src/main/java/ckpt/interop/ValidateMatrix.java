package ckpt.interop;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * `validate --against` checked by real Flink: a snapshot of the base job (m-source -&gt; m-map -&gt;
 * keyBy -&gt; m-keyed (ValueState count) -&gt; m-sink; parallelism 2) is validated against each
 * changed job's spec, and the changed job is restored from it in Flink. ckpt-tool's verdict (exit
 * code and error rule IDs) and Flink's (restored and processing records, or the failure's
 * message) are tabled side by side; they must agree on every row except those marked as out of
 * the job spec's reach (documented in the row). One base snapshot per {@link Base}: a canonical
 * savepoint (every change), an unaligned checkpoint with in-flight data, a RocksDB full
 * checkpoint at max parallelism 4, and a canonical savepoint of the job without uids (operator
 * IDs are Flink's generated hashes, which change with the graph).
 *
 * <p>Usage: ValidateMatrix --out DIR --ckpt-tool PATH [--bases canonical,unaligned,rocksdb-maxp4,no-uids]
 * (default: all). Exit 0 when every row agrees.
 */
public final class ValidateMatrix {
  static final SeqSource SOURCE = RemapCheck.SOURCE;
  static final AtomicLong MAPPED = new AtomicLong();
  static final AtomicLong KEYED = new AtomicLong();
  static volatile boolean slowKeyed;  // the unaligned base: m-keyed pauses per record (backlog)

  public static final class CountingMap implements MapFunction<Rec, Rec> {
    @Override
    public Rec map(Rec r) {
      MAPPED.incrementAndGet();
      return r;
    }
  }

  /** ValueState "count" of Long, or (stateTypeChanged) of String; optionally a second state. */
  public static final class MatrixFn extends KeyedProcessFunction<Long, Rec, Long> {
    final boolean stringCount;
    final boolean extraState;
    private transient ValueState<Object> count;
    private transient ValueState<Long> extra;

    MatrixFn(boolean stringCount, boolean extraState) {
      this.stringCount = stringCount;
      this.extraState = extraState;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void open(OpenContext ctx) {
      ValueStateDescriptor d = stringCount
          ? new ValueStateDescriptor<>("count", String.class)
          : new ValueStateDescriptor<>("count", Long.class);
      count = (ValueState) getRuntimeContext().getState(d);
      if (extraState) extra = getRuntimeContext().getState(new ValueStateDescriptor<>("added", Long.class));
    }

    @Override
    public void processElement(Rec r, Context ctx, Collector<Long> out) throws Exception {
      Object c = count.value();
      if (stringCount) {
        count.update(String.valueOf(c == null ? 1 : Long.parseLong(c.toString()) + 1));
      } else {
        count.update(c == null ? 1L : (Long) c + 1);
      }
      if (extra != null) extra.update(r.seq);
      if (slowKeyed) Thread.sleep(5);
      KEYED.incrementAndGet();
      out.collect(r.seq);
    }
  }

  /** One job change: how the job is built and what the spec says. */
  static final class Variant {
    String name;
    String keyedUid = "m-keyed";
    boolean addFilter;
    boolean removeKeyed;
    boolean allowNonRestored;
    boolean maxParallelismDoubled;
    int keyedParallelism = 2;
    boolean extraState;
    boolean stringCount;
    boolean unchain;
    String outOfReach;  // why ckpt-tool cannot see this change (the row may disagree), or null
    boolean everyBase;  // also run on the unaligned and RocksDB bases (else canonical only)

    Variant(String name) {
      this.name = name;
    }
  }

  /** The snapshot every change of a base restores from. */
  static final class Base {
    final String id;  // for --bases
    final String name;
    final String backend;
    final int maxParallelism;
    final boolean unaligned;   // an unaligned checkpoint taken while m-keyed has a backlog
    final boolean checkpoint;  // a retained checkpoint (else a canonical savepoint)
    final boolean uids;        // false: no uid anywhere, Flink's generated operator hashes

    Base(String id, String name, String backend, int maxParallelism, boolean unaligned, boolean checkpoint, boolean uids) {
      this.id = id;
      this.name = name;
      this.backend = backend;
      this.maxParallelism = maxParallelism;
      this.unaligned = unaligned;
      this.checkpoint = checkpoint;
      this.uids = uids;
    }
  }

  static List<Base> bases() {
    return List.of(
        new Base("canonical", "canonical savepoint", "hashmap", 128, false, false, true),
        new Base("unaligned", "unaligned checkpoint", "hashmap", 128, true, true, true),
        new Base("rocksdb-maxp4", "RocksDB full checkpoint, max parallelism 4", "rocksdb", 4, false, true, true),
        new Base("no-uids", "canonical savepoint, no uids", "hashmap", 128, false, false, false));
  }

  /** The changes of the job without uids: its operator IDs are Flink's generated hashes. */
  static List<Variant> noUidVariants() {
    List<Variant> vs = new ArrayList<>();
    // A job spec names an operator by uid; one without gets the engine's topology-derived ID, not
    // the hash Flink's StreamGraphHasherV2 generates from its own transformation IDs and chaining.
    // So on a job without uids validate --against cannot find the operators whose state Flink
    // maps, and refuses what Flink restores (CKPT-A001 on every stateful operator): documented.
    String generated = "a job spec cannot name Flink's generated operator hashes: its operators without "
        + "uid get the engine's topology-derived IDs, so the snapshot's stateful operators look unmapped";
    Variant u = new Variant("unchanged (generated hashes)");
    u.outOfReach = generated;
    vs.add(u);
    Variant v = new Variant("operator added before keyBy (generated hashes change)");
    v.addFilter = true;
    vs.add(v);
    v = new Variant("operator added before keyBy (generated hashes change), -n");
    v.addFilter = true;
    v.allowNonRestored = true;
    vs.add(v);
    v = new Variant("parallelism changed (generated hashes unchanged)");
    v.keyedParallelism = 3;
    v.outOfReach = generated;
    vs.add(v);
    return vs;
  }

  static List<Variant> variants() {
    List<Variant> vs = new ArrayList<>();
    Variant v = new Variant("unchanged");
    v.everyBase = true;
    vs.add(v);
    v = new Variant("uid changed (m-keyed -> m-keyed-v2)");
    v.keyedUid = "m-keyed-v2";
    v.everyBase = true;
    vs.add(v);
    v = new Variant("uid changed, -n");
    v.keyedUid = "m-keyed-v2";
    v.allowNonRestored = true;
    v.everyBase = true;
    vs.add(v);
    v = new Variant("operator added (stateless m-filter)");
    v.addFilter = true;
    vs.add(v);
    v = new Variant("operator removed (m-keyed)");
    v.removeKeyed = true;
    vs.add(v);
    v = new Variant("operator removed (m-keyed), -n");
    v.removeKeyed = true;
    v.allowNonRestored = true;
    vs.add(v);
    v = new Variant("max parallelism doubled");
    v.maxParallelismDoubled = true;
    v.everyBase = true;
    vs.add(v);
    v = new Variant("parallelism changed (m-keyed, m-sink 2 -> 3)");
    v.keyedParallelism = 3;
    v.everyBase = true;
    vs.add(v);
    v = new Variant("state added (m-keyed registers 'added')");
    v.extraState = true;
    vs.add(v);
    v = new Variant("state type changed ('count' Long -> String)");
    v.stringCount = true;
    v.outOfReach = "a job spec declares no state types: Flink checks serializer compatibility when the "
        + "operator registers the state, which validate --against cannot see (validate --deep reads the "
        + "savepoint's serializers, the new job's are in its code)";
    vs.add(v);
    v = new Variant("chaining changed (m-map starts a new chain)");
    v.unchain = true;
    v.everyBase = true;
    vs.add(v);
    return vs;
  }

  static int maxParallelism(Base b, Variant v) {
    return v.maxParallelismDoubled ? 2 * b.maxParallelism : b.maxParallelism;
  }

  /** `op` with uid `uid` when the base job sets uids; without, Flink hashes its graph position. */
  static <T> SingleOutputStreamOperator<T> uid(Base b, SingleOutputStreamOperator<T> op, String uid) {
    return b.uids ? op.uid(uid) : op;
  }

  static JobGraph job(Configuration c, Base b, Variant v, String savepoint) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(2);
    env.setMaxParallelism(maxParallelism(b, v));
    SingleOutputStreamOperator<Rec> src = uid(b, env.fromSource(SOURCE, Jobs.watermarks(), "m-source"), "m-source");
    SingleOutputStreamOperator<Rec> mapped = uid(b, src.map(new CountingMap()), "m-map").name("m-map");
    if (v.unchain) mapped = mapped.startNewChain();
    DataStream<Rec> s = mapped;
    if (v.addFilter) s = uid(b, s.filter(r -> true), "m-filter").name("m-filter");
    if (v.removeKeyed) {
      var sink = uid(b, s.map(r -> r.seq).returns(Types.LONG), "m-tail").name("m-tail")
          .sinkTo(new DiscardingSink<>()).name("m-sink");
      if (b.uids) sink.uid("m-sink");
    } else {
      var sink = uid(b, s.keyBy(r -> r.seq % 16, Types.LONG)
          .process(new MatrixFn(v.stringCount, v.extraState)), v.keyedUid).name(v.keyedUid)
          .setParallelism(v.keyedParallelism)
          .sinkTo(new DiscardingSink<>()).name("m-sink").setParallelism(v.keyedParallelism);
      if (b.uids) sink.uid("m-sink");
    }
    JobGraph g = env.getStreamGraph().getJobGraph();
    if (savepoint != null) {
      g.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, v.allowNonRestored));
    }
    return g;
  }

  /** The job spec of `v`, as docs/job-spec.md describes a Flink job for validate --against. */
  static String spec(Base b, Variant v) {
    StringBuilder ops = new StringBuilder();
    StringBuilder edges = new StringBuilder();
    ops.append("{\"id\": \"m-source\", \"kind\": \"flink\", \"uid\": \"m-source\"}");
    ops.append(", {\"id\": \"m-map\", \"kind\": \"flink\", \"uid\": \"m-map\"}");
    edges.append("{\"from\": \"m-source\", \"to\": \"m-map\", \"partitioning\": \"FORWARD\"}");
    String last = "m-map";
    if (v.addFilter) {
      ops.append(", {\"id\": \"m-filter\", \"kind\": \"flink\", \"uid\": \"m-filter\"}");
      edges.append(", {\"from\": \"m-map\", \"to\": \"m-filter\", \"partitioning\": \"FORWARD\"}");
      last = "m-filter";
    }
    if (v.removeKeyed) {
      ops.append(", {\"id\": \"m-tail\", \"kind\": \"flink\", \"uid\": \"m-tail\"}");
      ops.append(", {\"id\": \"m-sink\", \"kind\": \"flink\", \"uid\": \"m-sink\"}");
      edges.append(", {\"from\": \"" + last + "\", \"to\": \"m-tail\", \"partitioning\": \"FORWARD\"}");
      edges.append(", {\"from\": \"m-tail\", \"to\": \"m-sink\", \"partitioning\": \"FORWARD\"}");
    } else {
      ops.append(", {\"id\": \"keyed\", \"kind\": \"flink\", \"uid\": \"" + v.keyedUid + "\", \"parallelism\": "
          + v.keyedParallelism + "}");
      ops.append(", {\"id\": \"m-sink\", \"kind\": \"flink\", \"uid\": \"m-sink\", \"parallelism\": "
          + v.keyedParallelism + "}");
      edges.append(", {\"from\": \"" + last + "\", \"to\": \"keyed\", \"partitioning\": \"HASH\"}");
      edges.append(", {\"from\": \"keyed\", \"to\": \"m-sink\", \"partitioning\": \"FORWARD\"}");
    }
    String operators = ops.toString();
    // The job without uids: its spec has none either (a spec cannot name generated hashes).
    if (!b.uids) operators = operators.replaceAll(", \"uid\": \"[^\"]*\"", "");
    return "{\"name\": \"validate-matrix\", \"parallelism\": 2, \"max_parallelism\": " + maxParallelism(b, v)
        + ", \"operators\": [" + operators + "], \"edges\": [" + edges + "]}\n";
  }

  static void fail(String why) {
    Check.fail("validate-matrix", why);
  }

  public static void main(String[] args) throws Exception {
    String all = String.join(",", bases().stream().map(b -> b.id).toList());
    Check check = Check.parse("validate-matrix", "ValidateMatrix --out DIR --ckpt-tool PATH [--bases " + all + "]",
        args, Map.of("bases", all));
    List<String> chosen = List.of(check.option("bases").split(","));
    for (String id : chosen) {
      if (bases().stream().noneMatch(b -> b.id.equals(id))) fail("unknown base " + id + "; bases: " + all);
    }
    String tool = check.tool;
    File root = check.freshRoot("");
    String tag = "validate-matrix [Flink " + check.version + "]";

    List<String> table = new ArrayList<>();
    int disagreements = 0;
    int rows = 0;
    int n = 0;
    for (Base b : bases()) {
      if (!chosen.contains(b.id)) continue;
      Configuration c = Check.config(root, b.backend, 16);
      // A failed restore fails the job at once instead of restarting forever.
      c.set(ConfigOptions.key("restart-strategy.type").stringType().noDefaultValue(), "none");
      c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, false);
      if (b.unaligned) {
        c.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        c.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ZERO);
      }
      if (b.checkpoint) Check.retainCheckpoints(c);
      try (MiniCluster mc = Harness.startCluster(c)) {
        File snapshot = baseSnapshot(mc, c, b, root);
        System.out.println(tag + ": base " + b.name + ": " + snapshot);
        table.add("base: " + b.name + " (" + snapshot + ")");
        // Every base snapshot Flink wrote validates clean.
        File deepLog = new File(root, "base-" + b.id + ".validate-deep.txt");
        int deep = Check.run(List.of(tool, "validate", "--deep", snapshot.getAbsolutePath()), deepLog);
        rows++;
        if (deep != 0) {
          disagreements++;
          table.add("validate --deep of the base: exit " + deep + " | DISAGREE (Flink wrote it; see " + deepLog + ")");
          System.out.println(tag + ": [" + b.name + "] validate --deep exit " + deep + ": "
              + Files.readString(deepLog.toPath()));
        } else {
          System.out.println(tag + ": [" + b.name + "] validate --deep exit 0");
        }
        List<Variant> vs = b.uids ? variants() : noUidVariants();
        for (Variant v : vs) {
          if (b.uids && !v.everyBase && (b.unaligned || b.checkpoint)) continue;
          File specFile = new File(root, "job-" + (n++) + ".json");
          Files.write(specFile.toPath(), spec(b, v).getBytes(StandardCharsets.UTF_8));
          List<String> cmd = new ArrayList<>(List.of(tool, "validate", snapshot.getAbsolutePath(), "--against",
              specFile.getAbsolutePath(), "--format", "json"));
          if (v.allowNonRestored) cmd.add("-n");
          File log = new File(root, specFile.getName() + ".validate.txt");
          int rc = Check.run(cmd, log);
          TreeSet<String> rules = new TreeSet<>();
          Matcher m = Pattern.compile("\"rule\":\"(CKPT-[A-Z0-9]+)\",\"severity\":\"error\"")
              .matcher(Files.readString(log.toPath()));
          while (m.find()) rules.add(m.group(1));
          boolean ckptOk = rc == 0;
          if (rc != 0 && rc != 1) fail(v.name + ": ckpt-tool validate exited " + rc + ": " + Files.readString(log.toPath()));

          String flink = restore(mc, c, b, v, snapshot);
          boolean flinkOk = flink == null;
          boolean agree = ckptOk == flinkOk;
          rows++;
          if (!agree && v.outOfReach == null) disagreements++;
          String verdict = ckptOk ? "safe (exit 0)" : "unsafe (exit " + rc + ", " + String.join(",", rules) + ")";
          String row = String.format("%-60s | ckpt-tool: %-34s | Flink: %-60s | %s", v.name, verdict,
              flinkOk ? "restored, processing records" : "refused: " + abbreviate(flink),
              agree ? "AGREE" : (v.outOfReach != null ? "DISAGREE (documented: " + v.outOfReach + ")" : "DISAGREE"));
          table.add(row);
          System.out.println(tag + ": [" + b.name + "] " + row);
        }
      }
    }
    Files.write(new File(root, "matrix.txt").toPath(), (String.join("\n", table) + "\n").getBytes(StandardCharsets.UTF_8));
    System.out.println(tag + ": " + rows + " rows over " + chosen.size() + " base snapshots, " + disagreements
        + " undocumented disagreement(s)");
    if (disagreements > 0) fail(disagreements + " row(s) where ckpt-tool validate --against and Flink disagree");
    System.out.println(tag + ": PASS: ckpt-tool's verdict agrees with Flink's restore on every row that a job spec can express");
    System.exit(0);
  }

  /**
   * Runs the base job of `b` and takes its snapshot: a canonical savepoint after 40 records per
   * reader, or a checkpoint (the unaligned one while m-keyed, slowed, still has a backlog).
   */
  static File baseSnapshot(MiniCluster mc, Configuration c, Base b, File root) throws Exception {
    Control.reset();
    slowKeyed = b.unaligned;
    JobGraph g0 = job(c, b, new Variant("base"), null);
    mc.submitJob(g0).get();
    File snapshot;
    try {
      if (b.unaligned) {
        KEYED.set(0);
        Control.setBudget(SOURCE.name, 300);  // 4 splits of 200: at most 400 per reader
        Control.awaitAtBudget(SOURCE.name, 2, Harness.TIMEOUT_MS);
        if (KEYED.get() >= 600) fail("the unaligned base has no backlog (m-keyed kept up)");
      } else {
        Control.setBudget(SOURCE.name, 40);
        Control.awaitAtBudget(SOURCE.name, 2, Harness.TIMEOUT_MS);
      }
      if (b.checkpoint) {
        long cp = Harness.triggerCheckpoint(mc, g0.getJobID());
        snapshot = new File(new File(new File(root, "checkpoints"), g0.getJobID().toString()), "chk-" + cp);
      } else {
        String sp = Harness.retrying(() -> mc.triggerSavepoint(g0.getJobID(),
            new File(root, "savepoints").toURI().toString(), false, SavepointFormatType.CANONICAL));
        snapshot = Harness.uriToFile(sp);
      }
    } finally {
      slowKeyed = false;
    }
    mc.cancelJob(g0.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
    Harness.awaitTerminal(mc, g0.getJobID());
    return snapshot;
  }

  /** The most telling line of a failure: the deepest cause that names the reason. */
  static String abbreviate(String why) {
    String line = RemapCheck.firstLine(why);
    for (String l : why.split("\n")) {
      if (l.contains("parallelism") || l.contains("Cannot map") || l.contains("incompatible")
          || l.contains("Migration") || l.contains("no operator")) {
        line = l;
      }
    }
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }

  /** Restores `v` from `savepoint`: null once it processes records after the restore, else why not. */
  static String restore(MiniCluster mc, Configuration c, Base b, Variant v, File savepoint) throws Exception {
    Control.reset();
    MAPPED.set(0);
    KEYED.set(0);
    JobGraph g = job(c, b, v, savepoint.getAbsolutePath());
    try {
      mc.submitJob(g).get();
    } catch (Exception e) {
      return RemapCheck.causes(e);
    }
    Control.setBudget(SOURCE.name, 20);
    long deadline = System.currentTimeMillis() + Harness.TIMEOUT_MS;
    String why = null;
    while (true) {
      JobStatus s = mc.getJobStatus(g.getJobID()).get();
      if (s.isGloballyTerminalState()) {
        var r = mc.requestJobResult(g.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
        why = r.getSerializedThrowable().isPresent()
            ? RemapCheck.causes(r.getSerializedThrowable().get().deserializeError(ValidateMatrix.class.getClassLoader()))
            : "the job ended " + s;
        break;
      }
      // Records flowed through every subtask of the source after the restore: the job runs.
      // (and through the keyed operator, whose restore is where a state mismatch fails).
      if (MAPPED.get() >= 40 && (v.removeKeyed || KEYED.get() >= 40) && s == JobStatus.RUNNING) break;
      if (System.currentTimeMillis() > deadline) {
        why = "neither running with records nor failed after " + Harness.TIMEOUT_MS + " ms (status " + s + ")";
        break;
      }
      Thread.sleep(10);
    }
    if (why == null) {
      mc.cancelJob(g.getJobID()).get(Harness.TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Harness.awaitTerminal(mc, g.getJobID());
    }
    return why;
  }
}
