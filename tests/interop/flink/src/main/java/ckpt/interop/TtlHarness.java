package ckpt.interop;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Snapshots of a keyed job with TTL state, with the ground truth of what was written and when
 * (fixtures/flink-ttl/README.md).
 *
 * <p>Usage: TtlHarness --out DIR [--backends hashmap,rocksdb]
 *        TtlHarness --verify SCRATCH FIXTURE_DIR...
 *
 * <p>Per backend: {@code ttl-source} (FLIP-27, parallelism 1, 50 records) -> keyBy (seq < 20:
 * "a-NN", else "b-NN") -> {@link TtlFn} {@code ttl-keyed} (parallelism 2, max parallelism 128)
 * -> {@code ttl-discard}. Batch A (20 records) is emitted and processed; the driver waits until
 * the wall clock has passed batch A's last write by {@link #GAP_MS}; then batch B (30 records).
 * Then a retained checkpoint (full, not incremental) and a canonical savepoint, and the job is
 * cancelled. Writes {@code DIR/ttl-<backend>-flink<line>-<checkpoint|savepoint>/} =
 * {@code snapshot/} (a copy of the snapshot directory) + {@code truth.json}.
 *
 * <p>{@code --verify}: restores each fixture's {@code snapshot/} (state inline in
 * {@code _metadata}, so it restores from wherever it lies) into {@link TtlProbeFn}, whose TTL is
 * chosen so that Flink's own expiry check finds batch A expired and batch B alive (and the
 * plain state of both present); fails naming every key that differs.
 */
public final class TtlHarness {
  static final String SCHEMA = "ckpt-interop-flink-ttl-truth/1";
  static final String SOURCE = "ttl-source";
  static final long RECORDS = 50;
  static final int PARALLELISM = 2;
  static final long GAP_MS = 2500;
  static final long TIMEOUT_MS = 60_000;

  final File out;
  final String version = EnvironmentInformation.getVersion();
  final String line;

  TtlHarness(File out) {
    this.out = out;
    String[] v = version.split("\\.");
    this.line = v[0] + "." + v[1];
  }

  static void log(String what) {
    System.out.println("ttl-harness: " + what);
  }

  static void fail(String why) {
    throw new IllegalStateException("ttl-harness: " + why);
  }

