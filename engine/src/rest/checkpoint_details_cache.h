// CheckpointDetailsCache: keeps the details of checkpoints a client asked for once (Flink's
// CheckpointStatsCache behind /jobs/:id/checkpoints/details/:cid), so that a checkpoint that left
// the history of the last 10 can still be opened. The latest completed checkpoint, savepoint and
// failed one come from the tracker's snapshot; the restored one is remembered while it is in the
// history. Entries are refreshed whenever a newer state of them is seen. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "ckpt/engine/checkpoint/checkpoint_stats.h"

namespace ckpt::engine::rest {

class CheckpointDetailsCache {
 public:
  // Requested checkpoints kept (the oldest id is dropped beyond). Default: 1000.
  explicit CheckpointDetailsCache(size_t max_entries = 1000) : max_entries_(max_entries) {}

  // Refreshes the cached entries (and the restored checkpoint's) from `snapshot`.
  void Observe(const CheckpointStatsSnapshot& snapshot);
  // Checkpoint `id` from the history, the latest ones or the cache (nullopt if none has it);
  // what is found is remembered.
  std::optional<CheckpointStatsEntry> Lookup(const CheckpointStatsSnapshot& snapshot, int64_t id);

 private:
  void RememberLocked(const CheckpointStatsEntry& e);

  const size_t max_entries_;
  std::mutex mu_;
  std::map<int64_t, CheckpointStatsEntry> entries_;
};

}  // namespace ckpt::engine::rest
