// CowSlot: a table owned by a state store and possibly shared with snapshots, and the
// copy-on-write step that makes it writable (see heap_keyed_state_backend.h for the contract).
// A snapshot shares a table through a CowRef, which counts it as a reader until dropped; the
// owner writes in place only once no reader is left, and otherwise copies.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "ckpt/engine/state/heap_keyed_state_backend.h"  // CowStats

namespace ckpt::engine::state_internal {

// A table of a CowSlot with the number of snapshot references (CowRef) reading it. A copy
// starts with no reader.
template <typename T>
struct CowTable : T {
  CowTable() = default;
  CowTable(const CowTable& other) : T(other) {}
  CowTable& operator=(const CowTable&) = delete;

  // Incremented by the owner's thread when a snapshot shares the table; decremented (release)
  // by whichever thread drops the snapshot's reference.
  mutable std::atomic<uint32_t> readers{0};
};

// A snapshot's read-only reference to a slot's table. Dropping it publishes the snapshot's
// reads to the owner: its release decrement pairs with MakeWritable's acquire load, so an
// in-place write comes after them. (Testing shared_ptr::use_count() and then issuing an
// acquire fence would not do: use_count() is no synchronization point, [util.smartptr.shared]/4,
// and ThreadSanitizer does not model fences: it reported the async phase's reads racing the
// task's in-place writes.) Move-only; any thread may drop it.
template <typename T>
class CowRef {
 public:
  CowRef() = default;
  explicit CowRef(std::shared_ptr<const CowTable<T>> table) : table_(std::move(table)) {
    if (table_) table_->readers.fetch_add(1, std::memory_order_relaxed);
  }
  CowRef(CowRef&& other) noexcept : table_(std::move(other.table_)) {}
  CowRef& operator=(CowRef&& other) noexcept {
    if (this != &other) {
      Reset();
      table_ = std::move(other.table_);
    }
    return *this;
  }
  CowRef(const CowRef&) = delete;
  CowRef& operator=(const CowRef&) = delete;
  ~CowRef() { Reset(); }

  const T* get() const { return table_.get(); }
  const T& operator*() const { return *table_; }
  const T* operator->() const { return table_.get(); }
  explicit operator bool() const { return table_ != nullptr; }

 private:
  void Reset() {
    if (!table_) return;
    table_->readers.fetch_sub(1, std::memory_order_release);
    table_.reset();
  }

  std::shared_ptr<const CowTable<T>> table_;
};

// `exclusive` means no snapshot was taken since the owner last made sure it is the only owner,
// so it may write in place without looking at the readers.
template <typename T>
struct CowSlot {
  std::shared_ptr<CowTable<T>> table;
  bool exclusive = true;
};

template <typename T>
std::shared_ptr<CowTable<T>> NewCowTable() {
  return std::make_shared<CowTable<T>>();
}

// Shares the slot's table with a snapshot (an empty reference when there is none).
template <typename T>
CowRef<T> ShareWithSnapshot(CowSlot<T>& slot) {
  if (!slot.table) return CowRef<T>();
  slot.exclusive = false;
  return CowRef<T>(slot.table);
}

// Returns the slot's table ready for writing: created if absent, copied if a snapshot still
// reads it (counted in `stats` with `entries` = fn(table) entries), otherwise written in place.
template <typename T, typename CountFn>
T* MakeWritable(CowSlot<T>& slot, CowStats& stats, CountFn&& count_entries) {
  if (!slot.table) {
    slot.table = NewCowTable<T>();
    slot.exclusive = true;
  } else if (!slot.exclusive) {
    // Acquire: pairs with the release of the last reader, so our writes come after its reads.
    if (slot.table->readers.load(std::memory_order_acquire) > 0) {
      slot.table = std::make_shared<CowTable<T>>(*slot.table);
      ++stats.tables_copied;
      stats.entries_copied += count_entries(*slot.table);
    }
    slot.exclusive = true;
  }
  return slot.table.get();
}

}  // namespace ckpt::engine::state_internal
