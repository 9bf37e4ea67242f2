// KeyedStateBackend: the keyed state of one operator subtask (Flink's AbstractKeyedStateBackend).
// It owns the key groups of one contiguous range; states are registered from descriptors and
// accessed through small handles (ValueState, ListState, ...) that act on the current key and
// namespace and call the backend's per-state internals (InternalKeyedState). Timers are kept on
// the heap by every backend (Flink's HEAP timer service) and snapshotted as two STATE_TIMERS
// states in the canonical format.
//
// Implementations: HeapKeyedStateBackend (heap_keyed_state_backend.h), RocksDbKeyedStateBackend
// (rocksdb_keyed_state_backend.h) and ChangelogKeyedStateBackend, which wraps either
// (changelog_keyed_state_backend.h); CreateKeyedStateBackend (state_backend_config.h) picks one.
// Each backend owns its snapshot strategy (SnapshotSync: the sync phase, returning the async part)
// and its restore (Restore).
//
// Thread-safety: not thread-safe; used by the subtask's thread only. Snapshots and async parts it
// returns are readable by any thread while processing continues.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/state/aggregating_state.h"
#include "ckpt/engine/state/list_state.h"
#include "ckpt/engine/state/map_state.h"
#include "ckpt/engine/state/reducing_state.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/engine/state/value_state.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

class KeyedStateSnapshot;
class TimerService;
namespace state_internal {
struct BackendCore;
}  // namespace state_internal

struct KeyedRestoreSource;
class SnapshotAsyncPart;
struct CheckpointOptions;
enum class StateBackendKind;
namespace state_internal {
class InternalKeyedState;
}  // namespace state_internal

class KeyedStateBackend {
 public:
  virtual ~KeyedStateBackend();
  KeyedStateBackend(const KeyedStateBackend&) = delete;
  KeyedStateBackend& operator=(const KeyedStateBackend&) = delete;

  virtual StateBackendKind kind() const = 0;
  uint32_t max_parallelism() const;
  format::KeyGroupRange key_group_range() const;
  const std::string& owner() const;

  // Registration. Registering a name again returns a handle to the same state (the descriptor
  // must match: FailedPrecondition otherwise); a state restored from a snapshot is adopted if
  // compatible (CheckStateCompatible). InvalidArgument if the descriptor's kind does not match
  // the call or a type is malformed; IOError if the backend cannot create the state's storage.
  base::Result<ValueState> GetValueState(const pb::StateDescriptor& descriptor);
  base::Result<ListState> GetListState(const pb::StateDescriptor& descriptor);
  base::Result<MapState> GetMapState(const pb::StateDescriptor& descriptor);
  base::Result<ReducingState> GetReducingState(const pb::StateDescriptor& descriptor,
                                               ReduceFunction reduce);
  base::Result<AggregatingState> GetAggregatingState(const pb::StateDescriptor& descriptor,
                                                     AggregateFunction aggregate);

  // Event- and processing-time timers of this backend (kept as two STATE_TIMERS states).
  TimerService* timer_service();

  // Sets the key subsequent state accesses act on. `encoded_key` is EncodeRecordKey(key) and
  // `key_group` its KeyGroupOfEncodedKey; both are copied. A key group outside
  // key_group_range() is remembered: every access then fails (mutators return
  // FailedPrecondition naming the key group, getters return nothing) until a valid key is set.
  void SetCurrentKey(const format::Value& key, std::string_view encoded_key, uint32_t key_group);
  // Convenience for tests and tools: encodes `key` and computes its key group.
  // InvalidArgument if the key has no natural type or its group is outside the range.
  base::Status SetCurrentKey(const format::Value& key);
  const format::Value& current_key() const;
  std::string_view current_encoded_key() const;
  uint32_t current_key_group() const;

  // Sets the namespace (encoded with the states' namespace_type; empty = VOID). Copied.
  void SetCurrentNamespace(std::string_view encoded_namespace);
  std::string_view current_namespace() const;

