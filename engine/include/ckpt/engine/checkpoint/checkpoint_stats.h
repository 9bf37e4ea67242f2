// CheckpointStatsTracker: the read-only checkpoint history a job exposes (Flink's
// CheckpointStatsTracker behind /jobs/:id/checkpoints): counts, the recent history (in progress,
// completed, failed) with sizes, durations and per-subtask metrics, the latest of each kind, the
// restored snapshot, and the values the summary percentiles are computed from. The coordinator
// reports into it; the history of earlier runs is rebuilt from the retained snapshots' persisted
// metrics (AddFromMetadata), which Flink's in-memory history cannot do. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

enum class CheckpointStatsStatus { kInProgress, kCompleted, kFailed };

// One checkpoint or savepoint as the history shows it.
struct CheckpointStatsEntry {
  int64_t checkpoint_id = 0;
  CheckpointStatsStatus status = CheckpointStatsStatus::kInProgress;
  pb::SnapshotKind kind = pb::CHECKPOINT;
  // SAVEPOINT only.
  pb::SavepointFormat savepoint_format = pb::SAVEPOINT_FORMAT_UNSPECIFIED;
  pb::SavepointPostAction post_action = pb::SAVEPOINT_POST_ACTION_UNSPECIFIED;
  // Checkpoint-level metrics (trigger time, sizes, end-to-end duration, unaligned).
  pb::CheckpointMetrics metrics;
  // Per operator, per subtask index: the metrics of each subtask that acknowledged (an
  // unacknowledged subtask has none).
  std::map<format::OperatorId, std::map<uint32_t, pb::SubtaskMetrics>> subtasks;
  // Completed: the snapshot directory; failed: why and when.
  std::string external_path;
  std::string failure_message;
  int64_t failure_timestamp_ms = 0;
  // Rebuilt from a snapshot of an earlier run (not taken by this one).
  bool from_earlier_run = false;
  // Completed, then subsumed (or ended with the job) and its directory deleted: `external_path`
  // no longer exists (Flink's `discarded`).
  bool discarded = false;
};

struct RestoredCheckpointStats {
  int64_t checkpoint_id = 0;
  bool savepoint = false;
  std::string external_path;
  int64_t restore_timestamp_ms = 0;
};

// A consistent copy of the tracker's state.
struct CheckpointStatsSnapshot {
  uint64_t total = 0;  // triggered in this run
  uint64_t in_progress = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t restored = 0;
  // Newest first, at most the history size.
  std::vector<CheckpointStatsEntry> history;
  std::optional<CheckpointStatsEntry> latest_completed;  // checkpoints only
  std::optional<CheckpointStatsEntry> latest_savepoint;
  std::optional<CheckpointStatsEntry> latest_failed;
  std::optional<RestoredCheckpointStats> latest_restored;
  // Every completed checkpoint and savepoint kept for the summary (newest last, at most
  // kSummaryWindow), including those rebuilt from earlier runs.
  std::vector<pb::CheckpointMetrics> completed_metrics;
  // Finds an entry of the history by id; nullptr if it is not (or no longer) there.
  const CheckpointStatsEntry* Find(int64_t checkpoint_id) const;
};

class CheckpointStatsTracker {
 public:
  // Flink's web.checkpoints.history default.
  static constexpr size_t kDefaultHistorySize = 10;
  // Completed checkpoints the summary percentiles are computed over.
  static constexpr size_t kSummaryWindow = 10000;

  explicit CheckpointStatsTracker(size_t history_size = kDefaultHistorySize);

  // A checkpoint or savepoint was triggered.
  void ReportPending(int64_t checkpoint_id, pb::SnapshotKind kind, int64_t trigger_timestamp_ms,
                     uint32_t num_subtasks, pb::SavepointFormat format,
                     pb::SavepointPostAction post_action);
  // A subtask acknowledged (shown while the checkpoint is in progress).
  void ReportAck(int64_t checkpoint_id, const format::OperatorId& op, uint32_t subtask_index,
                 const pb::SubtaskMetrics& metrics);
  // It completed: `metrics` as written to its `_metadata`, `dir` its directory.
  void ReportCompleted(int64_t checkpoint_id, const pb::CheckpointMetrics& metrics,
                       const std::string& dir);
  // It failed or was aborted.
  void ReportFailed(int64_t checkpoint_id, int64_t failure_timestamp_ms,
                    const std::string& message);
  // A completed snapshot's directory was deleted (subsumed, or the job ended).
  void ReportDiscarded(int64_t checkpoint_id);
  // The job started from this snapshot.
  void ReportRestored(const RestoredCheckpointStats& restored);
  // A completed snapshot of an earlier run of the job (rebuilt from its `_metadata`): enters the
  // history (as completed) and the summary, not the counts of this run.
  void AddFromMetadata(const pb::CheckpointMetadata& md, const std::string& dir);

  CheckpointStatsSnapshot Snapshot() const;

 private:
  CheckpointStatsEntry* FindLocked(int64_t checkpoint_id);
  void InsertLocked(CheckpointStatsEntry entry);

  const size_t history_size_;
  mutable std::mutex mu_;
  std::deque<CheckpointStatsEntry> history_;  // ascending id
  CheckpointStatsSnapshot counters_;          // counts and latest_*; history unused
  std::deque<pb::CheckpointMetrics> completed_metrics_;
};

}  // namespace ckpt::engine
