// JobRunner: runs one job spec on the reference engine — builds the job graph (operator chains),
// starts one thread per subtask, drives checkpoints through the CheckpointCoordinator, restarts
// all tasks from the latest completed checkpoint on failure (fixed-delay restart strategy),
// takes savepoints, stops with a savepoint, and cancels. Thread-safe: Start/Wait from one
// thread; StopWithSavepoint, TriggerSavepoint, Cancel and the getters from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/network_options.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

struct JobRunnerOptions {
  // Filesystem for snapshots. Default: base::Fs::Default().
  base::Fs* fs = nullptr;
  // Operator catalog. Default: OperatorRegistry::Builtin().
  const OperatorRegistry* registry = nullptr;
  // Checkpoint storage root (<dir>/<job id>/chk-<n>). Default: "" = no checkpoints.
  std::string checkpoint_dir;
  // Savepoint directory for TriggerSavepoint/StopWithSavepoint without a target. Default: "".
  std::string savepoint_dir;
  // Overrides of the spec (unset: the spec's value).
  std::optional<uint64_t> interval_ms;
  std::optional<pb::CheckpointingMode> mode;
  // Default parallelism of operators that do not set their own.
  std::optional<uint32_t> parallelism;
  std::optional<uint32_t> num_retained;
  std::optional<pb::RetentionPolicy> retention;
  std::optional<uint32_t> max_restart_attempts;
  std::optional<uint64_t> restart_delay_ms;
  // Keyed state backend overrides of the spec's fields (--state-backend heap|rocksdb,
  // --incremental, --changelog, --state-local-dir); defaults in state_backend_config.h.
  std::optional<std::string> state_backend;
  std::optional<bool> incremental;
  std::optional<bool> changelog;
  std::optional<std::string> state_local_dir;
  // --changelog-materialization-interval MS.
  std::optional<uint64_t> changelog_materialization_interval_ms;
  // Restore from this checkpoint/savepoint directory or `_metadata` (-s). Default: none.
  std::string restore_path;
  // -n / --allow-non-restored-state. Default: false.
  bool allow_non_restored_state = false;
  // Default: NO_CLAIM.
  pb::ClaimMode claim_mode = pb::NO_CLAIM;
  // Run under this job id (32 hex digits) instead of the spec's or a random one; used with
  // --from-latest so checkpoints continue in the same job directory. Default: "".
  std::string job_id_hex;
  // Network buffers, overdraft and channel-state file sharing (see network_options.h).
  NetworkOptions network;
  // Threads writing snapshot files. Default: 2.
  uint32_t async_threads = 2;
  // Per-task I/O and time metrics (JobRunner::task_metrics; `ckpt-engine run --task-metrics
  // off` turns them off to measure their cost). Default: true.
  bool task_metrics = true;
  // --from-latest: restore from the newest usable snapshot the job wrote or restored from
  // (DiscoverCheckpoints over <checkpoint_dir>/<job id>; needs checkpoint_dir and a job id, and
  // excludes restore_path). Refuses (FailedPrecondition naming what was skipped) when none is
  // usable but the job published something (starting empty would repeat committed output), when
  // the job directory is missing, or when the job already finished; unless allow_empty_start.
  // Starting empty is taken without asking only when the job directory holds no trace of any
  // published snapshot (killed before its first checkpoint: nothing was committed).
  bool restore_from_latest = false;
  bool allow_empty_start = false;
  // How long Create waits for the job lock (<job dir>/_job.lock) held by someone else (a prune
  // deleting in the job directory holds it briefly) before refusing: a second engine on the same
  // job is refused. Default: 3000 ms.
  uint64_t lock_wait_ms = 3000;
  // Receives one line per event worth telling the user: each failure with its cause and the
  // restart that follows, checkpoints that fail to publish, what --from-latest chose and why
  // newer snapshots were skipped, leftovers of earlier runs cleaned up. Called from engine
  // threads. Default: none.
  std::function<void(const std::string&)> log;
};

enum class JobOutcome { kFinished, kStopped, kCancelled, kFailed };

