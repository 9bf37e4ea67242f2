// CowSlot: a table owned by a state store and possibly shared with snapshots, and the
// copy-on-write step that makes it writable (see heap_keyed_state_backend.h for the contract).
#pragma once

#include <atomic>
#include <memory>

#include "ckpt/engine/state/heap_keyed_state_backend.h"  // CowStats

namespace ckpt::engine::state_internal {

// `exclusive` means no snapshot was taken since the owner last made sure it is the only owner,
// so it may write in place without looking at the reference count.
template <typename T>
struct CowSlot {
  std::shared_ptr<T> table;
  bool exclusive = true;
};

// Returns the slot's table ready for writing: created if absent, copied if a snapshot still
// holds it (counted in `stats` with `entries` = fn(table) entries), otherwise written in place.
template <typename T, typename CountFn>
T* MakeWritable(CowSlot<T>& slot, CowStats& stats, CountFn&& count_entries) {
  if (!slot.table) {
    slot.table = std::make_shared<T>();
    slot.exclusive = true;
  } else if (!slot.exclusive) {
    if (slot.table.use_count() > 1) {
      slot.table = std::make_shared<T>(*slot.table);
      ++stats.tables_copied;
      stats.entries_copied += count_entries(*slot.table);
    } else {
      // The snapshot released it: its reads happen-before its release (acq_rel decrement of the
      // count); this fence pairs with that so our writes come after them.
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    slot.exclusive = true;
  }
  return slot.table.get();
}

}  // namespace ckpt::engine::state_internal
