package ckpt.interop;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Real connector jobs and their snapshots, with the sources' positions and the sinks'
 * transactions / pending files as ground truth (README: "The connector jobs").
 *
 * <p>Usage: ConnectorHarness --out DIR --kafka-classpath FILE [--only kafka,legacy-kafka,files]
 *
 * <p>Per job: one run takes a retained checkpoint, then a canonical savepoint, while the job is
 * mid-stream (the chained {@link Mirror} is paced), and is cancelled; then each snapshot is
 * restored in Flink and the first position each stream reads after the restore must equal the
 * position {@link Mirror} recorded at the barrier (and, for a Kafka checkpoint, the group's
 * committed offset after the completion notification). Writes
 * {@code DIR/<job>-flink<line>-<checkpoint|savepoint>/} = {@code snapshot/} (a copy of the
 * snapshot directory; state is inline in {@code _metadata}) + {@code truth.json}.
 */
public final class ConnectorHarness {
  static final String SCHEMA = "ckpt-interop-flink-positions-truth/1";
  static final int PARALLELISM = 2;
  static final long TIMEOUT_MS = 60_000;
  /** Records per partition of the Kafka input topic (3 partitions). */
  static final long[] KAFKA_RECORDS = {8000, 9000, 10000};
  /** Lines per input file of the file job; every line is LINE_BYTES bytes. */
  static final int[] FILE_LINES = {120, 400, 1500, 1500};
  static final int LINE_BYTES = 16;  // "in-0.txt|000123" + '\n'
  static final long PACE_MICROS = 2000;

  final File out;
  final String version = EnvironmentInformation.getVersion();
  final String line;
  final KafkaBroker broker;

  ConnectorHarness(File out, KafkaBroker broker) {
    this.out = out;
    this.broker = broker;
    String[] v = version.split("\\.");
    this.line = v[0] + "." + v[1];
  }

  static final long T0 = System.nanoTime();

  static void log(String what) {
    System.out.printf("connector-harness [%.1f s]: %s%n", (System.nanoTime() - T0) / 1e9, what);
  }

  static void fail(String why) {
    throw new IllegalStateException("connector-harness: " + why);
  }

