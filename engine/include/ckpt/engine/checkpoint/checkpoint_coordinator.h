// CheckpointCoordinator: triggers checkpoints and savepoints of one job run, collects the
// subtasks' acknowledgements, publishes `_metadata` last and atomically, notifies completion,
// aborts expired or declined checkpoints (deleting their files) and keeps the retained
// checkpoints (CompletedCheckpointStore). Time comes from a Clock; periodic work happens in
// Tick(), which Start() runs on a background thread (tests call Tick() with a ManualClock).
// Thread-safe: acknowledgements arrive from any thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/checkpoint_runtime.h"
#include "ckpt/engine/checkpoint/checkpoint_stats.h"
#include "ckpt/engine/checkpoint/clock.h"
#include "ckpt/engine/checkpoint/completed_checkpoint.h"
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/format/proto.h"
#include "ckpt/version.h"

namespace ckpt::engine {

struct CheckpointCoordinatorOptions {
  // 16-byte job id and the job's name, recorded in `_metadata`. Required.
  std::string job_id;
  std::string job_name;
  // The job graph as it runs (format::BuildJobGraph). Every operator subtask must acknowledge.
  pb::JobGraph job_graph;
  // Checkpoint storage root: checkpoints go to <checkpoint_dir>/<job id hex>/chk-<n>/.
  // Default: empty = no checkpoints (savepoints still possible).
  std::string checkpoint_dir;
  // Default directory for savepoints (<savepoint_dir>/savepoint-<jobid6>-<random>/). Default: "".
  std::string savepoint_dir;
  // Periodic trigger interval; 0 = no periodic checkpoints. Default: 0.
  int64_t interval_ms = 0;
  // A pending checkpoint older than this is aborted. Default: 600000.
  int64_t timeout_ms = 600000;
  // Minimum time from the last completion (or failure) to the next periodic trigger. Default: 0.
  int64_t min_pause_ms = 0;
  // Periodic checkpoints in flight at once. Savepoints are not limited. Default: 1.
  uint32_t max_concurrent = 1;
  // Consecutive failed checkpoints tolerated; one more calls CheckpointRuntime::FailJob.
  // Default: 0.
  uint32_t tolerable_failures = 0;
  // Completed checkpoints retained. Default: 1.
  uint32_t num_retained = 1;
  // Default: NO_EXTERNALIZED.
  pb::RetentionPolicy retention = pb::NO_EXTERNALIZED;
  // Default: ALIGNED_EXACTLY_ONCE.
  pb::CheckpointingMode mode = pb::ALIGNED_EXACTLY_ONCE;
  // Id of the first checkpoint (restored checkpoint id + 1 after a restore). Default: 1.
  int64_t first_checkpoint_id = 1;
  // Where the job's state came from (recorded in every `_metadata`); the restored snapshot is
  // also registered in the store, owned (deleted once subsumed) iff claim_mode is CLAIM, as in
  // Flink; in NO_CLAIM mode it is never deleted. Default: none.
  std::optional<pb::RestoreInfo> restored_from;
  // Complete checkpoints earlier runs of this job left in its job directory, oldest first: they
  // are registered with the store before the restored snapshot (owned: they are the job's own),
  // so retention subsumes them as this run completes checkpoints (Flink's recovered completed
  // checkpoint store). Default: none.
  std::vector<CompletedCheckpoint> earlier_checkpoints;
  // Receives one line per notable event: each failed or aborted checkpoint or savepoint with
  // its cause (declined by a task, expired, failed to publish, aborted by a failover or the end
  // of the job). Default: none.
  std::function<void(const std::string&)> log;
  // Recorded in `_metadata` (e.g. "execution.checkpointing.interval"). Default: interval,
  // timeout, min pause, max concurrent, mode are added automatically.
  std::map<std::string, std::string> properties;
  // Writer identity. Default: "ckpt-engine" / the toolchain version (ckpt/version.h).
  std::string engine_name = "ckpt-engine";
  std::string engine_version = kVersion;
  // Receives every trigger, acknowledgement, completion and failure (the REST API's checkpoint
  // history); earlier runs' checkpoints and the restored snapshot are added from their
  // `_metadata` at Create. Default: none.
  std::shared_ptr<CheckpointStatsTracker> stats;
};

// Counters (Flink's /jobs/:id/checkpoints "counts").
struct CheckpointCounts {
  uint64_t triggered = 0;
  uint64_t in_progress = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t restored = 0;
};

class CheckpointCoordinator {
 public:
  // InvalidArgument if the job id is not 16 bytes, the graph is empty, or max_concurrent is 0.
  // If a restore is given, the restored snapshot is registered with the store.
  static base::Result<std::unique_ptr<CheckpointCoordinator>> Create(
      base::Fs& fs, Clock& clock, CheckpointRuntime& runtime,
      CheckpointCoordinatorOptions options);
  ~CheckpointCoordinator();  // Stop()s