  // A consistent, immutable view of every state and the timers in the canonical record form
  // (what a canonical savepoint contains), readable from any thread. Heap: copy-on-write
  // references, never copies entries; RocksDB: a RocksDB snapshot (sequence number) plus the
  // frozen timers. Never fails.
  virtual std::unique_ptr<KeyedStateSnapshot> Snapshot() = 0;

  // Synchronous snapshot phase of checkpoint/savepoint `options`: returns the async part that
  // writes it. The default (heap, canonical savepoints of every backend) freezes Snapshot() and
  // writes one KEYED_STATE container. IOError if the backend cannot freeze its state.
  virtual base::Result<std::unique_ptr<SnapshotAsyncPart>> SnapshotSync(
      const CheckpointOptions& options);
  // A checkpoint completed / was aborted (incremental backends confirm or forget what they
  // uploaded for it). Default: nothing.
  virtual void NotifyCheckpointComplete(int64_t checkpoint_id);
  virtual void NotifyCheckpointAborted(int64_t checkpoint_id);

  // Restores this subtask's share (the key groups of key_group_range()) of the keyed state of
  // one operator of a snapshot. Call before the operator registers its states. The default
  // (heap) reads canonical handles; Unimplemented naming the handle kind for others.
  // InvalidArgument if the max parallelism differs; Corruption naming the file for bad data.
  virtual base::Status Restore(const KeyedRestoreSource& source);

  // Restore, record by record: declares the states of a snapshot (descriptors as stored in the
  // metadata) and returns a local state id for each, parallel to `states`. A name already
  // declared must be compatible (FailedPrecondition otherwise).
  base::Result<std::vector<uint32_t>> DeclareRestoredStates(
      const std::vector<pb::StateDescriptor>& states);
  // Inserts one record of key group `key_group` into the state `local_state_id` returned by
  // DeclareRestoredStates. Corruption (naming the state) if the record's bytes do not decode
  // with the declared types; InvalidArgument if `key_group` is outside the range.
  base::Status RestoreRecord(uint32_t local_state_id, uint32_t key_group,
                             const format::KeyedRecord& record);

  // Number of (key, namespace) entries over all states and timers (map states count their
  // entries). RocksDB: exact, by iterating (for tests and tools, not the hot path).
  virtual uint64_t NumEntries() const = 0;

 protected:
  // `key_groups` must be non-empty and within [0, max_parallelism).
  KeyedStateBackend(uint32_t max_parallelism, format::KeyGroupRange key_groups, std::string owner);

  // The storage of declared state `id` (never a TIMERS state); called once per state, on its
  // first registration.
  virtual base::Result<std::unique_ptr<state_internal::InternalKeyedState>> CreateInternalState(
      uint32_t id) = 0;
  // RestoreRecord for a non-timer state (range and id already checked).
  virtual base::Status RestoreStateRecord(uint32_t id, uint32_t key_group,
                                          const format::KeyedRecord& record) = 0;

  // A backend that decorates `inner` (the changelog backend): it shares inner's key context,
  // declarations and timers, so both see the same current key and state ids.
  explicit KeyedStateBackend(KeyedStateBackend& inner);

  // Key context, declarations and timers, shared by every implementation.
  state_internal::BackendCore* core() const { return core_.get(); }

  // Restore of a snapshot with changelog handles, by a backend without changelog
  // (changelog switched off across the restore) or by the changelog backend's inner one: Restore
  // of the materialized handles, then replay of the log segments of the owned key groups.
  static bool HasChangelogHandles(const KeyedRestoreSource& source);
  base::Status RestoreWithChangelog(const KeyedRestoreSource& source);

 private:
  friend class TimerService;
  friend class ChangelogKeyedStateBackend;
  base::Result<state_internal::InternalKeyedState*> Internal(uint32_t id);

  std::shared_ptr<state_internal::BackendCore> core_;
  std::shared_ptr<TimerService> timers_;
  std::vector<std::unique_ptr<state_internal::InternalKeyedState>> internals_;  // by state id
};

}  // namespace ckpt::engine