// A failure of the job (a task's, or one no attempt could start with): when, and its cause.
struct JobFailureRecord {
  int64_t timestamp_ms = 0;
  std::string message;
};

// When the job went through its phases (epoch ms, 0: not yet), for the REST API.
struct JobTimeline {
  int64_t created_ms = 0;
  // The first attempt's tasks were started.
  int64_t running_ms = 0;
  // The current (or last) attempt's tasks were started, and its number (0: the first run).
  int64_t attempt_start_ms = 0;
  uint32_t attempt = 0;
  // The job reached its terminal state.
  int64_t end_ms = 0;
  // Oldest first, at most kMaxFailures (the oldest are dropped; `failures_dropped` counts them).
  std::vector<JobFailureRecord> failures;
  uint64_t failures_dropped = 0;
  static constexpr size_t kMaxFailures = 16;
};

// One subtask's task metrics (Flink's task metric group; Flink's names in the comments), measured
// by its task thread. Counts are of the current (or last) attempt, as Flink's.
struct SubtaskTaskMetrics {
  std::string vertex_id;  // the chain's head operator id (hex): the REST vertex id
  std::string vertex_name;
  uint32_t subtask = 0;
  uint32_t attempt = 0;
  bool running = false;   // the task's loop has started and not ended
  uint64_t records_in = 0;   // numRecordsIn: records taken from the input channels
  uint64_t records_out = 0;  // numRecordsOut: records the chain wrote to its output edges
  uint64_t bytes_in = 0;     // numBytesIn: frame bytes taken from the input channels
  uint64_t bytes_out = 0;    // numBytesOut: frame bytes written to the output buffers
  // accumulatedIdleTime (waiting for input), accumulatedBackPressuredTime (waiting for an output
  // buffer), accumulatedBusyTime (the rest of the time the task ran), in ms.
  int64_t idle_ms = 0;
  int64_t backpressured_ms = 0;
  int64_t busy_ms = 0;
  // Rates over the last few seconds (at most about a minute, Flink's MeterView): per second,
  // and ms per second for the times (busyTimeMsPerSecond, ...).
  double records_in_per_s = 0;
  double records_out_per_s = 0;
  double bytes_in_per_s = 0;
  double bytes_out_per_s = 0;
  double idle_ms_per_s = 0;
  double backpressured_ms_per_s = 0;
  double busy_ms_per_s = 0;
  // currentInputWatermark (the minimum over the inputs), currentInput<N>Watermark (per operator
  // input, N from 1; one entry per input) and currentOutputWatermark; kNoTimestamp
  // (Long.MIN_VALUE) while none.
  int64_t input_watermark = 0;
  std::vector<int64_t> input_watermarks;
  int64_t output_watermark = 0;
  // The task's last checkpoint: checkpointStartDelayNanos (first barrier minus trigger time)
  // and checkpointAlignmentTime (ns); id -1 before the first.
  int64_t checkpoint_id = -1;
  int64_t checkpoint_start_delay_ns = 0;
  int64_t checkpoint_alignment_ns = 0;
};

struct TaskMetricsSnapshot {
  // False with JobRunnerOptions::task_metrics off: nothing is measured.
  bool enabled = false;
  // Every subtask of the current (or last) attempt; empty before the first attempt was built.
  std::vector<SubtaskTaskMetrics> subtasks;
};

struct JobResult {
  JobOutcome outcome = JobOutcome::kFailed;
  // Why the job failed (restart attempts exhausted, a restore error no restart can fix, or a
  // setup error); OK otherwise.
  base::Status status;
  // kStopped: the savepoint the job stopped with.
  std::string savepoint_path;
  uint32_t restarts = 0;
  CheckpointCounts checkpoints;
};

class JobRunner {
 public:
  // Validates the spec (with the overrides applied), builds the job graph, creates one instance
  // of every operator to check its params and inputs, and plans the restore if any.
  // InvalidArgument naming the field or operator for bad specs (unknown kind, bad params, cycle,
  // parallelism above max parallelism, wrong number of inputs, keyed operator without a HASH
  // input, interval without checkpoint dir); the RestorePlan errors for a bad restore
  // (unmapped state, max parallelism mismatch, native RocksDB state for another backend:
  // RestorePlan::IsRestoreRefusal; NotFound, Corruption).
  static base::Result<std::unique_ptr<JobRunner>> Create(pb::JobSpec spec,
                                                         JobRunnerOptions options);
  ~JobRunner();  // cancels and waits if still running

