// KeyTally: per-key sums of the open key groups, then a bounded min-heap per list. The heap's
// front is the smallest kept key (ties: the greatest key), the first to be evicted; a key that
// does not beat it is dismissed without a copy.
#include "read/key_tally.h"

#include <algorithm>
#include <functional>

namespace ckpt::ops::internal {
namespace {

// True if (a_bytes, a_key) ranks below (b_bytes, b_key): fewer bytes, or as many and a greater key.
bool RanksBelow(uint64_t a_bytes, std::string_view a_key, uint64_t b_bytes,
                std::string_view b_key) {
  return a_bytes != b_bytes ? a_bytes < b_bytes : a_key > b_key;
}

// std heap comparator for a min-heap by rank: the lowest-ranked key at the front.
bool HeapOrder(const KeyTally::Ranked& a, const KeyTally::Ranked& b) {
  return RanksBelow(b.bytes, b.key, a.bytes, a.key);
}

}  // namespace

void KeyTally::Open::Clear() {
  arena.clear();
  std::fill(slots.begin(), slots.end(), Slot{});
  sums.clear();
  first_state.clear();
  keys = 0;
}

void KeyTally::Grow(Open& open) {
  std::vector<Open::Slot> old = std::move(open.slots);
  open.slots.assign(old.empty() ? 1024 : old.size() * 2, Open::Slot{});
  const size_t mask = open.slots.size() - 1;
  for (const auto& s : old) {
    if (s.index == 0) continue;
    size_t i = s.hash & mask;
    while (open.slots[i].index != 0) i = (i + 1) & mask;
    open.slots[i] = s;
  }
}

uint32_t KeyTally::Find(Open& open, std::string_view key, uint32_t state) {
  // Load factor at most 1/2.
  if ((open.keys + 1) * 2 > open.slots.size()) Grow(open);
  const uint64_t hash = std::hash<std::string_view>{}(key);
  const size_t mask = open.slots.size() - 1;
  size_t i = hash & mask;
  while (open.slots[i].index != 0) {
    const Open::Slot& s = open.slots[i];
    if (s.hash == hash && std::string_view(open.arena).substr(s.offset, s.length) == key) {
      return s.index - 1;
    }
    i = (i + 1) & mask;
  }
  const uint32_t k = open.keys++;
  open.slots[i] = {hash, static_cast<uint32_t>(open.arena.size()),
                   static_cast<uint32_t>(key.size()), k + 1};
  open.arena.append(key);
  open.sums.resize(open.sums.size() + per_state_.size() + 1);
  open.first_state.push_back(state);
  return k;
}

void KeyTally::Add(uint32_t state, uint32_t key_group, std::string_view key, uint64_t bytes) {
  if (n_ == 0) return;
  auto [it, fresh] = open_.try_emplace(key_group);
  if (fresh && !spare_.empty()) {
    it->second = std::move(spare_.back());
    spare_.pop_back();
  }
  Open& open = it->second;
  const uint32_t k = Find(open, key, state);
  Sum* sums = &open.sums[static_cast<size_t>(k) * (per_state_.size() + 1)];
  sums[0].bytes += bytes;
  sums[0].entries += 1;
  if (state >= per_state_.size()) return;
  sums[state + 1].bytes += bytes;
  sums[state + 1].entries += 1;
}

void KeyTally::CloseAll() {
  for (auto& [g, open] : open_) {
    Close(g, open);
    open.Clear();
    spare_.push_back(std::move(open));
  }
  open_.clear();
}

void KeyTally::CloseAllBut(uint32_t key_group) {
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->first == key_group) {
      ++it;
      continue;
    }
    Close(it->first, it->second);
    it->second.Clear();
    spare_.push_back(std::move(it->second));
    it = open_.erase(it);
  }
}

void KeyTally::Close(uint32_t key_group, Open& open) {
  const size_t width = per_state_.size() + 1;
  for (const auto& slot : open.slots) {
    if (slot.index == 0) continue;
    const uint32_t k = slot.index - 1;
    const std::string_view key = std::string_view(open.arena).substr(slot.offset, slot.length);
    const Sum* sums = &open.sums[static_cast<size_t>(k) * width];
    Offer(operator_, key, open.first_state[k], key_group, sums[0]);
    for (size_t s = 0; s < per_state_.size(); ++s) {
      if (sums[s + 1].entries == 0) continue;
      Offer(per_state_[s], key, static_cast<uint32_t>(s), key_group, sums[s + 1]);
    }
  }
}

void KeyTally::Offer(Heap& heap, std::string_view key, uint32_t state, uint32_t key_group,
                     const Sum& sum) const {
  if (heap.size() >= n_ &&
      !RanksBelow(heap.front().bytes, heap.front().key, sum.bytes, key)) {
    return;
  }
  Ranked r{std::string(key), state, key_group, sum.bytes, sum.entries};
  if (heap.size() < n_) {
    heap.push_back(std::move(r));
    std::push_heap(heap.begin(), heap.end(), HeapOrder);
    return;
  }
  std::pop_heap(heap.begin(), heap.end(), HeapOrder);
  heap.back() = std::move(r);
  std::push_heap(heap.begin(), heap.end(), HeapOrder);
}

std::vector<KeyTally::Ranked> KeyTally::Sorted(Heap heap) {
  std::sort(heap.begin(), heap.end(), [](const Ranked& a, const Ranked& b) {
    return RanksBelow(b.bytes, b.key, a.bytes, a.key);
  });
  return heap;
}

}  // namespace ckpt::ops::internal
