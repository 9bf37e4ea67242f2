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

BarrierHandler::BarrierHandler(uint32_t num_channels, Mode mode, int64_t alignment_timeout_ms)
    : mode_(mode),
      alignment_timeout_ms_(alignment_timeout_ms < 0 ? 0 : alignment_timeout_ms),
      ended_(num_channels, false),
      received_(num_channels, false) {}

bool BarrierHandler::IsUnaligned(const CheckpointOptions& options, int64_t now_ms) const {
  if (options.is_savepoint()) return false;  // savepoints are always aligned
  if (mode_ == Mode::kUnaligned) return true;
  return mode_ == Mode::kAlignedWithTimeout &&
         now_ms - options.trigger_timestamp_ms >= alignment_timeout_ms_;
}

BarrierHandler::Decision BarrierHandler::Switch() {
  Decision d;
  pending_unaligned_ = true;
  d.trigger = pending_;
  d.unaligned = true;
  d.switched = true;
  d.unblock_all = true;
  d.first_barrier_ms = first_barrier_ms_;
  d.received = received_;
  return d;
}

BarrierHandler::Decision BarrierHandler::OnAlignmentTimer(int64_t checkpoint_id, int64_t now_ms) {
  (void)now_ms;
  if (mode_ != Mode::kAlignedWithTimeout) return Decision();
  if (announced_ != nullptr && announced_->checkpoint_id == checkpoint_id &&
      checkpoint_id > pending_id_ && checkpoint_id > last_done_id_) {
    return SwitchAnnounced();
  }
  if (pending_id_ != checkpoint_id || pending_unaligned_ || pending_ == nullptr ||
      pending_->is_savepoint()) {
    return Decision();
  }
  return Switch();
}

BarrierHandler::Decision BarrierHandler::SwitchAnnounced() {
  // No barrier of the checkpoint was taken: it becomes the pending one, unaligned, abandoning
  // an older alignment (as its first barrier would).
  std::optional<int64_t> aborted;
  if (pending_id_ >= 0) aborted = pending_id_;
  pending_id_ = announced_->checkpoint_id;
  pending_ = std::move(announced_);
  announced_.reset();
  received_.assign(received_.size(), false);
  received_count_ = 0;
  first_barrier_ms_ = announced_ms_;
  Decision d = Switch();
  d.aborted = aborted;
  return d;
}

BarrierHandler::Decision BarrierHandler::OnAnnouncement(
    uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier, int64_t now_ms) {
  (void)channel;
  Decision d;
  const int64_t id = barrier->checkpoint_id;
  if (mode_ != Mode::kAlignedWithTimeout || barrier->is_savepoint() || id <= last_done_id_ ||
      id <= pending_id_) {
    return d;  // taken already (its alignment has its timer), stale, or never unaligned
  }
  if (announced_ == nullptr || announced_->checkpoint_id < id) {
    announced_ = std::move(barrier);
    announced_ms_ = now_ms;
  } else if (announced_->checkpoint_id > id) {
    return d;
  }
  if (IsUnaligned(*announced_, now_ms)) return SwitchAnnounced();
  d.timer_at_ms = announced_->trigger_timestamp_ms + alignment_timeout_ms_;
  d.timer_checkpoint = id;
  return d;
}

uint32_t BarrierHandler::LiveChannels() const {
  uint32_t n = 0;
  for (bool e : ended_) n += e ? 0 : 1;
  return n;
}

BarrierHandler::Decision BarrierHandler::OnBarrier(
    uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier, int64_t now_ms,
    bool priority) {
  Decision d;
  const int64_t id = barrier->checkpoint_id;
  if (id <= last_done_id_) return d;  // stale: already snapshotted or abandoned
  if (id < pending_id_) return d;     // older than the pending one
  // Aligned with timeout: a barrier that overtook buffers cannot be aligned on (the buffers it
  // jumped precede it and would wait behind a blocked channel), nor can a timed-out one.
  const bool switch_now = mode_ == Mode::kAlignedWithTimeout && !barrier->is_savepoint() &&
                          (priority || IsUnaligned(*barrier, now_ms));
  if (announced_ != nullptr && announced_->checkpoint_id <= id) announced_.reset();
  if (id > pending_id_) {
    if (pending_id_ >= 0) {
      d.aborted = pending_id_;
      d.unblock_all = true;
    }
    pending_id_ = id;
    pending_unaligned_ = IsUnaligned(*barrier, now_ms) || switch_now;
    pending_ = barrier;
    received_.assign(received_.size(), false);
    received_count_ = 0;
    first_barrier_ms_ = now_ms;
    if (pending_unaligned_) {
      d.trigger = barrier;
      d.unaligned = true;
      d.first_barrier_ms = now_ms;
    } else if (mode_ == Mode::kAlignedWithTimeout && !barrier->is_savepoint()) {
      d.timer_at_ms = barrier->trigger_timestamp_ms + alignment_timeout_ms_;
      d.timer_checkpoint = id;
    }
  } else if (switch_now && !pending_unaligned_) {
    Decision s = Switch();
    s.aborted = d.aborted;
    d = std::move(s);
  }
  const bool blocks = mode_ != Mode::kAtLeastOnce && !pending_unaligned_;
  if (!received_[channel]) {
    received_[channel] = true;
    ++received_count_;
    if (blocks) d.block.push_back(channel);
    if (pending_unaligned_) d.barrier_channel = channel;
  }
  if (d.trigger && d.unaligned) d.received = received_;
  Decision done = MaybeComplete(now_ms);
  if (done.trigger || done.all_received) {
    done.aborted = d.aborted;
    done.block.clear();
    done.unblock_all = done.unblock_all || d.unblock_all;
    if (pending_unaligned_ || d.unaligned) {
      done.trigger = d.trigger;
      done.unaligned = d.unaligned;
      done.switched = d.switched;
      done.received = std::move(d.received);
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
