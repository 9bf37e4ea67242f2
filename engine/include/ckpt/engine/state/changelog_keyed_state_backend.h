// ChangelogKeyedStateBackend: the generalized log-based incremental backend (Flink's
// ChangelogKeyedStateBackend over the DSTL), wrapping a heap or RocksDB backend.
//
// Every state change (value put, list append, map put/remove, clear, reducing/aggregating fold,
// timer registered/deleted/fired) is applied to the wrapped backend and appended, tagged with its
// key group and a sequence number, to this subtask's changelog (FORMAT.md "Changelog records";
// state/changelog_log.h). A background writer uploads the log continuously in segments (one
// CHANGELOG container each, in the job's shared/<operator>-<subtask>/ directory) when
// `upload_size_bytes` of changes accumulated or the oldest is `upload_interval_ms` old, so a
// checkpoint uploads only the tail since the last segment. A checkpoint is a
// ChangelogStateHandle: the current materialization of the wrapped backend plus the segments
// after it (SHARED, `created_by_checkpoint_id` = the first checkpoint that referenced them), so
// the completed-checkpoint store's reference counts delete them once no retained checkpoint
// references them; files no completed checkpoint ever referenced are deleted by the backend.
//
// Materialization: the first checkpoint of a backend (fresh or restored), a FULL checkpoint and
// a forced one (MaterializeAtNextCheckpoint) snapshot the wrapped backend as part of the
// checkpoint. After that, once `materialization_interval_ms` passed since the last one started,
// a materialization runs in the background: its synchronous phase at the next state change (as
// Flink's runs between two mailbox actions), its upload on its own thread; checkpoints meanwhile
// keep referencing the previous one. When it is done, later checkpoints reference it and the
// segments it covers are truncated (dropped from later handles). Savepoints are the wrapped
// backend's (self-contained, no log).
//
// Restore: materialized handles through the wrapped backend, then replay of the segments' changes
// of the owned key groups (rescaling filters by key group). Plain canonical or RocksDB handles
// restore too (changelog switched on across a restore), and the wrapped backends restore
// changelog handles themselves (switched off).
//
// Thread-safety: as KeyedStateBackend; async parts may run on another thread. The backend runs
// a writer thread and, while a materialization uploads, a materializer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/engine/state/keyed_state_backend.h"

namespace ckpt::engine {

struct ChangelogBackendOptions {
  // Minimum time between the starts of two materializations (checked at each checkpoint; the
  // materialization then runs in the background). Default: 10000. 0: after every checkpoint.
  uint64_t materialization_interval_ms = 10000;
  // The writer uploads a segment when the changes not yet uploaded reach this many bytes
  // (Flink's dstl.dfs.preemptive-persist-threshold). Default: 5 MiB. 0: no size trigger.
  uint64_t upload_size_bytes = 5u << 20;
  // ... or when the oldest of them is this old. Default: 500. 0: no time trigger (segments are
  // then uploaded at the size trigger and at checkpoints only).
  uint64_t upload_interval_ms = 500;
};

// What the log holds and uploaded (tests, metrics).
struct ChangelogStats {
  uint64_t changes_appended = 0;     // since the backend was created
  uint64_t changes_in_memory = 0;    // not yet uploaded
  uint64_t segments_referenced = 0;  // current segments on top of the materialization
  uint64_t segments_uploaded = 0;    // since the backend was created
  uint64_t files_deleted = 0;        // files no completed checkpoint referenced, deleted
  uint64_t materializations = 0;     // adopted
  uint64_t last_materialized_sequence = 0;
  bool materialization_in_flight = false;  // a background materialization uploads
  bool materialization_ready = false;      // done, adopted at the next checkpoint or notice
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
  // Starts a background materialization (task thread).
  void StartMaterialization();
  // Makes a finished background materialization current (or drops it if older than the current).
  void AdoptBackgroundMaterialization();

  std::unique_ptr<KeyedStateBackend> inner_;
  ChangelogBackendOptions options_;
  std::shared_ptr<Log> log_;
};

}  // namespace ckpt::engine
