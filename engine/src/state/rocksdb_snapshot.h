// Snapshots of the RocksDB backend: the canonical view over a RocksDB Checkpoint opened
// read-only, and the native (full or incremental) async part over a RocksDB Checkpoint, with the
// bookkeeping of which uploaded SST files a completed checkpoint confirmed (only those are
// referenced later).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "state/backend_core.h"
#include "state/rocksdb_instance.h"

namespace ckpt::engine::state_internal {

// Shared between the backend (task thread: notifications) and its async parts.
struct UploadTracker {
  std::mutex mu;
  // SST files (by local name) of the last completed incremental checkpoint: SHARED entries.
  std::map<std::string, pb::FileEntry> confirmed;
  // Per pending checkpoint: its SST entries, the paths it uploaded, and the Fs it wrote with.
  struct Pending {
    std::map<std::string, pb::FileEntry> ssts;
    std::vector<std::string> uploaded;
    base::Fs* fs = nullptr;
  };
  std::map<int64_t, Pending> pending;
  // The newest incremental checkpoint whose synchronous part ran (-1: none). A completion notice
  // for an older checkpoint arriving after it must not replace `confirmed`: that later checkpoint
  // references the earlier set, so when it subsumes the notified one, the store would delete
  // files the next checkpoint was about to reference.
  int64_t last_started = -1;
};

// Column family of each state of `core` (null for timers and states never written), by id.
std::vector<rocksdb::ColumnFamilyHandle*> ColumnFamiliesOf(const BackendCore& core,
                                                           const RocksDbInstance& inst);

// `inst` may be null (the backend never opened its instance: no state was written): timers only.
std::unique_ptr<KeyedStateSnapshot> MakeRocksDbCanonicalSnapshot(
    std::shared_ptr<RocksDbInstance> inst, BackendCore& core);

// Sync phase of a checkpoint or native savepoint: creates the RocksDB Checkpoint in
// `<root>/chk-<id>` and freezes the timers.
base::Result<std::unique_ptr<SnapshotAsyncPart>> MakeRocksDbNativePart(
    std::shared_ptr<RocksDbInstance> inst, BackendCore& core, const std::string& backend_id,
    bool incremental, int64_t checkpoint_id, std::shared_ptr<UploadTracker> tracker);

}  // namespace ckpt::engine::state_internal
