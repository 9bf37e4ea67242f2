// OperatorCoordinator: job-level logic of an operator (Flink's OperatorCoordinator), e.g. a
// source's split enumerator. One instance per operator per job attempt; subtasks reach it via
// OperatorContext::coordinator(). Its state is snapshotted when a checkpoint is triggered (before
// barriers enter the sources) and stored as CoordinatorState. Implementations must be
// thread-safe: all subtasks and the checkpoint trigger call concurrently.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/base/result.h"

namespace ckpt::engine {

class OperatorCoordinator {
 public:
  virtual ~OperatorCoordinator() = default;

  // Restores from the bytes a previous SnapshotState returned (empty when starting fresh).
  virtual base::Status Restore(const std::string& state) = 0;

  // A request from subtask `subtask` (e.g. "give me the next split"); returns the response.
  virtual base::Result<std::string> HandleRequest(uint32_t subtask, const std::string& request) = 0;

  // State at the trigger of checkpoint `checkpoint_id`.
  virtual base::Result<std::string> SnapshotState(int64_t checkpoint_id) = 0;

  // Checkpoint `checkpoint_id` completed.
  virtual void NotifyCheckpointComplete(int64_t checkpoint_id) { (void)checkpoint_id; }
};

}  // namespace ckpt::engine
