#include "result_subpartition.h"

#include "task_inbox.h"

namespace ckpt::engine::runtime {

ResultSubpartition::~ResultSubpartition() { Clear(); }

void ResultSubpartition::Connect(TaskInbox* inbox, uint32_t channel) {
  inbox_ = inbox;
  channel_ = channel;
  inbox->ConnectChannel(channel, this);
}

void ResultSubpartition::Add(StreamEvent event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (event.kind == StreamEvent::Kind::kBuffer) ++buffers_;
    queue_.push_back(std::move(event));
  }
  NotifyConsumer();
}

std::vector<CapturedBuffer> ResultSubpartition::AddPriority(StreamEvent event) {
  std::vector<CapturedBuffer> captured;
  event.priority = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Insert after the last queued event: only the trailing buffers are overtaken.
    size_t pos = queue_.size();
    while (pos > 0 && queue_[pos - 1].kind == StreamEvent::Kind::kBuffer) --pos;
    for (size_t i = pos; i < queue_.size(); ++i) captured.emplace_back(queue_[i].buffer);
    queue_.insert(queue_.begin() + static_cast<std::ptrdiff_t>(pos), std::move(event));
  }
  NotifyConsumer();
  return captured;
}

std::optional<std::vector<CapturedBuffer>> ResultSubpartition::PromoteBarrier(
    int64_t checkpoint_id) {
  std::vector<CapturedBuffer> captured;
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_t at = queue_.size();
    for (size_t i = 0; i < queue_.size(); ++i) {
      const StreamEvent& e = queue_[i];
      if (e.kind == StreamEvent::Kind::kBarrier && e.barrier != nullptr &&
          e.barrier->checkpoint_id == checkpoint_id) {
        at = i;
        break;
      }
    }
    if (at == queue_.size()) return std::nullopt;
    StreamEvent barrier = std::move(queue_[at]);
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(at));
    barrier.priority = true;
    size_t pos = at;
    while (pos > 0 && queue_[pos - 1].kind == StreamEvent::Kind::kBuffer) --pos;
    for (size_t i = pos; i < at; ++i) captured.emplace_back(queue_[i].buffer);
    queue_.insert(queue_.begin() + static_cast<std::ptrdiff_t>(pos), std::move(barrier));
  }
  NotifyConsumer();
  return captured;
}

bool ResultSubpartition::HoldsBarrier(int64_t checkpoint_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const StreamEvent& e : queue_) {
    if (e.kind == StreamEvent::Kind::kBarrier && e.barrier != nullptr &&
        e.barrier->checkpoint_id == checkpoint_id) {
      return true;
    }
  }
  return false;
}

bool ResultSubpartition::PopFront(bool credit, StreamEvent* out) {
  bool drained = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) return false;
    StreamEvent& front = queue_.front();
    if (front.kind == StreamEvent::Kind::kBuffer) {
      if (!credit) return false;
      drained = --buffers_ == 0;
    }
    *out = std::move(front);
    queue_.pop_front();
  }
  if (drained && on_drained_) on_drained_();
  return true;
}

void ResultSubpartition::Clear() {
  std::deque<StreamEvent> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    drop.swap(queue_);
    buffers_ = 0;
  }
  for (StreamEvent& e : drop) {
    if (e.buffer != nullptr) ReleaseBuffer(e.buffer);
  }
}

size_t ResultSubpartition::queued_buffers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return buffers_;
}

void ResultSubpartition::NotifyConsumer() {
  if (inbox_ != nullptr) inbox_->OnDataAvailable(channel_);
}

}  // namespace ckpt::engine::runtime
