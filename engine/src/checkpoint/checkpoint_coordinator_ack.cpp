// CheckpointCoordinator: acknowledgements, declines and finalization (metadata written last).
#include <algorithm>
#include <utility>

#include "checkpoint/checkpoint_coordinator_pending.h"
#include "checkpoint/checkpoint_metadata_builder.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::engine {

void CheckpointCoordinator::AcknowledgeCheckpoint(int64_t checkpoint_id,
                                                  OperatorSubtaskState state,
                                                  pb::SubtaskMetrics metrics) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = pending_.find(checkpoint_id);
  if (it == pending_.end()) {
    // Late ack of an aborted checkpoint: its files may have landed after the directory was
    // removed, so remove it again.
    auto dir = aborted_dirs_.find(checkpoint_id);
    if (dir == aborted_dirs_.end()) return;
    const std::string path = dir->second;
    lock.unlock();
    base::RemoveAll(fs_, path).IgnoreError();
    return;
  }
  auto p_it = parallelism_.find(state.operator_id);
  if (p_it == parallelism_.end() || state.subtask_index >= p_it->second) {
    AbortLocked(lock, checkpoint_id,
                base::Status::Internal("checkpoint " + std::to_string(checkpoint_id) +
                                       ": acknowledgement from unknown operator " +
                                       state.operator_id.ToHex() + " subtask " +
                                       std::to_string(state.subtask_index)),
                true);
    return;
  }
  Pending& p = *it->second;
  checkpoint_internal::AckKey key{state.operator_id, state.subtask_index};
  if (p.acks.count(key) != 0) return;  // duplicate
  if (metrics.ack_timestamp() == 0) metrics.set_ack_timestamp(clock_.NowMs());
  if (metrics.end_to_end_duration() == 0) {
    metrics.set_end_to_end_duration(metrics.ack_timestamp() - p.options.trigger_timestamp_ms);
  }
  if (options_.stats) {
    pb::SubtaskMetrics shown = metrics;
    if (shown.state_size() == 0) shown.set_state_size(state.state_size_bytes);
    if (shown.checkpointed_size() == 0) shown.set_checkpointed_size(state.checkpointed_size_bytes);
    options_.stats->ReportAck(checkpoint_id, state.operator_id, state.subtask_index, shown);
  }
  p.acks.emplace(std::move(key), checkpoint_internal::Ack{std::move(state), std::move(metrics)});
  if (p.acks.size() < expected_acks_) return;
  std::unique_ptr<Pending> done = std::move(it->second);
  pending_.erase(it);
  --counts_.in_progress;
  if (done->periodic) ++finalizing_checkpoints_;
  lock.unlock();
  Finalize(std::move(done));
}

void CheckpointCoordinator::DeclineCheckpoint(int64_t checkpoint_id, const base::Status& reason) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = pending_.find(checkpoint_id);
  if (it == pending_.end()) return;
  const bool checkpoint = !it->second->options.is_savepoint();
  AbortLocked(lock, checkpoint_id,
              reason.WithContext((checkpoint ? "checkpoint " : "savepoint ") +
                                 std::to_string(checkpoint_id) + " declined by a task"),
              checkpoint);
}

base::Status CheckpointCoordinator::VerifyReferencedFiles(const pb::CheckpointMetadata& md,
                                                         const std::string& dir) {
  for (const pb::FileEntry& f : md.files()) {
    if (f.scope() == pb::EXTERNAL) continue;
    CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(dir, f));
    base::Result<base::FileInfo> info = fs_.Stat(path);
    if (!info.ok()) {
      return base::Status::NotFound("refusing to publish: referenced file " + path +
                                    " is missing (" + info.status().ToString() + ")");
    }
    if (info->size_bytes != f.size_bytes()) {
      return base::Status::Corruption("refusing to publish: referenced file " + path + " has " +
                                      std::to_string(info->size_bytes) + " bytes, written " +
                                      std::to_string(f.size_bytes()));
    }
  }
  return base::Status::OK();
}

