// ChangelogKeyedStateBackend: the generalized log-based incremental backend of seed 004 (Flink's
// ChangelogKeyedStateBackend over the DSTL), wrapping a heap or RocksDB backend.
//
// Every state change (value put, list append, map put/remove, clear, reducing/aggregating fold,
// timer registered/deleted/fired) is applied to the wrapped backend and appended, tagged with its
// key group and a sequence number, to this subtask's in-memory log (FORMAT.md "Changelog
// records"). A checkpoint is a ChangelogStateHandle: the last confirmed materialization of the
// wrapped backend plus the log segments appended since. Its async part uploads only the changes
// not yet in a confirmed segment, as one CHANGELOG container in the job's
// shared/<operator>-<subtask>/ directory, and references the earlier segments (SHARED,
// `created_by_checkpoint_id` of their uploader), so the completed-checkpoint store's reference
// counts delete a segment once no retained checkpoint references it.
//
// Materialization: the first checkpoint, and then a checkpoint at least
// `materialization_interval_ms` after the previous materialization started, snapshots the
// wrapped backend with its own strategy (heap: canonical; RocksDB: native, incremental if
// configured); the files it writes are moved into shared/ so later checkpoints can reference
// them. When that checkpoint completes, the log up to the materialization's sequence number is
// truncated (dropped from memory and from later handles). Savepoints are the wrapped backend's
// (self-contained, no log).
//
// Restore: materialized handles through the wrapped backend, then replay of the segments' changes
// of the owned key groups (rescaling filters by key group). Plain canonical or RocksDB handles
// restore too (changelog switched on across a restore), and the wrapped backends restore
// changelog handles themselves (switched off).
//
// Thread-safety: as KeyedStateBackend; async parts may run on another thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/engine/state/keyed_state_backend.h"

namespace ckpt::engine {

struct ChangelogBackendOptions {
  // Minimum time between two materializations. Default: 10000. 0: every checkpoint
  // materializes.
  uint64_t materialization_interval_ms = 10000;
};

// What the log holds and uploaded (tests, metrics).
struct ChangelogStats {
  uint64_t changes_appended = 0;    // since the backend was created
  uint64_t changes_in_memory = 0;   // not yet truncated
  uint64_t segments_referenced = 0; // confirmed segments on top of the materialization
  uint64_t materializations = 0;    // confirmed
  uint64_t last_materialized_sequence = 0;
};

class ChangelogKeyedStateBackend : public KeyedStateBackend {
 public:
  // Wraps `inner`, which must be fresh (no state registered yet).
  ChangelogKeyedStateBackend(std::unique_ptr<KeyedStateBackend> inner,
                             ChangelogBackendOptions options);
  ~ChangelogKeyedStateBackend() override;

  // The wrapped backend's kind.
  StateBackendKind kind() const override;
  KeyedStateBackend* inner() const { return inner_.get(); }
  ChangelogStats stats() const;
  // Makes the next checkpoint materialize whatever the interval (tests, and a manual trigger).
  void MaterializeAtNextCheckpoint();

  std::unique_ptr<KeyedStateSnapshot> Snapshot() override;
  base::Result<std::unique_ptr<SnapshotAsyncPart>> SnapshotSync(
      const CheckpointOptions& options) override;
  void NotifyCheckpointComplete(int64_t checkpoint_id) override;
  void NotifyCheckpointAborted(int64_t checkpoint_id) override;
  base::Status Restore(const KeyedRestoreSource& source) override;
  uint64_t NumEntries() const override;

  struct Log;  // private (changelog_keyed_state_backend.cpp)

 protected:
  base::Result<std::unique_ptr<state_internal::InternalKeyedState>> CreateInternalState(
      uint32_t id) override;
  base::Status RestoreStateRecord(uint32_t id, uint32_t key_group,
                                  const format::KeyedRecord& record) override;

 private:
  std::unique_ptr<KeyedStateBackend> inner_;
  ChangelogBackendOptions options_;
  std::shared_ptr<Log> log_;
};

}  // namespace ckpt::engine
