#include "task_inbox.h"

namespace ckpt::engine::runtime {

TaskInbox::TaskInbox(std::vector<uint32_t> channel_inputs, uint32_t credits_per_channel)
    : credits_per_channel_(credits_per_channel) {
  channels_.resize(channel_inputs.size());
  for (size_t i = 0; i < channel_inputs.size(); ++i) channels_[i].input = channel_inputs[i];
}

base::Status TaskInbox::SendBuffer(uint32_t channel, NetworkBuffer* buffer) {
  std::unique_lock<std::mutex> lock(mu_);
  Channel& c = channels_[channel];
  ++waiting_senders_;
  sender_cv_.wait(lock, [&] { return cancelled_ || c.queued_buffers < credits_per_channel_; });
  --waiting_senders_;
  if (cancelled_) {
    lock.unlock();
    buffer->pool->Recycle(buffer);
    return base::Status::Cancelled("task cancelled while waiting for credit");
  }
  ++c.queued_buffers;
  StreamEvent e;
  e.kind = StreamEvent::Kind::kBuffer;
  e.buffer = buffer;
  c.queue.push_back(std::move(e));
  lock.unlock();
  task_cv_.notify_one();
  return base::Status::OK();
}

uint32_t TaskInbox::waiting_senders() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_senders_;
}

void TaskInbox::SendEvent(uint32_t channel, StreamEvent event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    channels_[channel].queue.push_back(std::move(event));
  }
  task_cv_.notify_one();
}

void TaskInbox::PostMail(Mail mail) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    mails_.push_back(std::move(mail));
  }
  task_cv_.notify_one();
}

void TaskInbox::Cancel() {
  std::vector<NetworkBuffer*> to_recycle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    mails_.clear();
    for (Channel& c : channels_) {
      for (StreamEvent& e : c.queue) {
        if (e.buffer != nullptr) to_recycle.push_back(e.buffer);
      }
      c.queue.clear();
      c.queued_buffers = 0;
    }
  }
  for (NetworkBuffer* b : to_recycle) b->pool->Recycle(b);
  task_cv_.notify_all();
  sender_cv_.notify_all();
}

bool TaskInbox::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

bool TaskInbox::TakeEventLocked(uint32_t* channel, StreamEvent* event) {
  const uint32_t n = num_channels();
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t idx = (next_channel_ + i) % n;
    Channel& c = channels_[idx];
    if (c.blocked || c.queue.empty()) continue;
    *event = std::move(c.queue.front());
    c.queue.pop_front();
    if (event->kind == StreamEvent::Kind::kBuffer) {
      --c.queued_buffers;
      sender_cv_.notify_all();
    }
    *channel = idx;
    // Stay on a channel while it has data: fewer switches, same fairness over time because
    // a channel holds at most `credits_per_channel_` buffers.
    next_channel_ = c.queue.empty() ? (idx + 1) % n : idx;
    return true;
  }
  return false;
}

TaskInbox::Polled TaskInbox::Poll(std::chrono::steady_clock::time_point deadline) {
  Polled p;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (cancelled_) {
      p.what = Polled::What::kCancelled;
      return p;
    }
    if (!mails_.empty()) {
      p.what = Polled::What::kMail;
      p.mail = std::move(mails_.front());
      mails_.pop_front();
      return p;
    }
    if (TakeEventLocked(&p.channel, &p.event)) {
      p.what = Polled::What::kEvent;
      return p;
    }
    if (task_cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
      if (!mails_.empty() || cancelled_) continue;
      if (TakeEventLocked(&p.channel, &p.event)) {
        p.what = Polled::What::kEvent;
        return p;
      }
      p.what = Polled::What::kTimeout;
      return p;
    }
  }
}

bool TaskInbox::TryTakeMail(Mail* mail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (mails_.empty()) return false;
  *mail = std::move(mails_.front());
  mails_.pop_front();
  return true;
}

void TaskInbox::SetBlocked(uint32_t channel, bool blocked) {
  std::lock_guard<std::mutex> lock(mu_);
  channels_[channel].blocked = blocked;
}

}  // namespace ckpt::engine::runtime
