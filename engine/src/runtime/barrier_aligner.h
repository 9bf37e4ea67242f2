// BarrierAligner: decides when a task with input channels takes its snapshot.
// Aligned (exactly-once, Flink's SingleCheckpointBarrierHandler): a channel that delivered the
// barrier of checkpoint n is blocked until every live channel delivered it; then the snapshot is
// taken and all channels unblock. A newer barrier during an alignment aborts the older one.
// At-least-once (Flink's CheckpointBarrierTracker): nothing is blocked; the snapshot is taken
// when the last live channel delivered the barrier. A channel that ended (end of partition)
// is no longer waited for. Pure logic; the task applies the block/unblock decisions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"

namespace ckpt::engine::runtime {

class BarrierAligner {
 public:
  struct Decision {
    // Channels to block now (aligned mode).
    std::vector<uint32_t> block;
    // Unblock every channel.
    bool unblock_all = false;
    // Take the snapshot for this barrier now.
    std::shared_ptr<const CheckpointOptions> trigger;
    // An older alignment was abandoned for a newer barrier.
    std::optional<int64_t> aborted;
    // Milliseconds the completed alignment took (first to last barrier), when triggering.
    int64_t alignment_ms = 0;
    // Arrival time of the first barrier of the triggered checkpoint.
    int64_t first_barrier_ms = 0;
  };

  BarrierAligner(uint32_t num_channels, bool aligned);

  Decision OnBarrier(uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier,
                     int64_t now_ms);
  Decision OnEndOfPartition(uint32_t channel, int64_t now_ms);

  bool aligning() const { return pending_id_ >= 0; }

 private:
  Decision MaybeComplete(int64_t now_ms);
  uint32_t LiveChannels() const;

  const bool aligned_;
  std::vector<bool> ended_;
  std::vector<bool> received_;
  uint32_t received_count_ = 0;
  int64_t pending_id_ = -1;
  int64_t last_triggered_id_ = -1;
  int64_t first_barrier_ms_ = 0;
  std::shared_ptr<const CheckpointOptions> pending_;
};

}  // namespace ckpt::engine::runtime
