// JobRunner::Impl: the job's state shared by the runner thread, the coordinator (through the
// CheckpointRuntime interface) and the public control methods. Guarded by mu_.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "async_executor.h"
#include "job_attempt.h"

namespace ckpt::engine {

using runtime::JobAttempt;

class JobRunner::Impl final : public CheckpointRuntime {
 public:
  pb::JobSpec spec_;
  pb::JobGraph graph_;
  JobRunnerOptions opts_;
  base::Fs* fs_ = nullptr;
  const OperatorRegistry* registry_ = nullptr;
  std::string job_id_bytes_;
  std::string job_id_hex_;
  std::string job_dir_;
  pb::CheckpointingMode mode_ = pb::ALIGNED_EXACTLY_ONCE;
  StateBackendConfig state_backend_;  // keyed backend of every keyed operator subtask
  uint32_t max_attempts_ = 0;
  uint64_t delay_ms_ = 1000;
  std::shared_ptr<const RestorePlan> initial_restore_;
  // Held for the job's whole life (the job directory's _job.lock); released when destroyed.
  std::unique_ptr<base::FileLock> job_lock_;
  std::string restore_path_;
  pb::ClaimMode restore_claim_mode_ = pb::NO_CLAIM;
  std::vector<std::string> restore_report_;
  std::unique_ptr<CheckpointCoordinator> coordinator_;
  // The checkpoint history the coordinator reports into (REST API).
  std::shared_ptr<CheckpointStatsTracker> stats_;
  // Declared after the coordinator so it is destroyed first (its work acks to the coordinator).
  std::unique_ptr<runtime::AsyncExecutor> async_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  JobAttempt* current_ = nullptr;
  // The task metrics of the current (or last) attempt; null before the first or when off.
  std::shared_ptr<runtime::TaskMetricsGroup> task_metrics_;
  bool started_ = false;
  // The first attempt's tasks were started (Start() returns then) or the job already ended.
  bool running_ = false;
  bool cancel_requested_ = false;
  bool suspend_requested_ = false;  // with cancel_requested_: keep checkpoints
  bool terminating_ = false;
  std::set<int64_t> synchronous_ids_;
  int64_t final_checkpoint_id_ = -1;
  int64_t last_completed_id_ = -1;
  std::string stop_savepoint_path_;
  uint32_t restarts_ = 0;
  bool done_ = false;
  JobResult result_;
  // For the REST API (JobRunner::timeline()).
  JobTimeline timeline_ = [] {
    JobTimeline t;
    t.created_ms = NowMs();
    return t;
  }();

  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // Requires mu_.
  void RecordFailureLocked(const base::Status& failure) {
    timeline_.failures.push_back({NowMs(), failure.ToString()});
    if (timeline_.failures.size() > JobTimeline::kMaxFailures) {
      timeline_.failures.erase(timeline_.failures.begin());
      ++timeline_.failures_dropped;
    }
  }

  ~Impl() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancel_requested_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void Wake() { cv_.notify_all(); }
  void Log(const std::string& line) const {
    if (opts_.log) opts_.log(line);
  }

  // --from-latest: the directory of the newest usable snapshot in `found` ("" to start empty),
  // appending to `report` what was chosen and why newer ones were skipped; `*refusal` says why
  // starting empty is not safe (left OK when it is).
  std::string ChooseLatest(const DiscoveredCheckpoints& found, std::vector<std::string>* report,
                           base::Status* refusal) const;

  // Posts notify + terminate to every task once the final checkpoint (after end of data) or the
  // stop savepoint completed. Requires mu_.
  void TerminateLocked() {
    if (terminating_ || current_ == nullptr) return;
    terminating_ = true;
    for (const auto& t : current_->tasks()) t->Terminate();
  }

  // --- CheckpointRuntime -----------------------------------------------------------------
  base::Result<std::vector<CoordinatorSnapshot>> SnapshotCoordinators(
      int64_t checkpoint_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<CoordinatorSnapshot> out;
    if (current_ == nullptr) return out;
    for (const auto& [id, c] : current_->coordinators()) {
      CKPT_ASSIGN_OR_RETURN(std::string data, c->SnapshotState(checkpoint_id));
      out.push_back({id, std::move(data)});
    }
    return out;
  }

  base::Status InjectBarriers(const CheckpointOptions& options) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (current_ == nullptr || terminating_) {
      return base::Status::FailedPrecondition("job is not running (restarting or finishing)");
    }
    if (options.is_synchronous()) synchronous_ids_.insert(options.checkpoint_id);
    auto shared = std::make_shared<const CheckpointOptions>(options);
    for (runtime::StreamTask* s : current_->sources()) s->TriggerCheckpoint(shared);
    return base::Status::OK();
  }

  void NotifyCheckpointComplete(int64_t checkpoint_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_completed_id_ = std::max(last_completed_id_, checkpoint_id);
    if (current_ == nullptr) return;
    for (const auto& t : current_->tasks()) t->NotifyCheckpointComplete(checkpoint_id);
    for (const auto& [id, c] : current_->coordinators()) {
      (void)id;
      c->NotifyCheckpointComplete(checkpoint_id);
    }
    if (synchronous_ids_.count(checkpoint_id) != 0 ||
        (final_checkpoint_id_ >= 0 && checkpoint_id >= final_checkpoint_id_)) {
      TerminateLocked();
    }
    cv_.notify_all();
  }

  void NotifyCheckpointAborted(int64_t checkpoint_id, const base::Status& reason) override {
    (void)reason;
    std::lock_guard<std::mutex> lock(mu_);
    if (current_ == nullptr) return;
    for (const auto& t : current_->tasks()) t->NotifyCheckpointAborted(checkpoint_id);
    if (synchronous_ids_.erase(checkpoint_id) != 0) {
      for (runtime::StreamTask* s : current_->sources()) s->ResumeSource();
    }
    if (checkpoint_id == final_checkpoint_id_) final_checkpoint_id_ = -1;  // trigger again
    cv_.notify_all();
  }

  void FailJob(const base::Status& reason) override {
    std::lock_guard<std::mutex> lock(mu_);
    // While finishing (after the final checkpoint or the stop savepoint) triggers are refused
    // on purpose; those failures must not fail a job that is completing.
    if (current_ != nullptr && !terminating_) current_->ReportFailure(reason);
  }

  // --- The restart loop ----------------------------------------------------------------------
  enum class AttemptEnd { kFinished, kFailed, kCancelled };

  // Until the attempt finishes, fails (`*failure`, and whether a restart may fix it in
  // `*retryable`) or the job is cancelled.
  AttemptEnd WaitAttempt(JobAttempt* attempt, base::Status* failure, bool* retryable);
  void Run();
  void Finish(JobOutcome outcome, base::Status status);
};

}  // namespace ckpt::engine
