// CheckpointStatsTracker: the bounded checkpoint history behind the REST API.
#include "ckpt/engine/checkpoint/checkpoint_stats.h"

#include <algorithm>
#include <utility>

namespace ckpt::engine {

const CheckpointStatsEntry* CheckpointStatsSnapshot::Find(int64_t checkpoint_id) const {
  for (const CheckpointStatsEntry& e : history) {
    if (e.checkpoint_id == checkpoint_id) return &e;
  }
  return nullptr;
}

CheckpointStatsTracker::CheckpointStatsTracker(size_t history_size)
    : history_size_(history_size == 0 ? 1 : history_size) {}

CheckpointStatsEntry* CheckpointStatsTracker::FindLocked(int64_t checkpoint_id) {
  for (CheckpointStatsEntry& e : history_) {
    if (e.checkpoint_id == checkpoint_id) return &e;
  }
  return nullptr;
}

void CheckpointStatsTracker::InsertLocked(CheckpointStatsEntry entry) {
  auto pos = std::find_if(history_.begin(), history_.end(), [&](const CheckpointStatsEntry& e) {
    return e.checkpoint_id >= entry.checkpoint_id;
  });
  if (pos != history_.end() && pos->checkpoint_id == entry.checkpoint_id) {
    *pos = std::move(entry);
  } else {
    history_.insert(pos, std::move(entry));
  }
  // Evict the oldest entry that is not in progress (a long savepoint stays visible).
  while (history_.size() > history_size_) {
    auto victim = std::find_if(history_.begin(), history_.end(), [](const CheckpointStatsEntry& e) {
      return e.status != CheckpointStatsStatus::kInProgress;
    });
    if (victim == history_.end()) victim = history_.begin();
    history_.erase(victim);
  }
}

void CheckpointStatsTracker::ReportPending(int64_t checkpoint_id, pb::SnapshotKind kind,
                                           int64_t trigger_timestamp_ms, uint32_t num_subtasks,
                                           pb::SavepointFormat format,
                                           pb::SavepointPostAction post_action) {
  CheckpointStatsEntry e;
  e.checkpoint_id = checkpoint_id;
  e.kind = kind;
  e.savepoint_format = format;
  e.post_action = post_action;
  e.metrics.set_trigger_timestamp(trigger_timestamp_ms);
  e.metrics.set_latest_ack_timestamp(trigger_timestamp_ms);
  e.metrics.set_num_subtasks(num_subtasks);
  std::lock_guard<std::mutex> lock(mu_);
  ++counters_.total;
  ++counters_.in_progress;
  InsertLocked(std::move(e));
}

void CheckpointStatsTracker::ReportAck(int64_t checkpoint_id, const format::OperatorId& op,
                                       uint32_t subtask_index, const pb::SubtaskMetrics& metrics) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckpointStatsEntry* e = FindLocked(checkpoint_id);
  if (e == nullptr || e->status != CheckpointStatsStatus::kInProgress) return;
  auto& slot = e->subtasks[op];
  if (!slot.emplace(subtask_index, metrics).second) return;
  pb::CheckpointMetrics& m = e->metrics;
  m.set_num_acknowledged_subtasks(m.num_acknowledged_subtasks() + 1);
  m.set_latest_ack_timestamp(std::max(m.latest_ack_timestamp(), metrics.ack_timestamp()));
  m.set_end_to_end_duration(m.latest_ack_timestamp() - m.trigger_timestamp());
  m.set_state_size(m.state_size() + metrics.state_size());
  m.set_checkpointed_size(m.checkpointed_size() + metrics.checkpointed_size());
  m.set_processed_data(m.processed_data() + metrics.processed_data());
  m.set_persisted_data(m.persisted_data() + metrics.persisted_data());
  if (metrics.unaligned_checkpoint()) m.set_is_unaligned(true);
}