  // Runs Tick() on a background thread (waking at the next deadline, at most every 50 ms).
  void Start();
  // Stops the background thread (pending checkpoints stay pending).
  void Stop();

  // Periodic work: aborts pending checkpoints older than timeout_ms; triggers a checkpoint if
  // periodic checkpointing is on, the interval and min pause have passed, fewer than
  // max_concurrent are pending and no savepoint is.
  void Tick();

  // Triggers a checkpoint now (ignores interval and min pause, honours max_concurrent:
  // FailedPrecondition if at the limit or while a savepoint is pending). Returns its id. Errors from creating the directory or
  // from the runtime fail it (counted as a failure). `full`: a FULL checkpoint
  // (CheckpointOptions::full), self-contained even when checkpoints are incremental.
  base::Result<int64_t> TriggerCheckpoint(bool full = false);

  // Triggers a savepoint into `target_dir` (empty: options.savepoint_dir; InvalidArgument if
  // both are empty). The future yields the completed savepoint or why it failed.
  // POST_ACTION_STOP/TERMINATE make it a stop-with-savepoint (completion is notified so sinks
  // commit); POST_ACTION_NONE is an intermediate savepoint (not notified).
  std::shared_future<base::Result<CompletedCheckpoint>> TriggerSavepoint(
      std::string target_dir, pb::SavepointPostAction post_action = pb::POST_ACTION_NONE,
      pb::SavepointFormat format = pb::CANONICAL);

  // One operator subtask finished its snapshot. Acks for unknown (aborted, expired) checkpoints
  // are ignored and their files deleted. When the last expected ack arrives the checkpoint is
  // finalized on the calling thread: `_metadata` written, store updated, runtime notified.
  void AcknowledgeCheckpoint(int64_t checkpoint_id, OperatorSubtaskState state,
                             pb::SubtaskMetrics metrics);
  // A subtask could not snapshot: the checkpoint is aborted with `reason`.
  void DeclineCheckpoint(int64_t checkpoint_id, const base::Status& reason);
  // Aborts every pending checkpoint (failover, shutdown). Savepoint futures fail with `reason`.
  // Does not count towards tolerable failures.
  void AbortPendingCheckpoints(const base::Status& reason);
  // Removes again the directories of the recently aborted checkpoints: a task's async write
  // that was still running at the abort may have landed files there (call once the async
  // executor is drained).
  void RemoveAbortedLeftovers();

  // The newest retained completed checkpoint (restart strategy).
  std::optional<CompletedCheckpoint> LatestCompletedCheckpoint() const;
  // Applies the retention policy (see CompletedCheckpointStore::Shutdown) after Stop() and
  // AbortPendingCheckpoints.
  base::Status Shutdown(JobTermination how);

  CheckpointCounts counts() const;
  // Ids of pending checkpoints, ascending.
  std::vector<int64_t> PendingCheckpointIds() const;
  CompletedCheckpointStore& store() { return store_; }
  // The options the coordinator runs with (read-only; for the REST API's checkpoint config).
  const CheckpointCoordinatorOptions& options() const { return options_; }

