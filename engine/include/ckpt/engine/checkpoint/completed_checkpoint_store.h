// CompletedCheckpointStore: the retained completed checkpoints of a job (Flink's
// StandaloneCompletedCheckpointStore): keeps the newest `num_retained`, deleting the directories
// of subsumed ones it owns, and applies the retention policy when the job ends. Never deletes a
// savepoint it took nor a snapshot restored in NO_CLAIM mode. SHARED files (incremental RocksDB
// SSTs in the job's shared/ directory, listed in each `_metadata`) are reference-counted in a
// SharedStateRegistry: one is deleted only when no retained checkpoint references it, never one a
// NO_CLAIM-restored snapshot referenced. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/status.h"
#include "ckpt/engine/checkpoint/completed_checkpoint.h"
#include "ckpt/engine/checkpoint/shared_state_registry.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

// How the job ended, for the retention policy.
enum class JobTermination { kFinished, kCancelled, kFailed, kSuspended };

class CompletedCheckpointStore {
 public:
  // `num_retained` >= 1 (0 is treated as 1). Default policy as in Flink: NO_EXTERNALIZED.
  CompletedCheckpointStore(base::Fs& fs, uint32_t num_retained,
                           pb::RetentionPolicy retention = pb::NO_EXTERNALIZED);

  // Called with each checkpoint whose directory the store deleted (subsumed or at Shutdown),
  // after the deletion, outside the store's lock. Set before the first Add.
  void OnDeleted(std::function<void(const CompletedCheckpoint&)> callback) {
    on_deleted_ = std::move(callback);
  }

  // Adds a newly completed checkpoint (or the snapshot a job was restored from) and subsumes the
  // oldest beyond num_retained: owned ones are deleted from disk. Returns the first deletion
  // error (the checkpoint is added regardless; a failed deletion leaves files behind, never
  // breaks the job). Savepoints the job takes are not added (they are not used for recovery);
  // a restored savepoint is (it serves restarts until the first checkpoint completes) and is
  // deleted when subsumed only if it was claimed (owned). A `_metadata` that cannot be read is
  // reported (its shared files are then never deleted) and the checkpoint added regardless.
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

  // Reference counts of the shared files of the retained checkpoints.
  const SharedStateRegistry& shared_state() const { return registry_; }

 private:
  // Reads `c`'s `_metadata` and registers its SHARED files.
  base::Status RegisterSharedFiles(const CompletedCheckpoint& c);
  // Deletes `c` if the engine owns it, and the shared files no retained checkpoint references.
  base::Status Discard(const CompletedCheckpoint& c);

  base::Fs& fs_;
  const uint32_t num_retained_;
  const pb::RetentionPolicy retention_;
  mutable std::mutex mu_;
  std::deque<CompletedCheckpoint> checkpoints_;
  SharedStateRegistry registry_;
  std::function<void(const CompletedCheckpoint&)> on_deleted_;
};

}  // namespace ckpt::engine
