// CompletedCheckpointStore: the retained completed checkpoints of a job (Flink's
// StandaloneCompletedCheckpointStore): keeps the newest `num_retained`, deleting the directories
// of subsumed ones it owns, and applies the retention policy when the job ends. Never deletes a
// savepoint it took nor a snapshot restored in NO_CLAIM mode. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/status.h"
#include "ckpt/engine/checkpoint/completed_checkpoint.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

// How the job ended, for the retention policy.
enum class JobTermination { kFinished, kCancelled, kFailed, kSuspended };

class CompletedCheckpointStore {
 public:
  // `num_retained` >= 1 (0 is treated as 1). Default policy as in Flink: NO_EXTERNALIZED.
  CompletedCheckpointStore(base::Fs& fs, uint32_t num_retained,
                           pb::RetentionPolicy retention = pb::NO_EXTERNALIZED);

  // Adds a newly completed checkpoint (or the snapshot a job was restored from) and subsumes the
  // oldest beyond num_retained: owned ones are deleted from disk. Returns the first deletion
  // error (the checkpoint is added regardless; a failed deletion leaves files behind, never
  // breaks the job). Savepoints the job takes are not added (they are not used for recovery);
  // a restored savepoint is (it serves restarts until the first checkpoint completes) and is
  // deleted when subsumed only if it was claimed (owned).
  base::Status Add(const CompletedCheckpoint& checkpoint);

  // The newest retained checkpoint, for restarts.
  std::optional<CompletedCheckpoint> Latest() const;
  std::vector<CompletedCheckpoint> All() const;  // oldest first

  // Applies the retention policy for a job ending with `how` (Flink's CheckpointProperties):
  //   NO_EXTERNALIZED: delete owned checkpoints on every termination except kSuspended;
  //   RETAIN_ON_CANCELLATION: delete only on kFinished;
  //   DELETE_ON_CANCELLATION: delete on kFinished and kCancelled, keep on kFailed.
  // Returns the first deletion error; the store is empty of deleted entries afterwards.
  base::Status Shutdown(JobTermination how);

  // Deletes a snapshot directory: its state files and `_metadata` (metadata first, so a crash
  // midway leaves an incomplete — never restorable — directory), then the directory.
  static base::Status DeleteSnapshotDir(base::Fs& fs, const std::string& dir);

 private:
  base::Fs& fs_;
  const uint32_t num_retained_;
  const pb::RetentionPolicy retention_;
  mutable std::mutex mu_;
  std::deque<CompletedCheckpoint> checkpoints_;
};

}  // namespace ckpt::engine