  static void await(String what, BooleanSupplier cond) throws InterruptedException {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (!cond.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) fail("timed out after " + TIMEOUT_MS + " ms waiting for " + what);
      Thread.sleep(20);
    }
  }

  static <T> T awaitValue(String what, Supplier<T> probe, java.util.function.Predicate<T> ok) throws InterruptedException {
    return awaitValue(what, probe, ok, String::valueOf);
  }

  /** Polls {@code probe} until {@code ok}; on the deadline fails with {@code describe} of the last value. */
  static <T> T awaitValue(String what, Supplier<T> probe, java.util.function.Predicate<T> ok,
      java.util.function.Function<T, String> describe) throws InterruptedException {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    T last = probe.get();
    while (!ok.test(last)) {
      if (System.currentTimeMillis() > deadline) {
        String seen = describe.apply(last);
        fail("timed out after " + TIMEOUT_MS + " ms waiting for " + what + "; last seen " + (seen.length() > 400 ? seen.substring(0, 400) + "..." : seen));
      }
      Thread.sleep(20);
      last = probe.get();
    }
    return last;
  }

  Configuration config(File runDir) {
    Configuration c = new Configuration();
    c.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, new File(runDir, "checkpoints").toURI().toString());
    c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
    // every state handle inline in _metadata: the snapshot directory can be copied as it is
    c.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("1mb"));
    c.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
    c.set(TaskManagerOptions.NUM_TASK_SLOTS, 8);
    c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(64));
    c.set(ConfigOptions.key("rest.bind-port").stringType().noDefaultValue(), "0");
    Check.retainCheckpoints(c);
    return c;
  }

  interface Graph {
    void build(StreamExecutionEnvironment env, String run, long paceMicros) throws Exception;
  }

  JobGraph graph(Configuration c, Graph g, String run, long pace, File restore) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(PARALLELISM);
    env.setMaxParallelism(128);
    g.build(env, run, pace);
    JobGraph job = env.getStreamGraph().getJobGraph();
    if (restore != null) job.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(restore.getAbsolutePath(), false));
    return job;
  }

  static void cancel(MiniCluster mc, JobID id) throws Exception {
    mc.cancelJob(id).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    Harness.awaitTerminal(mc, id);
  }

  /** A taken snapshot: where Flink wrote it, its id, kind and what the Mirror saw at its barrier. */
  static final class Taken {
    final File dir;
    final long id;
    final String kind;  // checkpoint | savepoint
    final Map<String, Long> next;
    final Map<Integer, Long> since;
    final Map<String, Object> extra = new LinkedHashMap<>();

    Taken(File dir, long id, String kind, Map<String, Long> next, Map<Integer, Long> since) {
      this.dir = dir;
      this.id = id;
      this.kind = kind;
      this.next = next;
      this.since = since;
    }
  }

  Taken checkpoint(MiniCluster mc, JobID id, File runDir, String run) throws Exception {
    long cp = Harness.triggerCheckpoint(mc, id);
    File dir = new File(new File(new File(runDir, "checkpoints"), id.toString()), "chk-" + cp);
    return taken(dir, cp, "checkpoint", run);
  }

  Taken savepoint(MiniCluster mc, JobID id, File runDir, String run) throws Exception {
    String target = new File(runDir, "savepoints").toURI().toString();
    String sp = Harness.retrying(() -> mc.triggerSavepoint(id, target, false, SavepointFormatType.CANONICAL));
    File dir = Harness.uriToFile(sp);
    return taken(dir, MetaInfo.load(dir).getCheckpointId(), "savepoint", run);
  }

  Taken taken(File dir, long cp, String kind, String run) {
    if (!new File(dir, "_metadata").isFile()) fail(kind + " " + dir + " has no _metadata");
    Map<String, Long> next = Mirror.at(run, cp);
    Map<Integer, Long> since = Mirror.SINCE.get(run).get(cp);
    if (next == null || since == null || since.size() != PARALLELISM) {
      fail("the mirror of " + run + " has no record of every subtask at " + kind + " " + cp);
    }
    return new Taken(dir, cp, kind, next, new TreeMap<>(since));
  }

  // ------------------------------------------------------------------ Kafka jobs

  void kafkaJob(MiniCluster mc, String job, boolean legacy) throws Exception {
    String in = job + "-in";
    String outTopic = job + "-out";
    String group = job + "-group";
    String prefix = job + "-tx";
    broker.createTopic(in, KAFKA_RECORDS.length);
    broker.createTopic(outTopic, 1);
    for (int p = 0; p < KAFKA_RECORDS.length; p++) {
      List<String> recs = new ArrayList<>();
      for (long i = 0; i < KAFKA_RECORDS[p]; i++) recs.add("p" + p + "-" + i);
      broker.produce(in, p, recs);
    }
    Graph g = (env, run, pace) -> {
      if (legacy) {
        Method m = Class.forName("ckpt.interop.LegacyKafkaJob").getMethod("build", StreamExecutionEnvironment.class,
            String.class, String.class, String.class, String.class, String.class, String.class, long.class);
        m.invoke(null, env, broker.bootstrap, in, group, outTopic, prefix, run, pace);
      } else {
        ConnectorJobs.kafka(env, broker.bootstrap, in, group, outTopic, prefix, run, pace);
      }
    };
    File runDir = new File(out, "runs/" + job);
    Configuration c = config(runDir);
    String run = job;
    Mirror.reset(run);
    JobGraph jg = graph(c, g, run, PACE_MICROS, null);
    log(job + ": input written, submitting");
    mc.submitJob(jg).get();
    await(job + ": 50 records of every partition read", () -> {
      Map<String, Long> n = Mirror.NEXT.get(run);
      for (int p = 0; p < KAFKA_RECORDS.length; p++) {
        Long v = n.get(in + "-" + p);
        if (v == null || v < 50) return false;
      }
      return true;
    });
    List<Taken> snaps = new ArrayList<>();
    log(job + ": positions before the checkpoint " + new TreeMap<>(Mirror.NEXT.get(run)));
    List<Map<String, Object>> before = broker.transactions(prefix);
    Taken cp = checkpoint(mc, jg.getJobID(), runDir, run);
    log(job + ": checkpoint " + cp.id + " at " + cp.next + "; now " + new TreeMap<>(Mirror.NEXT.get(run)));
    pendingTransactions(job, cp, before, prefix);
    // The source commits the checkpoint's offsets to the group when notified of its completion.
    Map<String, Long> committed = awaitValue(job + ": the group's committed offsets equal to those at checkpoint " + cp.id,
        () -> {
          try {
            return broker.committed(group);
          } catch (Exception e) {
            return Map.of();
          }
        }, m -> m.equals(cp.next));
    cp.extra.put("committed", committed);
    // ... and the sink commits the transactions the checkpoint holds.
    awaitValue(job + ": the transactions of checkpoint " + cp.id + " committed", () -> {
      try {
        return broker.transactions(prefix);
      } catch (Exception e) {
        return List.<Map<String, Object>>of();
      }
    }, now -> committedAll(cp, now));
    snaps.add(cp);
    before = broker.transactions(prefix);
    Taken sp = savepoint(mc, jg.getJobID(), runDir, run);
    pendingTransactions(job, sp, before, prefix);
    snaps.add(sp);
    cancel(mc, jg.getJobID());

    for (Taken t : snaps) {
      for (int p = 0; p < KAFKA_RECORDS.length; p++) {
        Long n = t.next.get(in + "-" + p);
        if (n == null || n <= 0 || n >= KAFKA_RECORDS[p]) {
          fail(job + ": " + t.kind + " " + t.id + " is not mid-stream on partition " + p + " (next offset " + n + " of " + KAFKA_RECORDS[p] + ")");
        }
      }
    }
    // Restore each snapshot, the savepoint first (restoring the checkpoint aborts the
    // transactions opened after it, the savepoint's among them): the first offset read per
    // partition must be the one recorded at the barrier, and every remaining record is read once.
    for (int i = snaps.size() - 1; i >= 0; i--) {
      Taken t = snaps.get(i);
      String rr = job + "-restore-" + t.kind;
      Mirror.reset(rr);
      JobGraph r = graph(c, g, rr, 0, t.dir);
      mc.submitJob(r).get();
      await(rr + ": every remaining record read", () -> {
        Map<String, Long> count = Mirror.COUNT.get(rr);
        for (int p = 0; p < KAFKA_RECORDS.length; p++) {
          Long n = count.get(in + "-" + p);
          if (n == null || n < KAFKA_RECORDS[p] - t.next.get(in + "-" + p)) return false;
        }
        return true;
      });
      cancel(mc, r.getJobID());
      Map<String, Long> first = new TreeMap<>(Mirror.FIRST.get(rr));
      Map<String, Long> count = new TreeMap<>(Mirror.COUNT.get(rr));
      for (int p = 0; p < KAFKA_RECORDS.length; p++) {
        String s = in + "-" + p;
        if (!first.get(s).equals(t.next.get(s)) || count.get(s) != KAFKA_RECORDS[p] - t.next.get(s)) {
          fail(job + ": restored " + t.kind + " " + t.id + " read " + s + " from offset " + first.get(s) + " (" + count.get(s)
              + " records), the snapshot's barrier was at " + t.next.get(s));
        }
      }
      t.extra.put("restored_first", first);
      // End to end, exactly once (checked after the savepoint's restore, the first): the
      // output's committed records are, per input partition, exactly the offsets 0..k-1 with k
      // at least the savepoint's position: the checkpoint's transactions committed on its
      // notification, the savepoint's by this restore (none lost), none twice. (k can exceed the
      // savepoint's position: Flink 2.x restored jobs take a checkpoint of their own soon after
      // the start, which commits what they wrote so far.) Restoring the older checkpoint after
      // it re-emits records by design, so it is not checked this way.
      if (t == snaps.get(snaps.size() - 1)) {
        String[] verdict = new String[1];
        List<String> got = awaitValue(rr + ": the output topic's committed records are the inputs before savepoint " + t.id + " and after it a prefix, once each",
            () -> {
              try {
                return broker.readCommitted(outTopic);
              } catch (Exception e) {
                return List.<String>of();
              }
            }, l -> (verdict[0] = exactlyOnce(l, in, t.next)) == null, l -> verdict[0]);
        t.extra.put("output_committed", (long) got.size());
        log(rr + ": " + got.size() + " committed output records: every input before the savepoint once, then a prefix of each partition");
      }
      log(rr + ": every partition resumed at the recorded offset");
    }
    for (Taken t : snaps) {
      List<Object> parts = new ArrayList<>();
      @SuppressWarnings("unchecked")
      Map<String, Long> committed2 = (Map<String, Long>) t.extra.get("committed");
      @SuppressWarnings("unchecked")
      Map<String, Long> first = (Map<String, Long>) t.extra.get("restored_first");
      for (int p = 0; p < KAFKA_RECORDS.length; p++) {
        String s = in + "-" + p;
        parts.add(Json.obj("topic", in, "partition", p, "next_offset", t.next.get(s),
            "committed_offset", committed2 == null ? null : committed2.get(s),
            "restored_first_offset", first.get(s), "records_in_partition", KAFKA_RECORDS[p]));
      }
      String src = legacy ? "legacy-kafka-source" : "kafka-source";
      String sink = legacy ? "legacy-kafka-sink" : "kafka-sink";
      List<Object> ops = new ArrayList<>();
      ops.add(Json.obj("uid", src, "operator_id", MetaInfo.operatorIdOfUid(src),
          "connector", legacy ? "flink-kafka-consumer" : "kafka-source", "group_id", group, "topic", in,
          "partitions", parts));
      ops.add(Json.obj("uid", sink, "operator_id", MetaInfo.operatorIdOfUid(sink),
          "connector", legacy ? "flink-kafka-producer" : "kafka-sink", "topic", outTopic,
          "transactional_id_prefix", prefix,
          "records_since_previous_snapshot", new ArrayList<>(t.since.values()),
          "pending_transactions", t.extra.get("pending_transactions"),
          "output_committed_records_after_restore", t.extra.get("output_committed"),
          "kafka_transactions_after_completion", t.extra.get("transactions_after_completion")));
      writeTruth(job, t, ops, Json.obj("kafka_broker_version", broker.version, "kafka_connector_version", connectorVersion()));
    }
  }

  /**
   * The transactions a snapshot holds as pre-committed (the sink's committables): those Kafka
   * listed as Ongoing just before the trigger (each subtask's current transaction, which the
   * barrier pre-commits; a transaction opened after the barrier did not exist then), one per
   * subtask that wrote since the previous snapshot. Producer id and epoch as Kafka listed them
   * while open (a commit under transaction version 2 bumps the epoch).
   */
  void pendingTransactions(String job, Taken t, List<Map<String, Object>> before, String prefix) throws Exception {
    List<Map<String, Object>> pending = new ArrayList<>();
    for (Map<String, Object> tx : before) {
      if (tx.get("state").equals("Ongoing")) {
        pending.add(Json.obj("transactional_id", tx.get("transactional_id"), "producer_id", tx.get("producer_id"),
            "epoch", tx.get("epoch")));
      }
    }
    if (pending.size() != rolledFiles(t)) {
      fail(job + ": " + pending.size() + " open transactions before " + t.kind + " " + t.id + " (" + before
          + "), but " + rolledFiles(t) + " subtasks wrote since the previous snapshot");
    }
    t.extra.put("pending_transactions", pending);
    t.extra.put("transactions_after_completion", broker.transactions(prefix));
  }

  /**
   * Null when the committed output {@code l} ("IN-P|OFFSET|VALUE" upper-cased) holds, per input
   * partition, exactly the offsets 0..k-1 once each, with k >= the snapshot's position; else
   * what is wrong.
   */
  static String exactlyOnce(List<String> l, String in, Map<String, Long> next) {
    Map<String, TreeSet<Long>> offsets = new TreeMap<>();
    for (String v : l) {
      String[] f = v.split("\\|");
      if (!offsets.computeIfAbsent(f[0], k -> new TreeSet<>()).add(Long.parseLong(f[1]))) return "record " + v + " committed twice";
    }
    for (int p = 0; p < KAFKA_RECORDS.length; p++) {
      String s = (in + "-" + p).toUpperCase();
      TreeSet<Long> o = offsets.getOrDefault(s, new TreeSet<>());
      long need = next.get(in + "-" + p);
      if (o.size() < need) return s + ": " + o.size() + " records committed, the savepoint stood at " + need;
      if (o.first() != 0 || o.last() != o.size() - 1) return s + ": committed offsets " + o.first() + ".." + o.last() + " have gaps (" + o.size() + " records)";
    }
    if (offsets.size() != KAFKA_RECORDS.length) return "records of unknown partitions: " + offsets.keySet();
    return null;
  }

  /** Every pending transaction of {@code t} committed in Kafka's listing {@code now}. */
  static boolean committedAll(Taken t, List<Map<String, Object>> now) {
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> pending = (List<Map<String, Object>>) t.extra.get("pending_transactions");
    for (Map<String, Object> p : pending) {
      boolean done = false;
      for (Map<String, Object> tx : now) {
        if (tx.get("transactional_id").equals(p.get("transactional_id")) && tx.get("producer_id").equals(p.get("producer_id"))
            && tx.get("state").equals("CompleteCommit")) {
          done = true;
        }
      }
      if (!done) return false;
    }
    return true;
  }

  static String connectorVersion() {
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String n = new File(e).getName();
      if (n.startsWith("flink-connector-kafka-") && n.endsWith(".jar")) return n.substring(22, n.length() - 4);
    }
    return null;
  }

  // ------------------------------------------------------------------ the file job

  static String fileName(int k) {
    return "in-" + k + ".txt";
  }

  void fileJob(MiniCluster mc) throws Exception {
    String job = "file-source-sink";
    File runDir = new File(out, "runs/" + job);
    File inDir = new File(runDir, "input");
    File outDir = new File(runDir, "output");
    inDir.mkdirs();
    outDir.mkdirs();
    for (int k = 0; k < FILE_LINES.length; k++) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < FILE_LINES[k]; i++) sb.append(String.format("%s|%06d%n", fileName(k), i));
      if (sb.length() != FILE_LINES[k] * LINE_BYTES) fail("line width of " + fileName(k) + " is not " + LINE_BYTES);
      // written beside, then renamed in: the monitor never sees a half-written file
      File tmp = new File(runDir, fileName(k) + ".tmp");
      Files.writeString(tmp.toPath(), sb, StandardCharsets.US_ASCII);
      Files.move(tmp.toPath(), new File(inDir, fileName(k)).toPath(), StandardCopyOption.ATOMIC_MOVE);
    }
    Graph g = (env, run, pace) -> ConnectorJobs.files(env, inDir.toURI().toString(), outDir.toURI().toString(), run, pace);
    Configuration c = config(runDir);
    String run = job;
    Mirror.reset(run);
    JobGraph jg = graph(c, g, run, PACE_MICROS, null);
    mc.submitJob(jg).get();
    await(job + ": 300 lines read", () -> Mirror.total(run) >= 300);
    List<Taken> snaps = new ArrayList<>();
    TreeSet<String> finishedBefore = finished(outDir);
    List<String> hiddenBefore = hidden(outDir);
    Taken cp = checkpoint(mc, jg.getJobID(), runDir, run);
    List<String> hiddenCp = hidden(outDir);
    hiddenCp.addAll(hiddenBefore);
    cp.extra.put("hidden_after_completion", hiddenCp);
    // The checkpoint's pending files are committed (renamed to their final names) on its
    // completion notification: one per subtask that wrote since the start.
    int rolled = rolledFiles(cp);
    TreeSet<String> finishedAfter = awaitValue(job + ": " + rolled + " part files committed for checkpoint " + cp.id,
        () -> finished(outDir), s -> s.size() >= finishedBefore.size() + rolled);
    finishedAfter.removeAll(finishedBefore);
    cp.extra.put("pending", finishedAfter);
    snaps.add(cp);
    Taken sp = savepoint(mc, jg.getJobID(), runDir, run);
    sp.extra.put("hidden_after_completion", hidden(outDir));
    snaps.add(sp);
    cancel(mc, jg.getJobID());
    for (Taken t : snaps) {
      boolean mid = false;
      for (int k = 0; k < FILE_LINES.length; k++) {
        Long n = t.next.get(fileName(k));
        if (n != null && n > 0 && n < FILE_LINES[k]) mid = true;
      }
      if (!mid) fail(job + ": " + t.kind + " " + t.id + " has no file half read: " + t.next);
    }
    // Restore the savepoint first: its pending files are committed by the restored committer.
    // The checkpoint's were committed already (on its notification), so its restore adds none.
    for (int i = snaps.size() - 1; i >= 0; i--) {
      Taken t = snaps.get(i);
      String rr = job + "-restore-" + t.kind;
      Mirror.reset(rr);
      TreeSet<String> before = finished(outDir);
      JobGraph r = graph(c, g, rr, 0, t.dir);
      mc.submitJob(r).get();
      await(rr + ": every remaining line read", () -> {
        Map<String, Long> count = Mirror.COUNT.get(rr);
        for (int k = 0; k < FILE_LINES.length; k++) {
          long want = FILE_LINES[k] - t.next.getOrDefault(fileName(k), 0L);
          if (want > 0 && count.getOrDefault(fileName(k), 0L) < want) return false;
        }
        return true;
      });
      if (t.kind.equals("savepoint")) {
        // The savepoint's pending files: committed by the restored job's committer. (The
        // restored job may take checkpoints of its own and commit its own files too; those
        // were not open at the savepoint's completion.)
        @SuppressWarnings("unchecked")
        List<String> open = (List<String>) t.extra.get("hidden_after_completion");
        int expect = rolledFiles(t);
        TreeSet<String> committedByRestore = awaitValue(rr + ": " + expect + " pending part files of savepoint " + t.id + " committed",
            () -> {
              TreeSet<String> s = finished(outDir);
              s.removeAll(before);
              s.removeIf(n -> open.stream().noneMatch(h -> h.startsWith("." + n + ".inprogress.")));
              return s;
            }, s -> s.size() >= expect);
        if (committedByRestore.size() != expect) fail(rr + ": the restore committed " + committedByRestore + ", expected " + expect + " files");
        t.extra.put("pending", committedByRestore);
      }
      cancel(mc, r.getJobID());
      Map<String, Long> first = new TreeMap<>(Mirror.FIRST.get(rr));
      Map<String, Long> count = new TreeMap<>(Mirror.COUNT.get(rr));
      for (int k = 0; k < FILE_LINES.length; k++) {
        String f = fileName(k);
        long n = t.next.getOrDefault(f, 0L);
        long want = FILE_LINES[k] - n;
        boolean ok = want == 0 ? !count.containsKey(f) : first.get(f) == n && count.get(f) == want;
        if (!ok) {
          fail(rr + ": " + f + " read from line " + first.get(f) + " (" + count.get(f) + " lines) after the restore; "
              + "the snapshot's barrier was at line " + n + " of " + FILE_LINES[k]);
        }
      }
      t.extra.put("restored_first", first);
    }
    for (Taken t : snaps) {
      @SuppressWarnings("unchecked")
      Map<String, Long> first = (Map<String, Long>) t.extra.get("restored_first");
      List<Object> files = new ArrayList<>();
      for (int k = 0; k < FILE_LINES.length; k++) {
        String f = fileName(k);
        long n = t.next.getOrDefault(f, 0L);
        String status = n == 0 ? "unstarted" : n == FILE_LINES[k] ? "read-to-end" : "in-progress";
        files.add(Json.obj("path", new File(inDir, f).getAbsolutePath(), "uri", new File(inDir, f).toURI().toString(),
            "name", f, "lines", FILE_LINES[k], "size", (long) FILE_LINES[k] * LINE_BYTES, "status", status,
            "next_line", n, "resume_byte_offset", n * LINE_BYTES, "restored_first_line", first.get(f)));
      }
      @SuppressWarnings("unchecked")
      TreeSet<String> pending = (TreeSet<String>) t.extra.get("pending");
      @SuppressWarnings("unchecked")
      List<String> hiddenNow = (List<String>) t.extra.get("hidden_after_completion");
      List<Object> pend = new ArrayList<>();
      for (String p : pending) {
        String inProgress = null;
        for (String h : hiddenNow) {
          if (h.startsWith("." + p + ".inprogress.")) inProgress = new File(outDir, h).getAbsolutePath();
        }
        pend.add(Json.obj("final_path", new File(outDir, p).getAbsolutePath(), "name", p,
            "in_progress_path", inProgress, "bytes", new File(outDir, p).length()));
      }
      List<Object> ops = new ArrayList<>();
      ops.add(Json.obj("uid", "file-source", "operator_id", MetaInfo.operatorIdOfUid("file-source"),
          "connector", "file-source", "input_dir", inDir.getAbsolutePath(), "line_bytes", LINE_BYTES, "files", files));
      ops.add(Json.obj("uid", "file-sink", "operator_id", MetaInfo.operatorIdOfUid("file-sink"),
          "connector", "file-sink", "output_dir", outDir.getAbsolutePath(),
          "records_since_previous_snapshot", new ArrayList<>(t.since.values()), "pending_files", pend));
      writeTruth(job, t, ops, Json.obj());
    }
  }

  /** Subtasks that wrote since the previous snapshot: each rolls one part file at this one. */
  static int rolledFiles(Taken t) {
    int n = 0;
    for (long v : t.since.values()) if (v > 0) n++;
    return n;
  }

  static TreeSet<String> finished(File dir) {
    TreeSet<String> s = new TreeSet<>();
    String[] names = dir.list();
    if (names != null) for (String n : names) if (!n.startsWith(".")) s.add(n);
    return s;
  }

  static List<String> hidden(File dir) {
    List<String> s = new ArrayList<>();
    String[] names = dir.list();
    if (names != null) for (String n : names) if (n.startsWith(".")) s.add(n);
    s.sort(null);
    return s;
  }

  // ------------------------------------------------------------------ output

  void writeTruth(String job, Taken t, List<Object> ops, Map<String, Object> versions) throws IOException {
    File dir = new File(out, job + "-flink" + line + "-" + t.kind);
    if (dir.exists()) fail(dir + " exists");
    File snap = new File(dir, "snapshot");
    snap.mkdirs();
    String[] names = t.dir.list();
    for (String n : names) {
      File f = new File(t.dir, n);
      if (!f.isFile()) fail(t.kind + " " + t.dir + " holds a directory " + n + ": state not inline");
      Files.copy(f.toPath(), new File(snap, n).toPath());
    }
    CheckpointMetadata md = MetaInfo.load(snap);
    Map<String, Object> truth = Json.obj("schema", SCHEMA, "flink_version", version, "job", job,
        "type", t.kind, "format", t.kind.equals("savepoint") ? "canonical" : null, "checkpoint_id", t.id,
        "snapshot", "snapshot", "original_path", t.dir.getAbsolutePath(), "parallelism", PARALLELISM);
    truth.putAll(versions);
    truth.put("operators", ops);
    truth.put("metadata", Json.obj("checkpoint_id", md.getCheckpointId(), "operators", MetaInfo.operators(md)));
    Files.writeString(new File(dir, "truth.json").toPath(), Json.write(truth) + "\n", StandardCharsets.UTF_8);
    System.out.println("connector-harness [Flink " + version + "]: wrote " + dir);
  }

  public static void main(String[] args) throws Exception {
    File outRoot = null;
    File kafkaCp = null;
    List<String> only = List.of("kafka", "legacy-kafka", "files");
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--out": outRoot = new File(args[i + 1]).getAbsoluteFile(); break;
        case "--kafka-classpath": kafkaCp = new File(args[i + 1]).getAbsoluteFile(); break;
        case "--only": only = List.of(args[i + 1].split(",")); break;
        default: fail("unknown argument " + args[i]);
      }
    }
    if (outRoot == null || kafkaCp == null || args.length % 2 != 0) {
      fail("usage: ConnectorHarness --out DIR --kafka-classpath FILE [--only kafka,legacy-kafka,files]");
    }
    File out = new File(outRoot, EnvironmentInformation.getVersion());
    if (out.exists()) fail(out + " exists");
    out.mkdirs();
    boolean legacyAvailable;
    try {
      Class.forName("ckpt.interop.LegacyKafkaJob");
      legacyAvailable = true;
    } catch (ClassNotFoundException e) {
      legacyAvailable = false;
    }
    int status = 0;
    boolean needKafka = only.contains("kafka") || (only.contains("legacy-kafka") && legacyAvailable);
    try (KafkaBroker broker = needKafka ? KafkaBroker.start(new File(out, "kafka"), kafkaCp) : null;
         MiniCluster mc = Harness.startCluster(new Configuration())) {
      log("Kafka broker " + (broker == null ? "not needed" : broker.version + " at " + broker.bootstrap) + ", MiniCluster up");
      ConnectorHarness h = new ConnectorHarness(out, broker);
      if (only.contains("kafka")) h.kafkaJob(mc, "kafka-source-sink", false);
      if (only.contains("legacy-kafka")) {
        if (legacyAvailable) {
          h.kafkaJob(mc, "legacy-kafka", true);
        } else {
          System.out.println("connector-harness [Flink " + h.version + "]: no legacy FlinkKafkaConsumer/Producer in this line's connector; legacy-kafka not run");
        }
      }
      if (only.contains("files")) h.fileJob(mc);
    } catch (IllegalStateException e) {
      System.out.println("connector-harness: FAIL: " + e.getMessage());
      status = 1;
    }
    System.exit(status);
  }
}
