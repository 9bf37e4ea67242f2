package ckpt.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * What each function held when it was snapshotted: the functions keep a plain-Java mirror of
 * every state they write and copy it here from snapshotState (called in the task thread at the
 * barrier), so the record is exact whatever the timing. Keyed by checkpoint id, operator uid and
 * subtask.
 */
public final class Truth {
  public static final int MAX_PARALLELISM = 128;

  /** checkpointId -> uid -> subtask -> entries (dump-shaped objects). */
  private static final Map<Long, Map<String, Map<Integer, List<Map<String, Object>>>>> recorded =
      new ConcurrentHashMap<>();

  private Truth() {}

  public static void reset() {
    recorded.clear();
  }

  public static void record(long checkpointId, String uid, int subtask, List<Map<String, Object>> entries) {
    recorded
        .computeIfAbsent(checkpointId, k -> new ConcurrentHashMap<>())
        .computeIfAbsent(uid, k -> new ConcurrentHashMap<>())
        .put(subtask, new ArrayList<>(entries));
  }

  /** Entries of one operator at one checkpoint, subtask by subtask; null if never recorded. */
  public static Map<Integer, List<Map<String, Object>>> get(long checkpointId, String uid) {
    Map<String, Map<Integer, List<Map<String, Object>>>> byUid = recorded.get(checkpointId);
    if (byUid == null || !byUid.containsKey(uid)) return null;
    return new TreeMap<>(byUid.get(uid));
  }

  public static int keyGroup(Object key) {
    return KeyGroupRangeAssignment.assignToKeyGroup(key, MAX_PARALLELISM);
  }

  public static int subtaskOf(Object key, int parallelism) {
    return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
        MAX_PARALLELISM, parallelism, keyGroup(key));
  }

  /** A keyed-state entry, shaped like one line of `ckpt-tool dump --format json`. */
  public static Map<String, Object> keyed(
      String state, String kind, int subtask, Object key, Object namespace, Object userKey,
      boolean hasUserKey, Object value) {
    Map<String, Object> e = Json.obj("state", state, "kind", kind, "subtask", subtask,
        "key_group", keyGroup(key), "key", key, "namespace", namespace);
    if (hasUserKey) e.put("user_key", userKey);
    e.put("value", value);
    return e;
  }

  /** A timer entry, shaped like a dump line (kind "timers", the timer's "timestamp", no value). */
  public static Map<String, Object> timer(String state, int subtask, Object key, Object namespace, long timestamp) {
    return Json.obj("state", state, "kind", "timers", "subtask", subtask, "key_group", keyGroup(key),
        "key", key, "namespace", namespace, "timestamp", timestamp);
  }

  /** An operator-state entry (list, union or broadcast), shaped like a dump line. */
  public static Map<String, Object> operator(String state, String kind, int subtask, Object userKey,
      boolean hasUserKey, Object value) {
    Map<String, Object> e = Json.obj("state", state, "kind", kind, "subtask", subtask);
    if (hasUserKey) e.put("user_key", userKey);
    e.put("value", value);
    return e;
  }
}
