// HeapKeyedStateBackend: keyed state on the heap (Flink's HashMapStateBackend); full canonical
// snapshots.
//
// Storage: per (state, key group) an open-addressing hash table of entries
// {hash, encoded key, encoded namespace, payload}; the key's hash is computed once in
// SetCurrentKey and the namespace's once in SetCurrentNamespace, so a state access is one probe
// sequence and no allocation (except when an entry or a map entry is created).
//
// Copy-on-write, granularity = one (state, key group) table: Snapshot() only takes a reference
// to every table (O(states x key groups) pointer copies, no entry copied) and marks them shared.
// The first write to a shared table after a snapshot copies that table (its entries, deep) if
// the snapshot still holds it; tables the snapshot already released are written in place.
// Cost: at most one copy of each table written between two snapshots, i.e. at most one copy of
// the touched state per checkpoint, paid by the processing thread spread over the first writes
// after the barrier (cow_stats() counts it). Reads never copy. Measured (release build, loaded
// 2-core machine): the sync phase takes ~0.01 ms for 100k keys; with the snapshot held across
// the next 1M updates, throughput drops from 1.8 to 1.3 M updates/s (100k keys, 128 key
// groups) and from 12.7 to 10.7 M/s (1k keys).
//
// Thread-safety: as KeyedStateBackend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/engine/state/keyed_state_backend.h"

namespace ckpt::engine {

// What copy-on-write cost so far (for tests and metrics).
struct CowStats {
  uint64_t snapshots = 0;       // Snapshot() calls
  uint64_t tables_copied = 0;   // (state, key group) tables copied because a snapshot held them
  uint64_t entries_copied = 0;  // entries in those tables
};

class HeapKeyedStateBackend : public KeyedStateBackend {
 public:
  // `key_groups` must be non-empty and within [0, max_parallelism). `owner` (e.g. "keyed-sum
  // (2/4)") is used in error messages.
  HeapKeyedStateBackend(uint32_t max_parallelism, format::KeyGroupRange key_groups,
                        std::string owner);
  ~HeapKeyedStateBackend() override;

  StateBackendKind kind() const override;
  // Synchronous snapshot phase: freezes the current contents of every state and the timers.
  // Never copies entries (see the class comment). Never fails.
  std::unique_ptr<KeyedStateSnapshot> Snapshot() override;
  uint64_t NumEntries() const override;
  const CowStats& cow_stats() const;

 protected:
  base::Result<std::unique_ptr<state_internal::InternalKeyedState>> CreateInternalState(
      uint32_t id) override;
  base::Status RestoreStateRecord(uint32_t id, uint32_t key_group,
                                  const format::KeyedRecord& record) override;
};

}  // namespace ckpt::engine
