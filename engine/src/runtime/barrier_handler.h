// BarrierHandler: decides when a task with input channels takes its snapshot, per barrier mode.
//   kAligned (exactly-once, Flink's SingleCheckpointBarrierHandler, aligned): a channel that
//     delivered the barrier of checkpoint n is blocked until every live channel delivered it;
//     then the snapshot is taken and all channels unblock.
//   kUnaligned (exactly-once, FLIP-76): the first barrier of checkpoint n at any channel takes
//     the snapshot at once; nothing is blocked; the handler then tracks the other channels'
//     barriers — until each arrived, the task persists that channel's buffers as channel state —
//     and reports when the last one did (`all_received`). Savepoint barriers are always aligned.
//   kAlignedWithTimeout (Flink's aligned-checkpoint-timeout, FLINK-23041): every checkpoint
//     starts aligned. When its first barrier arrives and the checkpoint (the barrier carries its
//     trigger time) is already older than the timeout, or the barrier came as a priority event
//     (an upstream already switched), it is handled unaligned at once; otherwise the decision
//     carries a timer at trigger time + timeout, and OnAlignmentTimer then switches the pending
//     alignment to unaligned: the snapshot is taken now, every channel unblocks, the channels
//     that already delivered the barrier have nothing to persist, the others persist their
//     buffers until their barrier.
//     Barrier announcement (Flink's EventAnnouncement, FLINK-22630): a barrier still queued
//     behind buffers in an input channel is announced to the task ahead of them. The
//     announcement starts the same timer (or switches at once if the checkpoint is already
//     older than the timeout), so a slow task switches on time although it has not taken any
//     barrier yet: the snapshot is taken on the timer, and the buffers queued ahead of each
//     channel's barrier are its in-flight data.
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
    // Unaligned trigger: which channels had delivered the barrier when the snapshot was
    // triggered (the switch of an alignment; they have no in-flight data to persist).
    std::vector<bool> received;
    // Aligned with timeout: call OnAlignmentTimer(timer_checkpoint, at) at this time unless
    // the alignment ended first.
    std::optional<int64_t> timer_at_ms;
    int64_t timer_checkpoint = -1;
    // The trigger is the switch of a pending alignment to unaligned.
    bool switched = false;
  };

  // `alignment_timeout_ms`: kAlignedWithTimeout only.
  BarrierHandler(uint32_t num_channels, Mode mode, int64_t alignment_timeout_ms = 0);

  // `priority`: the barrier overtook buffers on its way (an unaligned barrier).
  Decision OnBarrier(uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier,
                     int64_t now_ms, bool priority = false);
  // Aligned with timeout: the barrier of `barrier` is queued on `channel` behind buffers the
  // task has yet to process. Starts the alignment timer of its checkpoint (nothing in other
  // modes, for a savepoint, or for a checkpoint whose barrier was taken already).
  Decision OnAnnouncement(uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier,
                          int64_t now_ms);
  Decision OnEndOfPartition(uint32_t channel, int64_t now_ms);
  // The alignment timer of `checkpoint_id` fired: switches its pending alignment, or its
  // announced checkpoint none of whose barriers was taken yet, to unaligned (nothing if it
  // already ended or was abandoned).
  Decision OnAlignmentTimer(int64_t checkpoint_id, int64_t now_ms);

  Mode mode() const { return mode_; }
  bool pending() const { return pending_id_ >= 0; }
  int64_t pending_id() const { return pending_id_; }
  // Whether `channel` delivered the pending checkpoint's barrier.
  bool received(uint32_t channel) const { return received_[channel]; }
  // Whether a barrier of `options` arriving (or a source's trigger handled) at `now_ms` starts
  // an unaligned snapshot in this mode.
  bool IsUnaligned(const CheckpointOptions& options, int64_t now_ms) const;
  int64_t alignment_timeout_ms() const { return alignment_timeout_ms_; }

 private:
  Decision MaybeComplete(int64_t now_ms);
  // The pending alignment becomes unaligned: the snapshot is triggered now.
  Decision Switch();
  // The announced checkpoint becomes the pending one, switched to unaligned.
  Decision SwitchAnnounced();
  uint32_t LiveChannels() const;

  const Mode mode_;
  const int64_t alignment_timeout_ms_;
  std::vector<bool> ended_;
  std::vector<bool> received_;
  uint32_t received_count_ = 0;
  int64_t pending_id_ = -1;
  bool pending_unaligned_ = false;
  int64_t last_done_id_ = -1;
  int64_t first_barrier_ms_ = 0;
  std::shared_ptr<const CheckpointOptions> pending_;
  // The newest announced checkpoint (aligned with timeout) and when its first announcement
  // arrived; cleared once one of its barriers is taken.
  std::shared_ptr<const CheckpointOptions> announced_;
  int64_t announced_ms_ = 0;
};

}  // namespace ckpt::engine::runtime