void CheckpointStatsTracker::ReportCompleted(int64_t checkpoint_id,
                                             const pb::CheckpointMetrics& metrics,
                                             const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckpointStatsEntry* e = FindLocked(checkpoint_id);
  CheckpointStatsEntry fresh;
  if (e == nullptr) {
    fresh.checkpoint_id = checkpoint_id;
    e = &fresh;
  } else if (e->status == CheckpointStatsStatus::kInProgress) {
    --counters_.in_progress;
  }
  e->status = CheckpointStatsStatus::kCompleted;
  // The acks' per-subtask sizes were filled in by the metadata builder; keep the subtasks seen.
  const uint32_t acked = e->metrics.num_acknowledged_subtasks();
  e->metrics = metrics;
  if (metrics.num_acknowledged_subtasks() == 0) e->metrics.set_num_acknowledged_subtasks(acked);
  e->external_path = dir;
  ++counters_.completed;
  CheckpointStatsEntry copy = *e;
  if (e == &fresh) InsertLocked(std::move(fresh));
  completed_metrics_.push_back(copy.metrics);
  while (completed_metrics_.size() > kSummaryWindow) completed_metrics_.pop_front();
  if (copy.kind == pb::SAVEPOINT) {
    counters_.latest_savepoint = std::move(copy);
  } else {
    counters_.latest_completed = std::move(copy);
  }
}

void CheckpointStatsTracker::ReportDiscarded(int64_t checkpoint_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (CheckpointStatsEntry* e = FindLocked(checkpoint_id)) e->discarded = true;
  for (std::optional<CheckpointStatsEntry>* latest :
       {&counters_.latest_completed, &counters_.latest_savepoint}) {
    if (*latest && (*latest)->checkpoint_id == checkpoint_id) (*latest)->discarded = true;
  }
}

void CheckpointStatsTracker::ReportFailed(int64_t checkpoint_id, int64_t failure_timestamp_ms,
                                          const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckpointStatsEntry* e = FindLocked(checkpoint_id);
  if (e == nullptr) return;  // evicted while in progress: nothing to show
  if (e->status == CheckpointStatsStatus::kInProgress) --counters_.in_progress;
  e->status = CheckpointStatsStatus::kFailed;
  e->failure_message = message;
  e->failure_timestamp_ms = failure_timestamp_ms;
  ++counters_.failed;
  counters_.latest_failed = *e;
}

void CheckpointStatsTracker::ReportRestored(const RestoredCheckpointStats& restored) {
  std::lock_guard<std::mutex> lock(mu_);
  ++counters_.restored;
  counters_.latest_restored = restored;
}

void CheckpointStatsTracker::AddFromMetadata(const pb::CheckpointMetadata& md,
                                             const std::string& dir) {
  CheckpointStatsEntry e;
  e.checkpoint_id = md.checkpoint_id();
  e.status = CheckpointStatsStatus::kCompleted;
  e.kind = md.kind() == pb::SNAPSHOT_KIND_UNSPECIFIED ? pb::CHECKPOINT : md.kind();
  e.savepoint_format = md.savepoint_format();
  e.post_action = md.post_action();
  e.metrics = md.metrics();
  e.external_path = dir;
  e.from_earlier_run = true;
  for (const pb::OperatorState& os : md.operators()) {
    base::Result<format::OperatorId> id = format::OperatorId::FromBytes(os.operator_id());
    if (!id.ok()) continue;
    auto& slot = e.subtasks[*id];
    for (const pb::SubtaskState& ss : os.subtasks()) slot[ss.subtask_index()] = ss.metrics();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (FindLocked(e.checkpoint_id) != nullptr) return;
  completed_metrics_.push_back(e.metrics);
  while (completed_metrics_.size() > kSummaryWindow) completed_metrics_.pop_front();
  auto& latest = e.kind == pb::SAVEPOINT ? counters_.latest_savepoint : counters_.latest_completed;
  if (!latest || latest->checkpoint_id < e.checkpoint_id) latest = e;
  InsertLocked(std::move(e));
}

CheckpointStatsSnapshot CheckpointStatsTracker::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckpointStatsSnapshot s = counters_;
  s.history.assign(history_.rbegin(), history_.rend());
  s.completed_metrics.assign(completed_metrics_.begin(), completed_metrics_.end());
  return s;
}

}  // namespace ckpt::engine
