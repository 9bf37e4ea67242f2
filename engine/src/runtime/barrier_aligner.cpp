#include "barrier_aligner.h"

namespace ckpt::engine::runtime {

BarrierAligner::BarrierAligner(uint32_t num_channels, bool aligned)
    : aligned_(aligned), ended_(num_channels, false), received_(num_channels, false) {}

uint32_t BarrierAligner::LiveChannels() const {
  uint32_t n = 0;
  for (bool e : ended_) n += e ? 0 : 1;
  return n;
}

BarrierAligner::Decision BarrierAligner::OnBarrier(
    uint32_t channel, std::shared_ptr<const CheckpointOptions> barrier, int64_t now_ms) {
  Decision d;
  const int64_t id = barrier->checkpoint_id;
  if (id <= last_triggered_id_) return d;  // stale: already snapshotted or abandoned
  if (id < pending_id_) return d;          // older than the one being aligned
  if (id > pending_id_) {
    if (pending_id_ >= 0) {
      d.aborted = pending_id_;
      d.unblock_all = true;
    }
    pending_id_ = id;
    pending_ = std::move(barrier);
    received_.assign(received_.size(), false);
    received_count_ = 0;
    first_barrier_ms_ = now_ms;
  }
  if (!received_[channel]) {
    received_[channel] = true;
    ++received_count_;
    if (aligned_) d.block.push_back(channel);
  }
  Decision done = MaybeComplete(now_ms);
  if (done.trigger) {
    done.aborted = d.aborted;
    done.block.clear();
    return done;
  }
  return d;
}

BarrierAligner::Decision BarrierAligner::OnEndOfPartition(uint32_t channel, int64_t now_ms) {
  if (!ended_[channel]) {
    ended_[channel] = true;
    if (received_[channel]) {
      received_[channel] = false;
      --received_count_;
    }
  }
  return MaybeComplete(now_ms);
}

BarrierAligner::Decision BarrierAligner::MaybeComplete(int64_t now_ms) {
  Decision d;
  if (pending_id_ < 0 || received_count_ < LiveChannels()) return d;
  d.trigger = std::move(pending_);
  d.unblock_all = aligned_;
  d.alignment_ms = now_ms - first_barrier_ms_;
  d.first_barrier_ms = first_barrier_ms_;
  last_triggered_id_ = pending_id_;
  pending_id_ = -1;
  received_.assign(received_.size(), false);
  received_count_ = 0;
  return d;
}

}  // namespace ckpt::engine::runtime