 private:
  struct Pending;
  CheckpointCoordinator(base::Fs& fs, Clock& clock, CheckpointRuntime& runtime,
                        CheckpointCoordinatorOptions options, std::string job_dir,
                        std::string job_id_hex, uint32_t expected_acks);
  using Promise = std::promise<base::Result<CompletedCheckpoint>>;
  // Reserves an id and directory, snapshots coordinators and injects barriers. Releases `lock`
  // around filesystem and runtime calls. Requires trigger_mu_ (and `lock` on mu_).
  base::Result<int64_t> TriggerLocked(std::unique_lock<std::mutex>& lock, pb::SnapshotKind kind,
                                      pb::SavepointPostAction post_action,
                                      pb::SavepointFormat format, const std::string& target_dir,
                                      std::shared_ptr<Promise> promise, bool full = false);
  // Whether AbortLocked logs the failure: every failed checkpoint is logged with its cause,
  // except a refused trigger (the job was not running: not a failure) and one whose cause was
  // already logged.
  enum class AbortLog { kLog, kQuiet };
  // Removes a pending checkpoint and cleans up after it (lock released meanwhile).
  void AbortLocked(std::unique_lock<std::mutex>& lock, int64_t checkpoint_id,
                   const base::Status& reason, bool counts_as_failure,
                   AbortLog log = AbortLog::kLog);
  // Counts a failed checkpoint; returns true if the job must fail now.
  bool CountFailureLocked();
  void Finalize(std::unique_ptr<Pending> pending);
  // OK if every non-EXTERNAL file `md` references exists under `dir` with its recorded size.
  base::Status VerifyReferencedFiles(const pb::CheckpointMetadata& md, const std::string& dir);
  void RunLoop();

  base::Fs& fs_;
  Clock& clock_;
  CheckpointRuntime& runtime_;
  const CheckpointCoordinatorOptions options_;
  const std::string job_dir_;       // empty if no checkpoint_dir
  const std::string job_id_hex_;
  const uint32_t expected_acks_;    // sum of operator parallelisms
  std::map<format::OperatorId, uint32_t> parallelism_;  // per operator of the job graph
  CompletedCheckpointStore store_;

  // Held by a trigger from taking its id to injecting its barriers (taken before mu_), so
  // barriers reach the sources in id order: a task drops a barrier older than one it has seen
  // (as Flink's tasks do), so a savepoint injected after a newer periodic checkpoint would
  // never complete (it waited for its timeout). Flink serializes triggers the same way.
  std::mutex trigger_mu_;
  // Held by Finalize throughout (taken before mu_): completed checkpoints are published, added
  // to the store and notified one at a time, so the store's Latest() is the newest one the sinks
  // were told about.
  std::mutex finalize_mu_;
  // The newest checkpoint or stop-with-savepoint whose completion was notified (finalize_mu_).
  int64_t newest_completed_id_ = -1;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Checkpoints in flight that count toward max_concurrent (mu_).
  uint32_t InFlightCheckpointsLocked() const;
  // A savepoint is pending (mu_). It holds checkpoints back, as Flink counts a pending savepoint
  // among the concurrent checkpoints and stops the periodic trigger for a stop-with-savepoint:
  // a newer checkpoint's barrier (unaligned: overtaking buffers) would reach a task still
  // aligning the savepoint's barriers, which then abandons the savepoint for it.
  bool SavepointPendingLocked() const;
  std::map<int64_t, std::unique_ptr<Pending>> pending_;
  // Checkpoints fully acknowledged and still writing their `_metadata` (mu_). They count toward
  // max_concurrent, as Flink keeps a checkpoint pending until it is finalized: otherwise the
  // next one is triggered at once, completes first and subsumes a fully acknowledged one.
  uint32_t finalizing_checkpoints_ = 0;
  // Directories of recently aborted checkpoints, to clean up after late acknowledgements.
  std::map<int64_t, std::string> aborted_dirs_;
  int64_t next_checkpoint_id_;
  int64_t last_trigger_ms_ = 0;
  int64_t last_finish_ms_ = 0;
  uint32_t consecutive_failures_ = 0;
  CheckpointCounts counts_;
  std::mt19937_64 rng_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ckpt::engine
