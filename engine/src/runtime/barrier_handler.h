// BarrierHandler: decides when a task with input channels takes its snapshot, per barrier mode.
//   kAligned (exactly-once, Flink's SingleCheckpointBarrierHandler, aligned): a channel that
//     delivered the barrier of checkpoint n is blocked until every live channel delivered it;
//     then the snapshot is taken and all channels unblock.
//   kUnaligned (exactly-once, FLIP-76): the first barrier of checkpoint n at any channel takes
//     the snapshot at once; nothing is blocked; the handler then tracks the other channels'
//     barriers — until each arrived, the task persists that channel's buffers as channel state —
//     and reports when the last one did (`all_received`). Savepoint barriers are always aligned.
//   kAlignedWithTimeout: starts aligned; the barrier says when to switch (not handled here yet:
//     the engine refuses the mode, see job_runner_setup.cpp).
//   kAtLeastOnce (Flink's CheckpointBarrierTracker): nothing is blocked; the snapshot is taken
//     when the last live channel delivered the barrier.
// A newer barrier during an alignment (or during the tracking of an unaligned checkpoint)
// abandons the older one. A channel that ended (end of partition) is no longer waited for.
// Pure logic; the task applies the decisions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"

namespace ckpt::engine::runtime {

class BarrierHandler {
 public:
  enum class Mode { kAligned, kUnaligned, kAlignedWithTimeout, kAtLeastOnce };
  static Mode ModeOf(pb::CheckpointingMode mode);

  struct Decision {
    // Channels to block now (aligned).
    std::vector<uint32_t> block;
    // Unblock every channel.
    bool unblock_all = false;
    // Take the snapshot for this barrier now.
    std::shared_ptr<const CheckpointOptions> trigger;
    // The snapshot is unaligned (channel state to persist).
    bool unaligned = false;
    // Unaligned: the barrier of the pending checkpoint arrived on this channel now.
    std::optional<uint32_t> barrier_channel;
    // Unaligned: every live channel has now delivered the pending checkpoint's barrier.
    bool all_received = false;
    // An older alignment (or unaligned checkpoint) was abandoned for a newer barrier.
    std::optional<int64_t> aborted;
    // Milliseconds from the first to the last barrier (when triggering aligned, or when the
    // last barrier of an unaligned checkpoint arrived).
    int64_t alignment_ms = 0;
    // Arrival time of the first barrier of the checkpoint.
    int64_t first_barrier_ms = 0;
  };

  BarrierHandler(uint32_t num_channels, Mode mode);

  Decision OnBarrier(uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier,
                     int64_t now_ms);
  Decision OnEndOfPartition(uint32_t channel, int64_t now_ms);

  Mode mode() const { return mode_; }
  bool pending() const { return pending_id_ >= 0; }
  int64_t pending_id() const { return pending_id_; }
  // Whether `channel` delivered the pending checkpoint's barrier.
  bool received(uint32_t channel) const { return received_[channel]; }
  // Whether a barrier of `options` is handled unaligned in this mode.
  bool IsUnaligned(const CheckpointOptions& options) const;

 private:
  Decision MaybeComplete(int64_t now_ms);
  uint32_t LiveChannels() const;

  const Mode mode_;
  std::vector<bool> ended_;
  std::vector<bool> received_;
  uint32_t received_count_ = 0;
  int64_t pending_id_ = -1;
  bool pending_unaligned_ = false;
  int64_t last_done_id_ = -1;
  int64_t first_barrier_ms_ = 0;
  std::shared_ptr<const CheckpointOptions> pending_;
};

}  // namespace ckpt::engine::runtime