  /** Polls {@code cond} every 20 ms until it holds; fails after TIMEOUT_MS naming {@code what}. */
  static void await(String what, java.util.function.BooleanSupplier cond) throws InterruptedException {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (!cond.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) fail("timed out after " + TIMEOUT_MS + " ms waiting for " + what);
      Thread.sleep(20);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length >= 3 && args[0].equals("--verify")) {
      TtlHarness h = new TtlHarness(new File(args[1]));
      for (int i = 2; i < args.length; i++) h.verify(new File(args[i]));
      log("done");
      System.exit(0);
    }
    File out = null;
    String backends = "hashmap,rocksdb";
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--out") && i + 1 < args.length) out = new File(args[++i]);
      else if (args[i].equals("--backends") && i + 1 < args.length) backends = args[++i];
      else fail("unknown argument " + args[i] + "; usage: TtlHarness --out DIR [--backends hashmap,rocksdb]");
    }
    if (out == null) fail("usage: TtlHarness --out DIR [--backends hashmap,rocksdb]");
    TtlHarness h = new TtlHarness(out);
    for (String b : backends.split(",")) h.run(b);
    log("done");
    System.exit(0);
  }

  void run(String backend) throws Exception {
    String name = "ttl-" + backend + "-flink" + line;
    File runDir = new File(out, "scratch/" + name);
    Configuration c = Check.config(runDir, backend, 8);
    Check.retainCheckpoints(c);
    c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, false);
    // heap state inline in _metadata; RocksDB's SST files stay files in chk-N
    c.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("1mb"));
    Control.reset();
    TtlFn.MIRROR.remove(name);

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(PARALLELISM);
    env.setMaxParallelism(Truth.MAX_PARALLELISM);
    // one split of RECORDS seqs (plus SeqSource's reserved, never assigned split)
    SeqSource src = new SeqSource(SOURCE, 1, 0, RECORDS);
    env.fromSource(src, Jobs.watermarks(), SOURCE).uid(SOURCE).setParallelism(1)
        .keyBy(r -> TtlFn.keyOf(r.seq), org.apache.flink.api.common.typeinfo.Types.STRING)
        .process(new TtlFn(name)).uid(TtlFn.UID).name(TtlFn.UID)
        .sinkTo(new DiscardingSink<>()).uid("ttl-discard").name("ttl-discard");
    JobGraph job = env.getStreamGraph().getJobGraph();

    try (MiniCluster mc = Harness.startCluster(c)) {
      JobID id = job.getJobID();
      mc.submitJob(job).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Map<String, TtlFn.Written> w = TtlFn.mirror(name);
      Control.setBudget(SOURCE, TtlFn.BATCH_A);
      await("batch A written", () -> w.size() == TtlFn.BATCH_A);
      long aEnd = w.values().stream().mapToLong(x -> x.afterMs).max().getAsLong();
      // batch B's timestamps must lie clearly after batch A's: wait for the clock to pass
      await("the wall clock to pass batch A's last write + " + GAP_MS + " ms",
          () -> System.currentTimeMillis() > aEnd + GAP_MS);
      Control.setBudget(SOURCE, RECORDS);
      await("batch B written", () -> w.size() == RECORDS);
      Control.awaitAtBudget(SOURCE, 1, TIMEOUT_MS);

      long cp = Harness.triggerCheckpoint(mc, id);
      File cpDir = new File(new File(new File(runDir, "checkpoints"), id.toString()), "chk-" + cp);
      String target = new File(runDir, "savepoints").toURI().toString();
      String sp = Harness.retrying(() -> mc.triggerSavepoint(id, target, false, SavepointFormatType.CANONICAL));
      File spDir = Harness.uriToFile(sp);
      if (w.size() != RECORDS) fail("keys written after batch B: " + w.size());
      mc.cancelJob(id).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Harness.awaitTerminal(mc, id);

      TreeMap<String, TtlFn.Written> written = TtlFn.written(name);
      write(name + "-checkpoint", cpDir, "checkpoint", null, backend, written);
      write(name + "-savepoint", spDir, "savepoint", "canonical", backend, written);
    }
  }

  static long field(String json, String pattern, String fixture) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(pattern).matcher(json);
    if (!m.find()) fail(fixture + "/truth.json: no match for " + pattern);
    return Long.parseLong(m.group(1));
  }

  void verify(File fixture) throws Exception {
    String name = fixture.getName();
    String truth = new String(Files.readAllBytes(new File(fixture, "truth.json").toPath()), StandardCharsets.UTF_8);
    java.util.regex.Matcher bm = java.util.regex.Pattern.compile("\"backend\": \"(\\w+)\"").matcher(truth);
    if (!bm.find()) fail(name + "/truth.json: no backend");
    String backend = bm.group(1);
    long aMax = field(truth, "\"batch\": \"A\",\\s*\"keys\": \\d+,\\s*\"min_before_write_ms\": \\d+,\\s*\"max_after_write_ms\": (\\d+)", name);
    long bMin = field(truth, "\"batch\": \"B\",\\s*\"keys\": \\d+,\\s*\"min_before_write_ms\": (\\d+)", name);
    String run = "verify-" + name;
    File runDir = new File(out, run);
    Configuration c = Check.config(runDir, backend, 8);
    Control.reset();
    TtlProbeFn.RESULTS.remove(run);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(PARALLELISM);
    env.setMaxParallelism(Truth.MAX_PARALLELISM);
    SeqSource probe = new SeqSource("ttl-probe", 1, 0, RECORDS);
    env.fromSource(probe, Jobs.watermarks(), "ttl-probe").uid("ttl-probe").setParallelism(1)
        .keyBy(r -> TtlFn.keyOf(r.seq), org.apache.flink.api.common.typeinfo.Types.STRING)
        .process(new TtlProbeFn(run, aMax, bMin)).uid(TtlFn.UID).name(TtlFn.UID)
        .sinkTo(new DiscardingSink<>()).uid("ttl-discard").name("ttl-discard");
    JobGraph job = env.getStreamGraph().getJobGraph();
    // the old ttl-source's state has no operator here: allow non-restored state
    job.setSavepointRestoreSettings(org.apache.flink.runtime.jobgraph.SavepointRestoreSettings.forPath(
        new File(fixture, "snapshot").getAbsolutePath(), true));
    Control.setBudget("ttl-probe", RECORDS);
    try (MiniCluster mc = Harness.startCluster(c)) {
      JobID id = job.getJobID();
      mc.submitJob(job).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Map<String, String> res = TtlProbeFn.results(run);
      await(name + ": every key probed", () -> res.size() == RECORDS);
      mc.cancelJob(id).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      Harness.awaitTerminal(mc, id);
      StringBuilder bad = new StringBuilder();
      for (Map.Entry<String, String> e : new TreeMap<>(res).entrySet()) {
        if (!e.getValue().isEmpty()) bad.append("\n  ").append(e.getKey()).append(": ").append(e.getValue());
      }
      if (bad.length() > 0) fail(name + ": restored in Flink, the probe found" + bad);
      log(name + ": restored in Flink; batch A's TTL entries expired, batch B's alive, plain-value of all 50 keys present");
    }
  }

  void write(String fixture, File snap, String type, String format, String backend,
      TreeMap<String, TtlFn.Written> written) throws IOException {
    File dir = new File(out, fixture);
    File copy = new File(dir, "snapshot");
    copyTree(snap.toPath(), copy.toPath());
    CheckpointMetadata md = MetaInfo.load(snap);

    List<Object> keys = new ArrayList<>();
    List<Object> entries = new ArrayList<>();
    Map<String, long[]> batches = new TreeMap<>();  // batch -> {min before, max after, keys}
    for (Map.Entry<String, TtlFn.Written> e : written.entrySet()) {
      String key = e.getKey();
      TtlFn.Written x = e.getValue();
      String batch = x.seq < TtlFn.BATCH_A ? "A" : "B";
      int sub = Truth.subtaskOf(key, PARALLELISM);
      if (sub != x.subtask) fail("key " + key + " written by subtask " + x.subtask + ", Flink's assignment says " + sub);
      long[] b = batches.computeIfAbsent(batch, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 0});
      b[0] = Math.min(b[0], x.beforeMs);
      b[1] = Math.max(b[1], x.afterMs);
      b[2]++;
      int nMap = TtlFn.mapEntries(x.seq);
      int nList = TtlFn.listEntries(x.seq);
      keys.add(Json.obj("key", key, "batch", batch, "seq", x.seq, "subtask", sub,
          "key_group", Truth.keyGroup(key), "min_before_write_ms", x.beforeMs,
          "max_after_write_ms", x.afterMs, "ttl-value", 1, "ttl-map", nMap, "ttl-list", nList,
          "plain-value", 1));
      entries.add(Truth.keyed("ttl-value", "value", sub, key, null, null, false, x.seq));
      for (int j = 0; j < nMap; j++) {
        entries.add(Truth.keyed("ttl-map", "map", sub, key, null, "m-" + j, true, x.seq * 100 + j));
      }
      List<Long> list = new ArrayList<>();
      for (int j = 0; j < nList; j++) list.add(x.seq * 1000 + j);
      entries.add(Truth.keyed("ttl-list", "list", sub, key, null, null, false, list));
      entries.add(Truth.keyed("plain-value", "value", sub, key, null, null, false, x.seq));
    }
    List<Object> batchList = new ArrayList<>();
    for (Map.Entry<String, long[]> e : batches.entrySet()) {
      long[] b = e.getValue();
      batchList.add(Json.obj("batch", e.getKey(), "keys", b[2], "min_before_write_ms", b[0], "max_after_write_ms", b[1]));
    }
    long gap = batches.get("B")[0] - batches.get("A")[1];
    if (gap < GAP_MS) fail("batch B started " + gap + " ms after batch A ended, want >= " + GAP_MS);
    // RocksDB's native checkpoint holds Snappy-compressed SST blocks: nothing to scan there.
    if (!(backend.equals("rocksdb") && type.equals("checkpoint"))) {
      long expected = 0;
      for (TtlFn.Written x : written.values()) expected += 1 + TtlFn.mapEntries(x.seq) + TtlFn.listEntries(x.seq);
      checkTimestamps(fixture, copy.toPath(), batches.get("A"), batches.get("B"), expected);
    }

    Map<String, Object> truth = Json.obj(
        "schema", SCHEMA, "flink_version", version, "fixture", fixture,
        "type", type, "format", format, "backend", backend, "incremental", false,
        "checkpoint_id", md.getCheckpointId(), "original_path", snap.getAbsolutePath(),
        "ttl", Json.obj("ttl_ms", TtlFn.TTL_MS, "update_type", "OnCreateAndWrite",
            "state_visibility", "NeverReturnExpired", "time_characteristic", "ProcessingTime",
            "cleanup_in_background", false, "cleanup_full_snapshot", false,
            "time_provider", "System.currentTimeMillis()"),
        "operator", Json.obj("uid", TtlFn.UID, "operator_id", MetaInfo.operatorIdOfUid(TtlFn.UID),
            "parallelism", PARALLELISM, "max_parallelism", Truth.MAX_PARALLELISM, "key_type", "String"),
        "states", List.of(
            Json.obj("state", "ttl-value", "kind", "value", "ttl", true, "value_type", "Long"),
            Json.obj("state", "ttl-map", "kind", "map", "ttl", true, "user_key_type", "String", "value_type", "Long"),
            Json.obj("state", "ttl-list", "kind", "list", "ttl", true, "value_type", "Long"),
            Json.obj("state", "plain-value", "kind", "value", "ttl", false, "value_type", "Long")),
        "batches", batchList,
        "gap_ms", gap,
        "keys", keys,
        "entries", entries,
        "metadata", Json.obj("checkpoint_id", md.getCheckpointId(), "operators", MetaInfo.operators(md)));
    Files.write(new File(dir, "truth.json").toPath(), (Json.write(truth) + "\n").getBytes(StandardCharsets.UTF_8));
    log("wrote " + dir + " (" + written.size() + " keys, gap " + gap + " ms)");
  }

  /**
   * Self-check of an uncompressed snapshot: every 8-byte big-endian value within 10 s of the
   * writes (a TTL last-access timestamp; nothing else in the job's state is near the epoch-ms
   * clock) lies inside batch A's or batch B's interval, and there are exactly as many as TTL
   * entries were written (value 1 + map entries + list elements per key).
   */
  static void checkTimestamps(String fixture, Path snapshot, long[] a, long[] b, long expected) throws IOException {
    long found = 0;
    try (Stream<Path> s = Files.walk(snapshot)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        if (!Files.isRegularFile(p)) continue;
        byte[] d = Files.readAllBytes(p);
        for (int i = 0; i + 8 <= d.length; i++) {
          long v = 0;
          for (int j = 0; j < 8; j++) v = (v << 8) | (d[i + j] & 0xff);
          if (v < a[0] - 10_000 || v > b[1] + 10_000) continue;
          if (!(v >= a[0] && v <= a[1]) && !(v >= b[0] && v <= b[1])) {
            fail(fixture + ": " + p.getFileName() + " offset " + i + " holds " + v + ", outside both batches' intervals");
          }
          found++;
        }
      }
    }
    if (found != expected) fail(fixture + ": " + found + " TTL timestamps in the snapshot, " + expected + " TTL entries written");
    log(fixture + ": " + found + " TTL timestamps, all inside their batches' intervals");
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) Files.createDirectories(t);
        else Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }
}
