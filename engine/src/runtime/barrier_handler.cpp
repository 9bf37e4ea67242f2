#include "barrier_handler.h"

namespace ckpt::engine::runtime {

BarrierHandler::Mode BarrierHandler::ModeOf(pb::CheckpointingMode mode) {
  switch (mode) {
    case pb::AT_LEAST_ONCE:
      return Mode::kAtLeastOnce;
    case pb::UNALIGNED:
      return Mode::kUnaligned;
    case pb::ALIGNED_WITH_TIMEOUT:
      return Mode::kAlignedWithTimeout;
    default:
      return Mode::kAligned;
  }
}

BarrierHandler::BarrierHandler(uint32_t num_channels, Mode mode)
    : mode_(mode), ended_(num_channels, false), received_(num_channels, false) {}

bool BarrierHandler::IsUnaligned(const CheckpointOptions& options) const {
  return mode_ == Mode::kUnaligned && !options.is_savepoint();
}

uint32_t BarrierHandler::LiveChannels() const {
  uint32_t n = 0;
  for (bool e : ended_) n += e ? 0 : 1;
  return n;
}

BarrierHandler::Decision BarrierHandler::OnBarrier(
    uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier, int64_t now_ms) {
  Decision d;
  const int64_t id = barrier->checkpoint_id;
  if (id <= last_done_id_) return d;  // stale: already snapshotted or abandoned
  if (id < pending_id_) return d;     // older than the pending one
  const bool blocks = mode_ == Mode::kAligned || mode_ == Mode::kAlignedWithTimeout ||
                      (mode_ == Mode::kUnaligned && !IsUnaligned(*barrier));
  if (id > pending_id_) {
    if (pending_id_ >= 0) {
      d.aborted = pending_id_;
      d.unblock_all = true;
    }
    pending_id_ = id;
    pending_unaligned_ = IsUnaligned(*barrier);
    pending_ = barrier;
    received_.assign(received_.size(), false);
    received_count_ = 0;
    first_barrier_ms_ = now_ms;
    if (pending_unaligned_) {
      d.trigger = barrier;
      d.unaligned = true;
      d.first_barrier_ms = now_ms;
    }
  }
  if (!received_[channel]) {
    received_[channel] = true;
    ++received_count_;
    if (blocks && !pending_unaligned_) d.block.push_back(channel);
    if (pending_unaligned_) d.barrier_channel = channel;
  }
  Decision done = MaybeComplete(now_ms);
  if (done.trigger || done.all_received) {
    done.aborted = d.aborted;
    done.block.clear();
    done.unblock_all = done.unblock_all || d.unblock_all;
    if (pending_unaligned_ || d.unaligned) {
      done.trigger = d.trigger;
      done.unaligned = d.unaligned;
      done.barrier_channel = d.barrier_channel;
      done.first_barrier_ms = first_barrier_ms_;
    }
    pending_unaligned_ = false;
    return done;
  }
  return d;
}

BarrierHandler::Decision BarrierHandler::OnEndOfPartition(uint32_t channel, int64_t now_ms) {
  if (!ended_[channel]) {
    ended_[channel] = true;
    if (received_[channel]) {
      received_[channel] = false;
      --received_count_;
    }
  }
  Decision d = MaybeComplete(now_ms);
  if (d.all_received) pending_unaligned_ = false;
  return d;
}

BarrierHandler::Decision BarrierHandler::MaybeComplete(int64_t now_ms) {
  Decision d;
  if (pending_id_ < 0 || received_count_ < LiveChannels()) return d;
  d.alignment_ms = now_ms - first_barrier_ms_;
  d.first_barrier_ms = first_barrier_ms_;
  if (pending_unaligned_) {
    d.all_received = true;
    pending_.reset();
  } else {
    d.trigger = std::move(pending_);
    d.unblock_all = mode_ != Mode::kAtLeastOnce;
  }
  last_done_id_ = pending_id_;
  pending_id_ = -1;
  received_.assign(received_.size(), false);
  received_count_ = 0;
  return d;
}

}  // namespace ckpt::engine::runtime
