// JobRunner: configuration, the restart loop and the bridge the checkpoint coordinator calls.
#include "ckpt/engine/job_runner.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "job_runner_impl.h"

namespace ckpt::engine {

JobRunner::Impl::AttemptEnd JobRunner::Impl::WaitAttempt(JobAttempt* attempt,
                                                         base::Status* failure,
                                                         bool* retryable) {
  const bool checkpoints_on = !opts_.checkpoint_dir.empty();
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (cancel_requested_) return AttemptEnd::kCancelled;
    JobAttempt::Progress p = attempt->progress();
    if (p.failure) {
      *failure = *p.failure;
      *retryable = p.failure_retryable;
      return AttemptEnd::kFailed;
    }
    if (p.finished == p.total) return AttemptEnd::kFinished;
    if (p.end_of_data == p.total && !terminating_) {
      if (!checkpoints_on) {
        // Without checkpoints, sinks commit at the end of the input (as Flink's batch mode).
        for (const auto& t : attempt->tasks()) t->NotifyCheckpointComplete(INT64_MAX);
        TerminateLocked();
      } else if (final_checkpoint_id_ < 0) {
        // The final checkpoint must be triggered after every task reached end of data so that
        // it covers all output; retried while at max concurrent checkpoints.
        lock.unlock();
        base::Result<int64_t> id = coordinator_->TriggerCheckpoint();
        lock.lock();
        if (id.ok()) {
          final_checkpoint_id_ = *id;
          if (last_completed_id_ >= final_checkpoint_id_) TerminateLocked();
        }
      }
    }
    cv_.wait_for(lock, std::chrono::milliseconds(10));
  }
}

void JobRunner::Impl::Finish(JobOutcome outcome, base::Status status) {
  coordinator_->Stop();
  async_->Drain();
  coordinator_->AbortPendingCheckpoints(base::Status::Cancelled("job terminated"));
  coordinator_->RemoveAbortedLeftovers();
  bool suspend = false;
  int64_t last_completed = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    suspend = suspend_requested_;
    last_completed = last_completed_id_;
  }
  JobTermination how = outcome == JobOutcome::kCancelled
                           ? (suspend ? JobTermination::kSuspended : JobTermination::kCancelled)
                       : outcome == JobOutcome::kFailed ? JobTermination::kFailed
                                                        : JobTermination::kFinished;
  base::Status st;
  if (outcome == JobOutcome::kFinished && !job_dir_.empty() && last_completed >= 0) {
    // Before the checkpoints are discarded: a resume of a finished job must not start over.
    st = RecordJobFinished(*fs_, job_dir_, last_completed);
  }
  if (st.ok()) st = coordinator_->Shutdown(how);
  if (!st.ok() && status.ok() && outcome != JobOutcome::kFailed) {
    status = st.WithContext("applying the checkpoint retention policy");
  }
  std::lock_guard<std::mutex> lock(mu_);
  timeline_.end_ms = NowMs();
  result_.outcome = outcome;
  result_.status = std::move(status);
  result_.restarts = restarts_;
  result_.checkpoints = coordinator_->counts();
  if (outcome == JobOutcome::kStopped) result_.savepoint_path = stop_savepoint_path_;
  // StopWithSavepoint records the path only once its future resolves, which can be after the job
  // ended; the checkpoint history already has the completed stop savepoint.
  if (outcome == JobOutcome::kStopped && result_.savepoint_path.empty() && stats_) {
    const CheckpointStatsSnapshot s = stats_->Snapshot();
    if (s.latest_savepoint) result_.savepoint_path = s.latest_savepoint->external_path;
  }
  done_ = true;
  running_ = true;
  cv_.notify_all();
}

