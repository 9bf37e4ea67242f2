package ckpt.interop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;

/** Builds the ground-truth document of one snapshot (schema in the README). */
final class Snap {
  private Snap() {}

  static final class Run {
    final String name;
    final String backend;
    final boolean incremental;
    final boolean changelog;
    final boolean unaligned;

    Run(String name, String backend, boolean incremental, boolean changelog, boolean unaligned) {
      this.name = name;
      this.backend = backend;
      this.incremental = incremental;
      this.changelog = changelog;
      this.unaligned = unaligned;
    }
  }

  static Map<String, Object> header(String version, String kind, String rel, String type, String format,
      Run info, long cp, int phase, String previous) {
    return Json.obj("schema", "ckpt-interop-flink-truth/1", "flink_version", version, "kind", kind,
        "run", info.name, "snapshot", rel, "type", type, "format", format, "backend", info.backend,
        "incremental", info.incremental, "changelog", info.changelog, "unaligned", info.unaligned,
        "checkpoint_id", cp, "phase", phase, "previous", previous);
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x & 0xff));
    return s.toString();
  }

  /** Records reader r emitted, in order (splits r, r+P, ... below the reserved one). */
  static List<Long> emitted(SeqSource src, int parallelism, int reader, long budget) {
    List<Long> out = new ArrayList<>();
    for (SeqSplit s : src.allSplits()) {
      if (s.id == src.splits || s.id % parallelism != reader) continue;
      for (long q = s.start; q < s.end && out.size() < budget; q++) out.add(q);
    }
    return out;
  }

  static Map<String, Object> sourceOperator(SeqSource src, int parallelism, long budget) throws IOException {
    List<Integer> assigned = new ArrayList<>();
    for (int i = 0; i < src.splits; i++) assigned.add(i);
    EnumState es = new EnumState(assigned, List.of(src.splits));
    List<Object> readers = new ArrayList<>();
    List<Object> counts = new ArrayList<>();
    for (int r = 0; r < parallelism; r++) {
      long left = budget;
      List<Object> splits = new ArrayList<>();
      for (SeqSplit s : src.allSplits()) {
        if (s.id == src.splits || s.id % parallelism != r) continue;
        long n = Math.min(left, s.end - s.start);
        left -= n;
        SeqSplit at = s.at(s.start + n);
        splits.add(Json.obj("split", at.splitId(), "start", at.start, "end", at.end, "next", at.next,
            "serialized_hex", hex(new SeqSplitSerializer().serialize(at))));
      }
      counts.add(splits.size());
      readers.add(Json.obj("subtask", r, "emitted", budget, "splits", splits));
    }
    return Json.obj("uid", src.name, "operator_id", MetaInfo.operatorIdOfUid(src.name),
        "parallelism", parallelism, "max_parallelism", Truth.MAX_PARALLELISM,
        "coordinator", Json.obj("enumerator_state", Json.obj("assigned", assigned, "unassigned", List.of(src.splits)),
            "enumerator_serializer_version", 1,
            "enumerator_state_hex", hex(new EnumState.Serializer().serialize(es))),
        "readers", readers,
        "complete_states", List.of(),
        "opaque_states", List.of(Json.obj("state", "SourceReaderState", "kind", "operator-list",
            "entries_per_subtask", counts,
            "note", "SimpleVersionedSerialization of ckpt.interop.SeqSplitSerializer (version 1): readers[].splits[].serialized_hex")),
        "entries", List.of());
  }

  static Map<String, Object> recorded(long cp, String uid, int parallelism, List<String> complete) {
    Map<Integer, List<Map<String, Object>>> bySubtask = Truth.get(cp, uid);
    if (bySubtask == null || bySubtask.size() != parallelism) {
      throw new IllegalStateException("no snapshotState record of " + uid + " for checkpoint " + cp
          + (bySubtask == null ? "" : " (subtasks " + bySubtask.keySet() + ")"));
    }
    List<Object> entries = new ArrayList<>();
    for (List<Map<String, Object>> e : bySubtask.values()) entries.addAll(e);
    return Json.obj("uid", uid, "operator_id", MetaInfo.operatorIdOfUid(uid), "parallelism", parallelism,
        "max_parallelism", Truth.MAX_PARALLELISM, "complete_states", complete, "opaque_states", List.of(),
        "entries", entries);
  }

  static long sumOf(Map<String, Object> op, String state) {
    long n = 0;
    for (Object o : (List<?>) op.get("entries")) {
      Map<?, ?> e = (Map<?, ?>) o;
      if (state.equals(e.get("state"))) n += ((Number) e.get("value")).longValue();
    }
    return n;
  }

  static void check(boolean ok, String what) {
    if (!ok) throw new IllegalStateException("harness self-check failed: " + what);
  }

  static Map<String, Object> mainTruth(String version, String kind, String rel, String type, String format,
      Run info, long cp, int phase, String previous, CheckpointMetadata md) throws IOException {
    int p = Jobs.PARALLELISM;
    long budget = Harness.MAIN_BUDGETS[phase];
    long rulesBudget = Harness.RULES_BUDGETS[phase];
    Map<String, Object> t = header(version, kind, rel, type, format, info, cp, phase, previous);
    List<Object> ops = new ArrayList<>();
    ops.add(sourceOperator(Jobs.MAIN, p, budget));
    ops.add(sourceOperator(Jobs.RULES, 1, rulesBudget));
    Map<String, Object> tagger = recorded(cp, Tagger.UID, p, List.of("tagger-seen", "tagger-max"));
    check(sumOf(tagger, "tagger-seen") == p * budget, "tagger saw " + sumOf(tagger, "tagger-seen") + " records, not " + p * budget);
    ops.add(tagger);
    ops.add(recorded(cp, RulesFn.UID, p, List.of("rules")));
    Map<String, Object> keyed = recorded(cp, KeyedFn.UID, p,
        List.of("count", "sum", "recent", "by-parity", "last", "fired", KeyedFn.TIMERS));
    check(sumOf(keyed, "count") == p * budget, "keyed counted " + sumOf(keyed, "count") + ", not " + p * budget);
    ops.add(keyed);
    ops.add(Json.obj("uid", "seq-of", "operator_id", MetaInfo.operatorIdOfUid("seq-of"), "parallelism", p,
        "max_parallelism", Truth.MAX_PARALLELISM, "complete_states", List.of(), "opaque_states", List.of(),
        "entries", List.of(), "stateless", true));
    long[] fired = new long[1];
    ops.add(windowModel(budget, fired));
    Map<String, Object> results = recorded(cp, Jobs.WindowResults.UID, p, List.of("results-seen"));
    check(sumOf(results, "results-seen") == fired[0],
        "window fired " + sumOf(results, "results-seen") + " results, the model says " + fired[0]);
    ops.add(results);
    ops.add(Json.obj("uid", "file-sink", "operator_id", MetaInfo.operatorIdOfUid("file-sink"), "parallelism", p,
        "max_parallelism", Truth.MAX_PARALLELISM, "complete_states", List.of(), "opaque_states", List.of(),
        "entries", List.of(), "states_asserted", false,
        "note", "FileSink writer (pending and in-progress files): state not asserted"));
    ops.add(Json.obj("uid", "Sink Committer: file-sink", "operator_id", MetaInfo.operatorIdOfUid("Sink Committer: file-sink"),
        "parallelism", p, "max_parallelism", Truth.MAX_PARALLELISM, "complete_states", List.of(),
        "opaque_states", List.of(), "entries", List.of(), "states_asserted", false,
        "note", "FileSink committer (pending committables): state not asserted"));
    t.put("watermark", windowWatermark(budget));
    t.put("operators", ops);
    t.put("metadata", Json.obj("checkpoint_id", cp, "operators", MetaInfo.operators(md)));
    return t;
  }

  /** The watermark every window subtask has seen: min over the main readers of (last ts - 1). */
  static long windowWatermark(long budget) {
    long w = Long.MAX_VALUE;
    for (int r = 0; r < Jobs.PARALLELISM; r++) {
      List<Long> e = emitted(Jobs.MAIN, Jobs.PARALLELISM, r, budget);
      w = Math.min(w, e.isEmpty() ? Long.MIN_VALUE : Rec.tsOf(e.get(e.size() - 1)) - 1);
    }
    return w;
  }

  /**
   * Window state from the source positions: for key seq % 7 and the 1 s tumbling window of its
   * event time, the sum of seqs while the window has not fired (maxTimestamp > watermark), and
   * the window's event-time timer at maxTimestamp (trigger and cleanup timers coincide).
   */
  static Map<String, Object> windowModel(long budget, long[] firedOut) {
    long w = windowWatermark(budget);
    TreeMap<Long, TreeMap<Long, Long>> sums = new TreeMap<>(); // key -> window start -> sum
    for (int r = 0; r < Jobs.PARALLELISM; r++) {
      for (long seq : emitted(Jobs.MAIN, Jobs.PARALLELISM, r, budget)) {
        long ts = Rec.tsOf(seq);
        long start = ts - Math.floorMod(ts, Jobs.WINDOW_MS);
        sums.computeIfAbsent(seq % 7, k -> new TreeMap<>()).merge(start, seq, Long::sum);
      }
    }
    List<Object> entries = new ArrayList<>();
    long fired = 0;
    for (Map.Entry<Long, TreeMap<Long, Long>> ke : sums.entrySet()) {
      Long key = ke.getKey();
      int subtask = Truth.subtaskOf(key, Jobs.PARALLELISM);
      for (Map.Entry<Long, Long> we : ke.getValue().entrySet()) {
        long start = we.getKey();
        long end = start + Jobs.WINDOW_MS;
        if (end - 1 <= w) {
          fired++;
          continue;
        }
        Map<String, Object> ns = Json.obj("start", start, "end", end);
        entries.add(Truth.keyed("window-contents", "reducing", subtask, key, ns, null, false, we.getValue()));
        entries.add(Truth.timer("_timer_state/event_window-timers", subtask, key,
            Json.obj("start", start, "end", end), end - 1));
      }
    }
    firedOut[0] = fired;
    return Json.obj("uid", "window", "operator_id", MetaInfo.operatorIdOfUid("window"),
        "parallelism", Jobs.PARALLELISM, "max_parallelism", Truth.MAX_PARALLELISM,
        "complete_states", List.of("window-contents", "_timer_state/event_window-timers"),
        "opaque_states", List.of(), "entries", entries,
        "note", "computed from the source positions and the watermark; checked against the fired-window count");
  }

  static Map<String, Object> unalignedTruth(String version, String kind, String rel, String type, String format,
      Run info, long cp, int phase, String previous, CheckpointMetadata md) throws IOException {
    int p = Jobs.PARALLELISM;
    long budget = Harness.UNALIGNED_BUDGETS[phase];
    Map<String, Object> t = header(version, kind, rel, type, format, info, cp, phase, previous);
    List<Object> ops = new ArrayList<>();
    ops.add(sourceOperator(Jobs.UNALIGNED, p, budget));
    Map<String, Object> slow = recorded(cp, SlowFn.UID, p, List.of("count"));
    long processed = sumOf(slow, "count");
    check(processed <= p * budget, "slow processed " + processed + " > emitted " + p * budget);
    slow.put("processed_at_snapshot", processed);
    ops.add(slow);
    ops.add(Json.obj("uid", "discard", "operator_id", MetaInfo.operatorIdOfUid("discard"), "parallelism", p,
        "max_parallelism", Truth.MAX_PARALLELISM, "complete_states", List.of(), "opaque_states", List.of(),
        "entries", List.of(), "states_asserted", false));
    t.put("emitted_records", p * budget);
    t.put("in_flight_records", p * budget - processed);
    t.put("operators", ops);
    t.put("metadata", Json.obj("checkpoint_id", cp, "operators", MetaInfo.operators(md)));
    return t;
  }
}