  // Starts the job; returns once the first attempt's tasks run (or the job already ended, e.g.
  // its operators failed to build: Wait() tells). FailedPrecondition if already started.
  base::Status Start();
  // Blocks until the job reached a terminal state.
  JobResult Wait();

  // Stop-with-savepoint: sources stop, the final savepoint is taken, sinks commit, the job
  // finishes (Wait returns kStopped). `target_dir` empty: options.savepoint_dir. Returns the
  // savepoint directory, or why it failed (the job then keeps running).
  base::Result<std::string> StopWithSavepoint(bool drain, const std::string& target_dir = "");
  // An intermediate savepoint (sinks do not commit). Returns its directory.
  base::Result<std::string> TriggerSavepoint(const std::string& target_dir = "");
  // Cancels the job (retention policy applies to checkpoints).
  void Cancel();
  // Ends the job like Cancel (outcome kCancelled) but keeps its checkpoints whatever the
  // retention policy (Flink's SUSPENDED), so --from-latest can resume it: what a signal does when
  // no savepoint can be taken.
  void Suspend();
  // Whether the job's tasks run now (false while it restarts after a failure or finishes): a
  // savepoint can be taken only then.
  bool running() const;

  // The snapshot this run restored from ("" if none) and its claim mode; with
  // restore_from_latest, the lines saying which snapshot was chosen and why each newer one was
  // skipped.
  const std::string& restore_path() const;
  pb::ClaimMode restore_claim_mode() const;
  const std::vector<std::string>& restore_report() const;

  const pb::JobGraph& job_graph() const;
  const std::string& job_id_hex() const;
  // <checkpoint_dir>/<job id>, or "" without checkpoint dir.
  std::string job_dir() const;
  CheckpointCounts checkpoint_counts() const;
  uint32_t restarts() const;

  // For the REST API (job_runner_stats.cpp). The spec's job name.
  const std::string& job_name() const;
  // The checkpoint history (counts, recent checkpoints with metrics, latest, restored).
  CheckpointStatsSnapshot checkpoint_stats() const;
  // The checkpointing configuration in effect.
  const CheckpointCoordinatorOptions& checkpoint_options() const;
  // The keyed state backend: "heap" or "rocksdb", and whether checkpoints are incremental and
  // the changelog is on.
  std::string state_backend_name() const;
  bool incremental_checkpoints() const;
  bool changelog_enabled() const;
  // When the job was created, started, restarted and ended, and the failures it had.
  JobTimeline timeline() const;
  // The restart strategy in effect (fixed delay): attempts and delay.
  uint32_t max_restart_attempts() const;
  uint64_t restart_delay_ms() const;
  // The network stack's options (buffer size, buffers per channel, ...).
  const NetworkOptions& network_options() const;
  // The task metrics of every subtask now, with rates since an earlier call (thread-safe; each
  // call may retain a sample for the rates of later ones).
  TaskMetricsSnapshot task_metrics() const;
  // Flink's job status name: CREATED, RUNNING, RESTARTING, FINISHED, CANCELED or FAILED.
  std::string status_name() const;
  // Triggers a checkpoint now (as the coordinator's TriggerCheckpoint: FailedPrecondition at
  // max concurrent checkpoints or when no checkpoint directory is set).
  // `full`: a FULL checkpoint (self-contained even when checkpoints are incremental).
  base::Result<int64_t> TriggerCheckpoint(bool full = false);
  // TriggerSavepoint / StopWithSavepoint in the given savepoint format (CANONICAL or NATIVE).
  base::Result<std::string> TriggerSavepoint(const std::string& target_dir,
                                             pb::SavepointFormat format);
  base::Result<std::string> StopWithSavepoint(bool drain, const std::string& target_dir,
                                              pb::SavepointFormat format);

 private:
  class Impl;
  explicit JobRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::engine
