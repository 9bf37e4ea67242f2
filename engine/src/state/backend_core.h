// Private internals of the keyed backends: BackendCore holds what every backend shares (current
// key and namespace, state declarations, the heap timers) and the heap backend's copy-on-write
// tables (see heap_keyed_state_backend.h for the design and the copy-on-write contract).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"
#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"
#include "state/cow_slot.h"
#include "state/state_table.h"

namespace ckpt::engine::state_internal {

using ValueTable = StateTable<format::Value>;
// MAP payload: encoded user key -> (user key, value), ordered by the encoded bytes.
using UserMap = std::map<std::string, std::pair<format::Value, format::Value>, std::less<>>;
using MapTable = StateTable<UserMap>;

struct TimerEntry {
  int64_t timestamp = 0;
  std::string key;  // encoded key
  std::string ns;   // encoded namespace
  uint32_t key_group = 0;
  format::Value key_value;
  bool operator<(const TimerEntry& o) const {
    if (timestamp != o.timestamp) return timestamp < o.timestamp;
    if (key != o.key) return key < o.key;
    return ns < o.ns;
  }
};
using TimerSet = std::set<TimerEntry>;

inline constexpr std::string_view kEventTimersName = "_timers/event-time";
inline constexpr std::string_view kProcessingTimersName = "_timers/processing-time";

struct KeyedStateInfo {
  pb::StateDescriptor descriptor;
  bool registered = false;  // by the operator (otherwise only restored)
  ReduceFunction reduce;
  AggregateFunction aggregate;
  pb::TypeDescriptor list_type;  // LIST: list<value_type>, the record value's type
  std::vector<CowSlot<ValueTable>> values;  // non-MAP kinds, by key group - range.start
  std::vector<CowSlot<MapTable>> maps;      // MAP
  CowSlot<TimerSet>* timers = nullptr;      // TIMERS: the backend's set of that domain
};

struct BackendCore {
  uint32_t max_parallelism = 0;
  format::KeyGroupRange range;
  std::string owner;
  std::vector<KeyedStateInfo> states;  // by state id
  std::map<std::string, uint32_t, std::less<>> by_name;

  // Current key and namespace; hashes computed once when they are set.
  format::Value current_key;
  std::string current_encoded_key;
  uint32_t current_key_group = 0;
  bool key_in_range = false;
  size_t kg_index = 0;
  uint64_t key_hash = 0;
  std::string current_ns;
  uint64_t ns_hash = 0;
  uint64_t hash = 0;  // combination of key_hash and ns_hash
  // Incremented whenever the current key or namespace changes: a backend that derives bytes from
  // them (RocksDB's key prefix) rebuilds those only when this moved.
  uint64_t key_version = 0;

  // Key type declared for states that did not declare one: learned from the first key, or from
  // a restored or declared state that names a real key type. A snapshot taken before any key
  // records the placeholder bytes (see IsKeyTypePlaceholder), which teaches nothing.
  pb::TypeDescriptor key_type;
  bool key_type_known = false;
  // Learns `t` as the key type unless one is known or `t` is a placeholder.
  void LearnKeyType(const pb::TypeDescriptor& t);

  std::string scratch;  // reusable encoding buffer (map user keys)
  CowStats cow;

  CowSlot<TimerSet> event_timers{NewCowTable<TimerSet>(), true};
  CowSlot<TimerSet> processing_timers{NewCowTable<TimerSet>(), true};
  int64_t timer_event_state = -1;       // state ids of the TIMERS states, -1 until used
  int64_t timer_processing_state = -1;
  pb::TypeDescriptor timer_ns_type;
  bool timer_ns_type_set = false;
  int64_t watermark = INT64_MIN;
  // Called after every timer change (registered, deleted, or removed because it fired) when set
  // (the changelog backend logs timer changes).
  std::function<void(bool event_time, const TimerEntry& timer, bool added)> timer_observer;

  void UpdateHash() { hash = CombineHash(key_hash, ns_hash); }
  // Mixes the namespace hash in so (key, ns) pairs spread even when keys repeat across windows.
  static uint64_t CombineHash(uint64_t key_hash, uint64_t ns_hash) {
    return key_hash ^ (ns_hash * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL);
  }
  base::Status NotOwned() const;
  // The table of state `id` for the current key group, or null (nothing stored / not owned).
  const ValueTable* ReadValues(uint32_t id) const;
  const MapTable* ReadMaps(uint32_t id) const;
  // The writable table (created or copied on demand); null if the key group is not owned.
  ValueTable* WriteValues(uint32_t id);
  MapTable* WriteMaps(uint32_t id);
  // Declares (or finds) a state; `registered` marks an operator registration.
  base::Result<uint32_t> Declare(const pb::StateDescriptor& descriptor, bool registered);
  base::Result<uint32_t> TimerStateId(bool event_time);
  TimerSet* WriteTimers(bool event_time);

  template <typename T>
  T* Writable(CowSlot<T>& slot) {
    return MakeWritable(slot, cow, [](const T& t) { return t.size(); });
  }
};

// What KeyedStateBackend::Snapshot() freezes.
struct FrozenKeyedState {
  uint32_t max_parallelism = 0;
  format::KeyGroupRange range;
  std::vector<pb::StateDescriptor> states;
  std::vector<std::vector<CowRef<ValueTable>>> values;  // per state, per group
  std::vector<std::vector<CowRef<MapTable>>> maps;
  std::vector<CowRef<TimerSet>> timers;  // per state (TIMERS kinds only)
  uint64_t num_entries = 0;

  // Timers by key group, built on first use by the (single) async reader.
  mutable std::once_flag timer_index_once;
  mutable std::vector<std::vector<std::vector<const TimerEntry*>>> timers_by_group;
};

// Freezes every state and the timers of `core` (copy-on-write references only; a backend that
// keeps its states elsewhere freezes just its timers: its heap tables are empty).
std::unique_ptr<FrozenKeyedState> Freeze(BackendCore& core);
// The declared states of `core` as a snapshot records them (what Freeze puts in `states`).
std::vector<pb::StateDescriptor> DescribeStates(const BackendCore& core);

// The heap backend's KeyedStateSnapshot over a FrozenKeyedState.
class HeapKeyedStateSnapshot : public KeyedStateSnapshot {
 public:
  explicit HeapKeyedStateSnapshot(std::unique_ptr<FrozenKeyedState> frozen);
  ~HeapKeyedStateSnapshot() override;
  const std::vector<pb::StateDescriptor>& states() const override;
  uint32_t max_parallelism() const override;
  format::KeyGroupRange key_group_range() const override;
  uint64_t NumEntries() const override;
  base::Status ForEachRecord(
      uint32_t key_group,
      const std::function<base::Status(const format::KeyedRecord&)>& emit) const override;

 private:
  std::unique_ptr<FrozenKeyedState> frozen_;
};

// Hash of an encoded key or namespace (XXH3-64).
uint64_t HashBytes(std::string_view bytes);

// Whether a restored descriptor's key type says nothing about the keys: unset, or bytes, which
// a snapshot records for states of a subtask that had seen no key yet. (A job keyed by bytes
// loses nothing: its first key teaches bytes again, and its restored timers decode as bytes.)
bool IsKeyTypePlaceholder(const pb::TypeDescriptor& t);

}  // namespace ckpt::engine::state_internal
