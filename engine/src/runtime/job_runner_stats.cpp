// JobRunner: the read-only views the REST API serves (status, checkpoint history and config).
#include <mutex>

#include "ckpt/engine/job_runner.h"
#include "job_runner_impl.h"

namespace ckpt::engine {

const std::string& JobRunner::job_name() const { return impl_->spec_.name(); }

CheckpointStatsSnapshot JobRunner::checkpoint_stats() const { return impl_->stats_->Snapshot(); }

const CheckpointCoordinatorOptions& JobRunner::checkpoint_options() const {
  return impl_->coordinator_->options();
}

std::string JobRunner::state_backend_name() const {
  return std::string(StateBackendKindName(impl_->state_backend_.kind));
}
bool JobRunner::incremental_checkpoints() const { return impl_->state_backend_.incremental; }
bool JobRunner::changelog_enabled() const { return impl_->state_backend_.changelog; }

JobTimeline JobRunner::timeline() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->timeline_;
}

TaskMetricsSnapshot JobRunner::task_metrics() const {
  TaskMetricsSnapshot out;
  out.enabled = impl_->opts_.task_metrics;
  std::shared_ptr<runtime::TaskMetricsGroup> group;
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    group = impl_->task_metrics_;
  }
  if (group != nullptr) out.subtasks = group->Sample();
  return out;
}

uint32_t JobRunner::max_restart_attempts() const { return impl_->max_attempts_; }
uint64_t JobRunner::restart_delay_ms() const { return impl_->delay_ms_; }
const NetworkOptions& JobRunner::network_options() const { return impl_->opts_.network; }

std::string JobRunner::status_name() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  if (impl_->done_) {
    switch (impl_->result_.outcome) {
      case JobOutcome::kFinished:
      case JobOutcome::kStopped:
        return "FINISHED";
      case JobOutcome::kCancelled:
        return "CANCELED";
      case JobOutcome::kFailed:
        return "FAILED";
    }
  }
  if (!impl_->started_) return "CREATED";
  if (impl_->cancel_requested_) return "CANCELLING";
  return impl_->current_ != nullptr ? "RUNNING" : "RESTARTING";
}

base::Result<int64_t> JobRunner::TriggerCheckpoint(bool full) {
  if (impl_->job_dir_.empty()) {
    return base::Status::FailedPrecondition(
        "the job runs without a checkpoint directory (--checkpoint-dir): no checkpoint can be "
        "taken");
  }
  if (!running()) {
    return base::Status::FailedPrecondition("the job is not running (restarting or finishing)");
  }
  return impl_->coordinator_->TriggerCheckpoint(full);
}

base::Result<std::string> JobRunner::TriggerSavepoint(const std::string& target_dir,
                                                      pb::SavepointFormat format) {
  base::Result<CompletedCheckpoint> r =
      impl_->coordinator_->TriggerSavepoint(target_dir, pb::POST_ACTION_NONE, format).get();
  if (!r.ok()) return r.status().WithContext("savepoint");
  return r->dir;
}

base::Result<std::string> JobRunner::StopWithSavepoint(bool drain, const std::string& target_dir,
                                                       pb::SavepointFormat format) {
  base::Result<CompletedCheckpoint> r =
      impl_->coordinator_
          ->TriggerSavepoint(target_dir, drain ? pb::POST_ACTION_TERMINATE : pb::POST_ACTION_STOP,
                             format)
          .get();
  if (!r.ok()) return r.status().WithContext("stop-with-savepoint");
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->stop_savepoint_path_ = r->dir;
  return r->dir;
}

}  // namespace ckpt::engine
