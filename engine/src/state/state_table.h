// StateTable<Payload>: the open-addressing hash table behind one (state, key group) of the heap
// keyed backend. Entries are {hash, encoded key, encoded namespace, payload}; linear probing over
// a power-of-two slot array, load factor <= 3/4, backward-shift deletion (no
// tombstones). Callers pass the precomputed hash, so a lookup hashes nothing; on a hash match the
// key and namespace (a few bytes each) are compared inline (SameBytes). Copyable (deep):
// a copy is what copy-on-write makes. Not thread-safe; a const table may be read by any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::engine::state_internal {

// Marks an occupied slot; stored hashes always have it set, empty slots store 0.
inline constexpr uint64_t kOccupied = uint64_t{1} << 63;

template <typename Payload>
struct TableEntry {
  uint64_t hash = 0;  // 0 = empty slot, else full hash | kOccupied
  std::string key;
  std::string ns;
  Payload payload{};
};

// Byte equality of an encoded key or namespace: short ones (an int64 key is at most 10 bytes, a
// window namespace 16) in an inline loop rather than a call into memcmp.
inline bool SameBytes(const std::string& a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n > 16) return std::memcmp(p, q, n) == 0;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

template <typename Payload>
class StateTable {
 public:
  using Entry = TableEntry<Payload>;

  size_t size() const { return size_; }

  Payload* Find(uint64_t hash, std::string_view key, std::string_view ns) {
    if (slots_.empty()) return nullptr;
    const uint64_t h = hash | kOccupied;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.hash == 0) return nullptr;
      if (e.hash == h && SameBytes(e.key, key) && SameBytes(e.ns, ns)) return &e.payload;
    }
  }
  const Payload* Find(uint64_t hash, std::string_view key, std::string_view ns) const {
    return const_cast<StateTable*>(this)->Find(hash, key, ns);
  }

  // Returns the payload of (key, ns), inserting a value-initialized one if absent.
  Payload& FindOrInsert(uint64_t hash, std::string_view key, std::string_view ns,
                        bool* inserted) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    const uint64_t h = hash | kOccupied;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.hash == 0) {
        e.hash = h;
        e.key.assign(key);
        e.ns.assign(ns);
        e.payload = Payload{};
        ++size_;
        *inserted = true;
        return e.payload;
      }
      if (e.hash == h && SameBytes(e.key, key) && SameBytes(e.ns, ns)) {
        *inserted = false;
        return e.payload;
      }
    }
  }

  // Removes (key, ns); returns whether it was present.
  bool Erase(uint64_t hash, std::string_view key, std::string_view ns) {
    if (slots_.empty()) return false;
    const uint64_t h = hash | kOccupied;
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.hash == 0) return false;
      if (e.hash == h && SameBytes(e.key, key) && SameBytes(e.ns, ns)) break;
    }
    // Backward-shift: move later entries of the probe run into the hole when their home slot
    // does not lie strictly between the hole and their position.
    size_t hole = i;
    for (size_t j = (hole + 1) & mask_;; j = (j + 1) & mask_) {
      Entry& e = slots_[j];
      if (e.hash == 0) break;
      const size_t home = e.hash & mask_;
      const bool between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!between) {
        slots_[hole] = std::move(e);
        hole = j;
      }
    }
    Entry& last = slots_[hole];
    last.hash = 0;
    last.key.clear();
    last.ns.clear();
    last.payload = Payload{};
    --size_;
    return true;
  }

  // Calls fn(const Entry&) for every occupied slot, in slot order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Entry& e : slots_) {
      if (e.hash != 0) fn(e);
    }
  }

  // Pointers to the occupied entries sorted by (key, ns): the canonical snapshot order.
  std::vector<const Entry*> SortedEntries() const {
    std::vector<const Entry*> out;
    out.reserve(size_);
    ForEach([&](const Entry& e) { out.push_back(&e); });
    std::sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) {
      if (a->key != b->key) return a->key < b->key;
      return a->ns < b->ns;
    });
    return out;
  }

 private:
  void Grow() {
    const size_t new_cap = slots_.empty() ? 16 : slots_.size() * 2;
    std::vector<Entry> old = std::move(slots_);
    slots_.clear();
    slots_.resize(new_cap);
    mask_ = new_cap - 1;
    for (Entry& e : old) {
      if (e.hash == 0) continue;
      size_t i = e.hash & mask_;
      while (slots_[i].hash != 0) i = (i + 1) & mask_;
      slots_[i] = std::move(e);
    }
  }

  std::vector<Entry> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace ckpt::engine::state_internal
