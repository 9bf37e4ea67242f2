package ckpt.interop;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JVM-wide coordination between the harness driver and the source readers running inside the
 * MiniCluster (same JVM, same class loader): each source may emit, per reader, at most its budget
 * of records; a reader at its budget reports its position and waits. The driver raises the budget
 * to start the next phase. So a checkpoint triggered while every reader waits at its budget holds
 * exactly the state of the records before it.
 */
public final class Control {
  private static final Map<String, Long> budgets = new ConcurrentHashMap<>();
  private static final Map<String, CompletableFuture<Void>> changed = new ConcurrentHashMap<>();
  /** "source/subtask" -> records emitted so far. */
  private static final Map<String, Long> positions = new ConcurrentHashMap<>();

  private Control() {}

  public static synchronized void reset() {
    budgets.clear();
    for (CompletableFuture<Void> f : changed.values()) f.complete(null);
    changed.clear();
    positions.clear();
  }

  public static long budget(String source) {
    return budgets.getOrDefault(source, 0L);
  }

  /** A future completed at the next budget change of this source. */
  public static synchronized CompletableFuture<Void> budgetChanged(String source) {
    return changed.computeIfAbsent(source, s -> new CompletableFuture<>());
  }

  public static void setBudget(String source, long perReader) {
    CompletableFuture<Void> old;
    synchronized (Control.class) {
      budgets.put(source, perReader);
      old = changed.remove(source);
    }
    if (old != null) old.complete(null);
  }

  public static void reportPosition(String source, int subtask, long emitted) {
    positions.put(source + "/" + subtask, emitted);
  }

  public static long position(String source, int subtask) {
    return positions.getOrDefault(source + "/" + subtask, -1L);
  }

  /** Waits (bounded) until every reader of the source has emitted exactly its budget. */
  public static void awaitAtBudget(String source, int parallelism, long timeoutMs)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    long want = budget(source);
    while (true) {
      boolean all = true;
      for (int i = 0; i < parallelism; i++) {
        if (position(source, i) != want) all = false;
      }
      if (all) return;
      if (System.currentTimeMillis() > deadline) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < parallelism; i++) s.append(' ').append(position(source, i));
        throw new IllegalStateException(
            "source " + source + " did not reach budget " + want + " in " + timeoutMs
                + " ms; positions:" + s);
      }
      Thread.sleep(5);
    }
  }
}
