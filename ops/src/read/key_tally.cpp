// KeyTally: per-key sums of the open key groups, then a bounded min-heap per list. The heap's
// front is the smallest kept key (ties: the greatest key), the first to be evicted.
#include "read/key_tally.h"

#include <algorithm>

namespace ckpt::ops::internal {
namespace {

// True if `a` ranks below `b`: fewer bytes, or as many and a greater key.
bool RanksBelow(const KeyTally::Ranked& a, const KeyTally::Ranked& b) {
  return a.bytes != b.bytes ? a.bytes < b.bytes : a.key > b.key;
}

// std heap comparator for a min-heap by rank: the lowest-ranked key at the front.
bool HeapOrder(const KeyTally::Ranked& a, const KeyTally::Ranked& b) { return RanksBelow(b, a); }

}  // namespace

void KeyTally::Add(uint32_t state, uint32_t key_group, std::string_view key, uint64_t bytes) {
  if (n_ == 0) return;
  Open& open = open_[key_group];
  if (open.per_state.empty()) open.per_state.resize(per_state_.size());
  auto [all, fresh] = open.all.try_emplace(std::string(key));
  if (fresh) all->second.state = state;
  all->second.bytes += bytes;
  all->second.entries += 1;
  if (state >= per_state_.size()) return;
  Sum& sum = open.per_state[state][all->first];
  sum.state = state;
  sum.bytes += bytes;
  sum.entries += 1;
}

void KeyTally::CloseAll() {
  for (auto& [g, open] : open_) Close(g, open);
  open_.clear();
}

void KeyTally::CloseAllBut(uint32_t key_group) {
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->first == key_group) {
      ++it;
      continue;
    }
    Close(it->first, it->second);
    it = open_.erase(it);
  }
}

void KeyTally::Close(uint32_t key_group, Open& open) {
  for (size_t s = 0; s < open.per_state.size(); ++s) {
    for (const auto& [key, sum] : open.per_state[s]) Offer(per_state_[s], key, key_group, sum);
  }
  for (const auto& [key, sum] : open.all) Offer(operator_, key, key_group, sum);
}

void KeyTally::Offer(Heap& heap, const std::string& key, uint32_t key_group,
                     const Sum& sum) const {
  Ranked r{key, sum.state, key_group, sum.bytes, sum.entries};
  if (heap.size() < n_) {
    heap.push_back(std::move(r));
    std::push_heap(heap.begin(), heap.end(), HeapOrder);
    return;
  }
  if (!RanksBelow(heap.front(), r)) return;
  std::pop_heap(heap.begin(), heap.end(), HeapOrder);
  heap.back() = std::move(r);
  std::push_heap(heap.begin(), heap.end(), HeapOrder);
}

std::vector<KeyTally::Ranked> KeyTally::Sorted(Heap heap) {
  std::sort(heap.begin(), heap.end(), [](const Ranked& a, const Ranked& b) { return RanksBelow(b, a); });
  return heap;
}

}  // namespace ckpt::ops::internal
