// KeyedStateSnapshot: a frozen, immutable view of a keyed backend's contents (all states and
// timers) in canonical record form, taken by KeyedStateBackend::Snapshot(). Any thread may read
// it while the backend keeps processing; the canonical async part encodes it into a KEYED_STATE
// container. Implemented by each backend (heap: copy-on-write tables; RocksDB: a RocksDB
// snapshot).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"

namespace ckpt::engine {

class KeyedStateSnapshot {
 public:
  virtual ~KeyedStateSnapshot() = default;

  // Declared states; a record's state_index indexes this list. Includes the two timer states.
  // Key types not declared at registration are filled with the natural type of the keys seen.
  virtual const std::vector<pb::StateDescriptor>& states() const = 0;
  virtual uint32_t max_parallelism() const = 0;
  virtual format::KeyGroupRange key_group_range() const = 0;
  // Entries over all states and timers (a map state counts its map entries).
  virtual uint64_t NumEntries() const = 0;

  // Calls `emit` for every record of `key_group` in canonical order (state index, then key,
  // namespace and user-key bytes), values encoded with their declared types (LIST: the whole list;
  // MAP: one record per entry; TIMERS: user key = timestamp, empty value). The record's views are
  // valid during the call only. InvalidArgument naming the state if a value does not match its
  // declared type; Corruption/IOError if the backend's storage fails; otherwise the first error
  // `emit` returns.
  virtual base::Status ForEachRecord(
      uint32_t key_group,
      const std::function<base::Status(const format::KeyedRecord&)>& emit) const = 0;
};

}  // namespace ckpt::engine
