// RocksDbKeyedStateBackend: keyed state in an embedded RocksDB instance (Flink's
// EmbeddedRocksDBStateBackend). One instance per operator subtask in a local working directory
// (removed when the backend and every snapshot it handed out are gone); one column family per
// declared state, named after the state. Keys are prefixed by the key group (2 bytes, big-endian)
// so a key-group range is one contiguous key range, then the record key and the namespace in an
// order-preserving escaped form, then (MAP) the encoded user key: iteration order is the
// canonical record order. LIST values are the concatenation of the encoded elements, appended
// with a merge operator; REDUCING/AGGREGATING read, fold and write back. Timers stay on the heap
// (Flink's HEAP timer service) and are snapshotted in the canonical format beside the SSTs.
//
// Snapshots: checkpoints and native savepoints take a RocksDB Checkpoint (hard links, memtables
// flushed) in the sync phase and copy its files in the async phase: full ones copy every SST as
// an EXCLUSIVE file; incremental ones (checkpoints only) upload only SSTs not uploaded by a
// confirmed earlier checkpoint into the job's shared/<operator>-<subtask>/ directory and reference
// the others (`created_by_checkpoint_id` of their uploader). Canonical savepoints iterate a
// RocksDB Checkpoint of the instance, opened read-only, into a KEYED_STATE container (the
// instance updates memtable entries in place and so has no RocksDB snapshots). Restore opens
// the instance of the overlapping native handle with the most owned key groups (its SSTs
// hard-linked from a local snapshot, copied otherwise), clips it to the owned key groups with
// DeleteRange, and bulk-loads the owned ranges of any other overlapping instance (SstFileWriter +
// IngestExternalFile); canonical handles are inserted record by record in write batches, so any
// snapshot of the heap backend restores here and vice versa.
//
// Thread-safety: as KeyedStateBackend; snapshot parts may run on another thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/base/result.h"
#include "ckpt/engine/state/keyed_state_backend.h"

namespace ckpt::engine {

struct RocksDbBackendOptions {
  // Incremental checkpoints (see above). Default: false.
  bool incremental = false;
  // Parent of the working directory. Default: "" = $TMPDIR or /tmp, + "/ckpt-engine-rocksdb".
  std::string local_dir;
  // Name of this subtask's instance ("<operator id hex>-<subtask>"); a random suffix keeps
  // instances of concurrent attempts apart. Default: "instance".
  std::string instance_name = "instance";
  // Restore of native handles that cover more key groups than this subtask owns (rescaling):
  // true opens the best-overlapping instance as this one and clips it with DeleteRange ("DB
  // rebuild"); false inserts every owned key, from every overlapping instance, into
  // the fresh instance (the baseline the benchmark compares with). Default: true.
  bool rescale_by_clipping = true;
};

// Where the last Restore spent its time (benchmarks, logs).
struct RocksDbRestoreStats {
  double fetch_seconds = 0;      // placing the native handles' files locally (links or copies)
  double open_seconds = 0;       // opening the instances
  double clip_seconds = 0;       // DeleteRange clipping
  double insert_seconds = 0;     // inserting owned keys of other instances
  double canonical_seconds = 0;  // reading and inserting canonical handles
  double finish_seconds = 0;     // the last write batch
  double total_seconds = 0;      // the whole Restore
  uint64_t files_linked = 0;
  uint64_t files_copied = 0;
  uint64_t bytes_copied = 0;
  uint64_t keys_inserted = 0;  // from native handles
};

class RocksDbKeyedStateBackend : public KeyedStateBackend {
 public:
  // Creates the working directory; the fresh, empty instance in it is opened on first use (a
  // restore opens the restored instance instead). IOError naming the directory if it cannot be
  // created, or (on first use) if RocksDB cannot open the instance.
  static base::Result<std::unique_ptr<RocksDbKeyedStateBackend>> Open(
      uint32_t max_parallelism, format::KeyGroupRange key_groups, std::string owner,
      RocksDbBackendOptions options);
  ~RocksDbKeyedStateBackend() override;

  StateBackendKind kind() const override;
  std::unique_ptr<KeyedStateSnapshot> Snapshot() override;
  base::Result<std::unique_ptr<SnapshotAsyncPart>> SnapshotSync(
      const CheckpointOptions& options) override;
  void NotifyCheckpointComplete(int64_t checkpoint_id) override;
  void NotifyCheckpointAborted(int64_t checkpoint_id) override;
  base::Status Restore(const KeyedRestoreSource& source) override;
  uint64_t NumEntries() const override;

  // The instance's directory (tests, tools).
  const std::string& working_dir() const;
  const RocksDbRestoreStats& last_restore_stats() const;
  // Flushes the memtables and compacts every column family fully (tests: compactions between
  // incremental checkpoints replace SST files).
  base::Status CompactAll();

 protected:
  base::Result<std::unique_ptr<state_internal::InternalKeyedState>> CreateInternalState(
      uint32_t id) override;
  base::Status RestoreStateRecord(uint32_t id, uint32_t key_group,
                                  const format::KeyedRecord& record) override;

 private:
  struct Impl;
  RocksDbKeyedStateBackend(uint32_t max_parallelism, format::KeyGroupRange key_groups,
                           std::string owner, std::unique_ptr<Impl> impl);
  base::Status RestoreImpl(const KeyedRestoreSource& source);
  // Opens the fresh instance if none is open yet.
  base::Status EnsureInstance();
  base::Status FlushRestoreBatch();
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::engine