void JobRunner::Impl::Run() {
  std::shared_ptr<const RestorePlan> restore = initial_restore_;
  uint32_t attempt_number = 0;
  while (true) {
    runtime::TaskEnvironment env;
    env.job_id_hex = job_id_hex_;
    env.attempt = attempt_number;
    env.mode = mode_;
    env.checkpointing_enabled = !opts_.checkpoint_dir.empty();
    env.fs = fs_;
    env.coordinator = coordinator_.get();
    env.async = async_.get();
    env.restore = restore;
    env.state_backend = &state_backend_;
    env.network = opts_.network;
    // Declared before the attempt: its tasks write into it until they are joined.
    std::shared_ptr<runtime::TaskMetricsGroup> metrics;
    if (opts_.task_metrics) {
      metrics = std::make_shared<runtime::TaskMetricsGroup>(attempt_number);
      env.metrics = metrics.get();
    }
    base::Result<std::unique_ptr<JobAttempt>> built =
        JobAttempt::Build(spec_, graph_, *registry_, std::move(env), [this] { Wake(); });
    if (!built.ok()) {
      Log("Job " + job_id_hex_ + " failed to start attempt " + std::to_string(attempt_number) +
          ": " + built.status().ToString());
      {
        std::lock_guard<std::mutex> lock(mu_);
        RecordFailureLocked(built.status());
      }
      return Finish(JobOutcome::kFailed, built.status());
    }
    std::unique_ptr<JobAttempt> attempt = std::move(*built);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancel_requested_) {
        attempt.reset();
        return Finish(JobOutcome::kCancelled, base::Status::OK());
      }
      current_ = attempt.get();
      // status_name() says RUNNING from here on: the timeline names this attempt from the same
      // moment, so no view pairs RUNNING with the attempt before.
      timeline_.attempt = attempt_number;
      if (metrics != nullptr) task_metrics_ = metrics;
      terminating_ = false;
      final_checkpoint_id_ = -1;
      synchronous_ids_.clear();
    }
    attempt->Start();
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_ = true;
      timeline_.attempt_start_ms = NowMs();
      if (timeline_.running_ms == 0) timeline_.running_ms = timeline_.attempt_start_ms;
    }
    cv_.notify_all();
    // Periodic triggers run only while an attempt runs: a trigger in a restart gap would be
    // refused and counted as a failed checkpoint (Flink skips them as "not all tasks running").
    coordinator_->Start();
    base::Status failure;
    bool retryable = true;
    AttemptEnd end = WaitAttempt(attempt.get(), &failure, &retryable);
    coordinator_->Stop();
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_ = nullptr;
      if (end == AttemptEnd::kFailed) RecordFailureLocked(failure);
    }
    // No checkpoint may complete once the attempt ends: cancelling a task drops its queued
    // input and output buffers, so a subtask acking during the cancellation would persist a
    // snapshot without the in-flight data its barrier overtook (Flink aborts pending
    // checkpoints on failover before it cancels the tasks). Late acks are dropped and their
    // files removed.
    coordinator_->AbortPendingCheckpoints(base::Status::Cancelled(
        end == AttemptEnd::kFailed ? "job failed over: " + failure.ToString()
                                   : std::string("job attempt ended")));
    attempt->CancelAndJoin();
    attempt.reset();
    if (end == AttemptEnd::kCancelled) return Finish(JobOutcome::kCancelled, base::Status::OK());
    if (end == AttemptEnd::kFinished) {
      bool stopped = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        stopped = !stop_savepoint_path_.empty() || !synchronous_ids_.empty();
      }
      return Finish(stopped ? JobOutcome::kStopped : JobOutcome::kFinished, base::Status::OK());
    }
    // Failover: all tasks restart from the latest completed checkpoint (Flink's full restart).
    async_->Drain();
    coordinator_->AbortPendingCheckpoints(
        base::Status::Cancelled("job failed over: " + failure.ToString()));
    coordinator_->RemoveAbortedLeftovers();
    if (!retryable) {
      Log("Job " + job_id_hex_ + " failed: " + failure.ToString() +
          "; not restarted: the snapshot's state does not fit the job, every attempt would fail "
          "the same way");
      return Finish(JobOutcome::kFailed, failure);
    }
    if (restarts_ >= max_attempts_) {
      Log("Job " + job_id_hex_ + " failed: " + failure.ToString() + "; no restart left (" +
          std::to_string(restarts_) + " of " + std::to_string(max_attempts_) + " used)");
      return Finish(JobOutcome::kFailed,
                    failure.WithContext("job failed after " + std::to_string(restarts_) +
                                        " restart(s)"));
    }
    Log("Job " + job_id_hex_ + " failed: " + failure.ToString() + "; restart " +
        std::to_string(restarts_ + 1) + " of " + std::to_string(max_attempts_) + " in " +
        std::to_string(delay_ms_) + " ms");
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++restarts_;
      cv_.wait_for(lock, std::chrono::milliseconds(delay_ms_), [&] { return cancel_requested_; });
      if (cancel_requested_) {
        lock.unlock();
        return Finish(JobOutcome::kCancelled, base::Status::OK());
      }
    }
    std::optional<CompletedCheckpoint> latest = coordinator_->LatestCompletedCheckpoint();
    if (latest) {
      RestoreOptions ro;
      ro.allow_non_restored_state = opts_.allow_non_restored_state;
      ro.keyed_backend = state_backend_.kind;
      base::Result<std::shared_ptr<const RestorePlan>> plan =
          RestorePlan::Create(*fs_, latest->dir, graph_, ro);
      if (!plan.ok()) {
        Log("Job " + job_id_hex_ + " cannot restart: " + plan.status().ToString());
        return Finish(JobOutcome::kFailed,
                      plan.status().WithContext("restoring after failure from " + latest->dir));
      }
      restore = std::move(*plan);
      Log("Restarting job " + job_id_hex_ + " from " + latest->dir);
    }
    ++attempt_number;
  }
}

}  // namespace ckpt::engine
