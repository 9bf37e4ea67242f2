// JobAttempt: one execution of the job graph (the first run or a restart): the tasks of every
// chain and subtask wired by channels and writers, the operator coordinators, and the progress
// the runner waits on (first failure, tasks at end of data, tasks finished).
// Build/Start/CancelAndJoin from the runner thread; the task callbacks and progress() are
// thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ckpt/engine/operator_registry.h"
#include "ckpt/format/proto.h"
#include "stream_task.h"

namespace ckpt::engine::runtime {

// "operator 'sum' (kind keyed-sum)": how messages name an operator of the spec.
std::string OperatorLabel(const pb::OperatorSpec& spec);

// Checks what only the catalog knows: every kind exists, params are valid (one instance per
// operator is created), input counts match the edges, keyed operators have HASH inputs.
// InvalidArgument naming the operator.
base::Status ValidateOperators(const pb::JobSpec& spec, const pb::JobGraph& graph,
                               const OperatorRegistry& registry);

class JobAttempt {
 public:
  struct Progress {
    std::optional<base::Status> failure;
    // False when `failure` is a restore error no restart can fix (the snapshot's state does
    // not fit the job): the job then fails at once instead of restarting.
    bool failure_retryable = true;
    uint32_t end_of_data = 0;
    uint32_t finished = 0;
    uint32_t total = 0;
  };

  // `env` is completed with the attempt's callbacks; `wake` is called on every progress change.
  static base::Result<std::unique_ptr<JobAttempt>> Build(const pb::JobSpec& spec,
                                                         const pb::JobGraph& graph,
                                                         const OperatorRegistry& registry,
                                                         TaskEnvironment env,
                                                         std::function<void()> wake);
  ~JobAttempt();

  void Start();
  // Cancels every task (if still running) and joins all threads.
  void CancelAndJoin();

  Progress progress() const;
  // Records a failure (a task's, or an external one such as too many failed checkpoints); the
  // first one of the attempt is kept unless a later one is not retryable
  // (Progress::failure_retryable).
  void ReportFailure(const base::Status& status, bool retryable = true);

  const std::vector<std::unique_ptr<StreamTask>>& tasks() const { return tasks_; }
  const std::vector<StreamTask*>& sources() const { return sources_; }
  const std::map<format::OperatorId, std::unique_ptr<OperatorCoordinator>>& coordinators() const {
    return coordinators_;
  }

 private:
  JobAttempt() = default;

  std::unique_ptr<TaskEnvironment> env_;
  std::unique_ptr<ChannelStateFiles> channel_state_files_;
  std::function<void()> wake_;
  std::map<format::OperatorId, std::unique_ptr<OperatorCoordinator>> coordinators_;
  std::vector<std::unique_ptr<StreamTask>> tasks_;
  std::vector<StreamTask*> sources_;
  mutable std::mutex mu_;
  Progress progress_;
};

}  // namespace ckpt::engine::runtime
