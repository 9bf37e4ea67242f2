// KeyedStateSnapshot: the frozen contents of a KeyedStateBackend (all states and timers) taken by
// KeyedStateBackend::Snapshot() in the synchronous phase. Immutable: any thread may read it
// while the backend keeps processing; the async phase encodes it into a KEYED_STATE container.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"

namespace ckpt::engine {

namespace state_internal {
struct FrozenKeyedState;
}  // namespace state_internal

class KeyedStateSnapshot {
 public:
  explicit KeyedStateSnapshot(std::unique_ptr<state_internal::FrozenKeyedState> frozen);
  ~KeyedStateSnapshot();

  // Declared states; a record's state_index indexes this list. Includes the two timer states.
  // Key types not declared at registration are filled with the natural type of the keys seen.
  const std::vector<pb::StateDescriptor>& states() const;
  uint32_t max_parallelism() const;
  format::KeyGroupRange key_group_range() const;
  // Entries over all states and timers (a map state counts its map entries).
  uint64_t NumEntries() const;

  // Calls `emit` for every record of `key_group` in canonical order (state index, then key,
  // namespace and user-key bytes), values encoded with their declared types (LIST: the whole list;
  // MAP: one record per entry; TIMERS: user key = timestamp, empty value). The record's views are
  // valid during the call only. InvalidArgument naming the state if a value does not match its
  // declared type; otherwise the first error `emit` returns.
  base::Status ForEachRecord(
      uint32_t key_group,
      const std::function<base::Status(const format::KeyedRecord&)>& emit) const;

 private:
  std::unique_ptr<state_internal::FrozenKeyedState> frozen_;
};

}  // namespace ckpt::engine
