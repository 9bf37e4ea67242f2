// StreamTask: checkpoints (barrier alignment decisions, sync and async snapshot phases, acks and
// metrics), notifications and termination mails.
#include <chrono>

#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "stream_task.h"

namespace ckpt::engine::runtime {
namespace {

int64_t NowMs() { return OperatorContext::CurrentProcessingTimeMs(); }

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void StreamTask::TriggerCheckpoint(std::shared_ptr<const CheckpointOptions> options) {
  inbox_->PostMail([this, options]() -> base::Status {
    if (options->is_synchronous()) {
      // Stop-with-savepoint: no record after the savepoint barrier. With drain, event time is
      // advanced to the end first so every timer fires into the savepoint (Flink --drain).
      if (options->post_action == pb::POST_ACTION_TERMINATE && !input_ended_) {
        CKPT_RETURN_IF_ERROR(drivers_.front()->ProcessWatermark(kMaxWatermark));
      }
      source_->Stop(options->post_action == pb::POST_ACTION_TERMINATE);
      source_active_ = false;
    }
    const int64_t now = NowMs();
    return PerformCheckpoint(options, 0, now);
  });
}

void StreamTask::NotifyCheckpointComplete(int64_t checkpoint_id) {
  inbox_->PostMail([this, checkpoint_id]() -> base::Status {
    for (auto& d : drivers_) {
      if (d->keyed() != nullptr) d->keyed()->NotifyCheckpointComplete(checkpoint_id);
      CKPT_RETURN_IF_ERROR(d->op()->NotifyCheckpointComplete(checkpoint_id));
    }
    return base::Status::OK();
  });
}

void StreamTask::NotifyCheckpointAborted(int64_t checkpoint_id) {
  inbox_->PostMail([this, checkpoint_id]() -> base::Status {
    for (auto& d : drivers_) {
      if (d->keyed() != nullptr) d->keyed()->NotifyCheckpointAborted(checkpoint_id);
      d->op()->NotifyCheckpointAborted(checkpoint_id);
    }
    return base::Status::OK();
  });
}

void StreamTask::Terminate() {
  inbox_->PostMail([this]() -> base::Status {
    terminate_ = true;
    return base::Status::OK();
  });
}

void StreamTask::ResumeSource() {
  inbox_->PostMail([this]() -> base::Status {
    if (is_source_ && !input_ended_) source_active_ = true;
    return base::Status::OK();
  });
}

base::Status StreamTask::ApplyAlignment(const BarrierAligner::Decision& d) {
  for (uint32_t c : d.block) inbox_->SetBlocked(c, true);
  if (d.unblock_all) {
    for (uint32_t c = 0; c < inbox_->num_channels(); ++c) inbox_->SetBlocked(c, false);
  }
  if (d.aborted && env_->coordinator != nullptr) {
    env_->coordinator->DeclineCheckpoint(
        *d.aborted, base::Status::Cancelled(name_ + ": alignment of checkpoint " +
                                            std::to_string(*d.aborted) +
                                            " abandoned for a newer barrier"));
  }
  if (d.trigger) {
    return PerformCheckpoint(d.trigger, d.alignment_ms, d.first_barrier_ms);
  }
  return base::Status::OK();
}

base::Status StreamTask::PerformCheckpoint(std::shared_ptr<const CheckpointOptions> options,
                                           int64_t alignment_ms, int64_t first_barrier_ms) {
  CheckpointCoordinator* coordinator = env_->coordinator;
  const int64_t id = options->checkpoint_id;
  const int64_t sync_start_us = SteadyMicros();

  // Sync phase: operators bring their state up to date, then the stores freeze it (no copy).
  std::vector<OperatorSnapshot> snapshots;
  snapshots.reserve(drivers_.size());
  for (auto& d : drivers_) {
    base::Status st = d->op()->SnapshotState(id);
    if (!st.ok()) {
      st = st.WithContext(name_ + ": snapshot of checkpoint " + std::to_string(id));
      if (coordinator != nullptr) coordinator->DeclineCheckpoint(id, st);
      return st;  // fails the task; the restart strategy takes over
    }
    std::vector<pb::SinkCommittable> committables = d->op()->SnapshotCommittables(id);
    base::Result<OperatorSnapshot> snap =
        TakeOperatorSnapshot(*options, d->ctx()->operator_id(), subtask_, d->keyed(),
                             d->operator_state(), std::move(committables));
    if (!snap.ok()) {
      base::Status err = snap.status().WithContext(name_ + ": snapshot of checkpoint " +
                                                   std::to_string(id));
      if (coordinator != nullptr) coordinator->DeclineCheckpoint(id, err);
      return err;
    }
    snapshots.push_back(std::move(*snap));
  }
  // The barrier goes downstream right after the sync phase, behind all earlier records.
  StreamEvent barrier;
  barrier.kind = StreamEvent::Kind::kBarrier;
  barrier.barrier = options;
  CKPT_RETURN_IF_ERROR(writer_output_.BroadcastEvent(barrier));
  last_flush_ms_ = 0;
  const int64_t sync_ms = (SteadyMicros() - sync_start_us) / 1000;
  if (coordinator == nullptr) return base::Status::OK();

  auto shared = std::make_shared<std::vector<OperatorSnapshot>>(std::move(snapshots));
  base::Fs* fs = env_->fs;
  const std::string task_name = name_;
  const int64_t start_delay = std::max<int64_t>(0, first_barrier_ms - options->trigger_timestamp_ms);
  env_->async->Submit([coordinator, fs, options, shared, task_name, sync_ms, alignment_ms,
                       start_delay, id] {
    for (OperatorSnapshot& snap : *shared) {
      const int64_t async_start_us = SteadyMicros();
      base::Result<OperatorSubtaskState> written = WriteOperatorSnapshot(*fs, *options, snap);
      if (!written.ok()) {
        coordinator->DeclineCheckpoint(
            id, written.status().WithContext(task_name + ": writing checkpoint " +
                                             std::to_string(id)));
        return;
      }
      pb::SubtaskMetrics metrics;
      metrics.set_ack_timestamp(NowMs());
      metrics.set_end_to_end_duration(NowMs() - options->trigger_timestamp_ms);
      metrics.set_state_size(written->state_size_bytes);
      metrics.set_checkpointed_size(written->checkpointed_size_bytes);
      metrics.set_sync_duration(sync_ms);
      metrics.set_async_duration((SteadyMicros() - async_start_us) / 1000);
      metrics.set_alignment_duration(alignment_ms);
      metrics.set_start_delay(start_delay);
      metrics.set_unaligned_checkpoint(false);
      coordinator->AcknowledgeCheckpoint(id, std::move(*written), std::move(metrics));
    }
  });
  return base::Status::OK();
}

}  // namespace ckpt::engine::runtime
