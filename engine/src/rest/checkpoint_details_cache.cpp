// CheckpointDetailsCache: requested checkpoint details outlive the bounded history.
#include "rest/checkpoint_details_cache.h"

namespace ckpt::engine::rest {

void CheckpointDetailsCache::RememberLocked(const CheckpointStatsEntry& e) {
  entries_[e.checkpoint_id] = e;
  while (entries_.size() > max_entries_) entries_.erase(entries_.begin());
}

void CheckpointDetailsCache::Observe(const CheckpointStatsSnapshot& s) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const CheckpointStatsEntry& e : s.history) {
    const bool restored = s.latest_restored && s.latest_restored->checkpoint_id == e.checkpoint_id;
    if (restored || entries_.count(e.checkpoint_id) != 0) RememberLocked(e);
  }
}

std::optional<CheckpointStatsEntry> CheckpointDetailsCache::Lookup(
    const CheckpointStatsSnapshot& s, int64_t id) {
  const CheckpointStatsEntry* found = s.Find(id);
  for (const std::optional<CheckpointStatsEntry>* latest :
       {&s.latest_completed, &s.latest_savepoint, &s.latest_failed}) {
    if (found == nullptr && *latest && (*latest)->checkpoint_id == id) found = &**latest;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (found != nullptr) {
    RememberLocked(*found);
    return *found;
  }
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ckpt::engine::rest