void CheckpointCoordinator::Finalize(std::unique_ptr<Pending> p) {
  const CheckpointOptions& co = p->options;
  // With max_concurrent > 1 a newer checkpoint can complete on the other async thread while
  // this one still writes its `_metadata`. Were finalizations concurrent, the older checkpoint
  // would reach the store after the newer one and be its Latest() although the sinks had
  // committed the newer one: a restart restored the older state and committed its records again
  // (UnalignedCheckpointITCase two-input p20 under TSan: thousands of duplicates). One at a
  // time, and a checkpoint that a newer completed checkpoint (or stop-with-savepoint) overtook
  // is subsumed by it, as in Flink.
  std::lock_guard<std::mutex> finalizing(finalize_mu_);
  // Under mu_: this checkpoint no longer counts toward max_concurrent.
  auto finalized = [&] {
    if (p->periodic) --finalizing_checkpoints_;
  };
  // Not published: back among the pending, then aborted the way every pending one is.
  auto abort = [&](const base::Status& why, bool counts_as_failure, AbortLog log) {
    std::unique_lock<std::mutex> lock(mu_);
    finalized();
    const int64_t id = co.checkpoint_id;
    pending_[id] = std::move(p);
    ++counts_.in_progress;
    AbortLocked(lock, id, why, counts_as_failure, log);
  };
  if (!co.is_savepoint() && co.checkpoint_id < newest_completed_id_) {
    abort(base::Status::Cancelled("checkpoint " + std::to_string(co.checkpoint_id) +
                                  " subsumed by completed checkpoint " +
                                  std::to_string(newest_completed_id_)),
          false, AbortLog::kLog);
    return;
  }
  const int64_t now = clock_.NowMs();
  checkpoint_internal::MetadataInputs in;
  in.options = &options_;
  in.checkpoint = &co;
  in.completion_ms = now;
  in.coordinators = &p->coordinators;
  in.acks = &p->acks;
  base::Result<pb::CheckpointMetadata> md = checkpoint_internal::BuildCheckpointMetadata(in);
  base::Status st = md.status();
  // Every state file was fsynced by its writer before the ack; before `_metadata` makes the
  // snapshot discoverable, check that each file it references is still there with its size (a
  // prune beside a live job, an operator's bug): never publish a snapshot that cannot restore.
  if (st.ok()) st = VerifyReferencedFiles(*md, co.snapshot_dir);
  if (st.ok()) st = format::WriteMetadataFile(fs_, co.snapshot_dir, *md);
  // A savepoint outside the job directory is made discoverable by --from-latest before any
  // sink commits its side effects: a kill after the commit always finds it.
  if (st.ok() && co.is_savepoint() && !job_dir_.empty()) {
    st = RecordSnapshotRef(fs_, job_dir_, co.checkpoint_id, co.snapshot_dir, /*savepoint=*/true);
  }
  if (!st.ok()) {
    if (options_.log) {
      options_.log(std::string(co.is_savepoint() ? "Savepoint " : "Checkpoint ") +
                   std::to_string(co.checkpoint_id) + " failed to publish: " + st.ToString());
    }
    abort(st.WithContext("finalizing checkpoint " + std::to_string(co.checkpoint_id)),
          !co.is_savepoint(), AbortLog::kQuiet);  // logged above
    return;
  }
  CompletedCheckpoint done;
  done.checkpoint_id = co.checkpoint_id;
  done.kind = co.kind;
  done.dir = co.snapshot_dir;
  done.metadata_path = base::JoinPath(co.snapshot_dir, format::kMetadataFileName);
  done.trigger_timestamp_ms = co.trigger_timestamp_ms;
  done.completion_timestamp_ms = now;
  done.state_size_bytes = md->metrics().state_size();
  done.owned = !co.is_savepoint();

  const bool notified = !co.is_savepoint() || co.is_synchronous();
  if (notified) newest_completed_id_ = std::max(newest_completed_id_, co.checkpoint_id);
  std::unique_lock<std::mutex> lock(mu_);
  finalized();
  ++counts_.completed;
  if (!co.is_savepoint()) {
    consecutive_failures_ = 0;
    last_finish_ms_ = now;
    // Older checkpoints still in flight are subsumed by this one (as in Flink).
    std::vector<int64_t> older;
    for (const auto& [id, q] : pending_) {
      if (id < co.checkpoint_id && q->periodic) older.push_back(id);
    }
    for (int64_t id : older) {
      AbortLocked(lock, id,
                  base::Status::Cancelled("checkpoint " + std::to_string(id) +
                                          " subsumed by completed checkpoint " +
                                          std::to_string(co.checkpoint_id)),
                  false);
    }
  }
  lock.unlock();
  if (!co.is_savepoint()) store_.Add(done).IgnoreError();  // deletion failures leave files only
  // Reported after the store subsumed older checkpoints, as Flink reports a completed checkpoint
  // after adding it to its store: whoever sees this one completed sees the older ones discarded.
  if (options_.stats) options_.stats->ReportCompleted(co.checkpoint_id, md->metrics(), co.snapshot_dir);
  // Sinks commit on checkpoints and stop-with-savepoint, never on intermediate savepoints.
  if (notified) runtime_.NotifyCheckpointComplete(co.checkpoint_id);
  if (p->promise) p->promise->set_value(done);
}

}  // namespace ckpt::engine
