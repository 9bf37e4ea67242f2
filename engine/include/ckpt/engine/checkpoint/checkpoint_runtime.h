// CheckpointRuntime: what the checkpoint coordinator needs from the running job. Implemented by
// the runtime (job runner). The coordinator calls it from its own thread or from the thread that
// delivered the last acknowledgement, never while holding its lock; implementations must be
// thread-safe and must not block on the coordinator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/format/operator_id.h"

namespace ckpt::engine {

// State of one operator coordinator (e.g. a source's split assignment), opaque bytes.
struct CoordinatorSnapshot {
  format::OperatorId operator_id;
  std::string data;
};

class CheckpointRuntime {
 public:
  virtual ~CheckpointRuntime() = default;

  // Snapshots operator coordinators for checkpoint `checkpoint_id`; called before barriers are
  // injected (as Flink does). Default: no coordinators.
  virtual base::Result<std::vector<CoordinatorSnapshot>> SnapshotCoordinators(
      int64_t checkpoint_id) {
    (void)checkpoint_id;
    return std::vector<CoordinatorSnapshot>{};
  }

  // Injects barriers for `options` at every source subtask. An error (e.g. a task is not
  // running) fails the checkpoint with that reason.
  virtual base::Status InjectBarriers(const CheckpointOptions& options) = 0;

  // `_metadata` of `checkpoint_id` is durable: tell every subtask (sinks commit pending files).
  // Called for checkpoints and stop-with-savepoint, NOT for intermediate savepoints (their
  // side effects are not committed, as in Flink >= 1.15).
  virtual void NotifyCheckpointComplete(int64_t checkpoint_id) = 0;

  // The checkpoint was aborted (expired, declined, failed to finalize); its files are deleted.
  virtual void NotifyCheckpointAborted(int64_t checkpoint_id, const base::Status& reason) = 0;

  // More consecutive checkpoints failed than tolerated: the job should fail (and restart).
  virtual void FailJob(const base::Status& reason) = 0;
};

}  // namespace ckpt::engine
