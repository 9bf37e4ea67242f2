#include "task_inbox.h"

#include "result_subpartition.h"

namespace ckpt::engine::runtime {

TaskInbox::TaskInbox(std::vector<uint32_t> channel_inputs, uint32_t credits_per_channel)
    : credits_per_channel_(credits_per_channel == 0 ? 1 : credits_per_channel) {
  channels_.resize(channel_inputs.size());
  for (size_t i = 0; i < channel_inputs.size(); ++i) channels_[i].input = channel_inputs[i];
}

void TaskInbox::ConnectChannel(uint32_t channel, ResultSubpartition* upstream) {
  std::lock_guard<std::mutex> lock(mu_);
  channels_[channel].upstream = upstream;
}

bool TaskInbox::EndsCapture(const Channel& c, const StreamEvent& e) {
  if (e.kind == StreamEvent::Kind::kEndOfPartition) return true;
  return e.kind == StreamEvent::Kind::kBarrier && e.barrier != nullptr &&
         e.barrier->checkpoint_id >= c.capture_id;
}

void TaskInbox::UpdateFlagsLocked() {
  has_mail_.store(!mails_.empty(), std::memory_order_relaxed);
  urgent_.store(!mails_.empty() || priority_queued_ > 0 || !announcements_.empty(),
                std::memory_order_relaxed);
}

void TaskInbox::QueueLocked(uint32_t channel, StreamEvent event) {
  Channel& c = channels_[channel];
  if (event.kind == StreamEvent::Kind::kBuffer && event.uses_credit) ++c.queued_buffers;
  if (c.capture_open) {
    // Arrived before the checkpoint's barrier: in-flight data of the checkpoint. (A priority
    // barrier goes ahead of queued buffers; those arrived while the capture was open or were
    // taken by StartCapture, so they are captured already.)
    if (event.kind == StreamEvent::Kind::kBuffer && event.buffer != nullptr) {
      c.captured.emplace_back(event.buffer);
    } else if (EndsCapture(c, event)) {
      c.capture_open = false;
    }
  }
  if (!event.priority) {
    if (event.kind == StreamEvent::Kind::kBarrier && event.barrier != nullptr &&
        event.barrier->mode == pb::ALIGNED_WITH_TIMEOUT && !event.barrier->is_savepoint() &&
        !c.queue.empty()) {
      announcements_.emplace_back(channel, event.barrier);
      UpdateFlagsLocked();
    }
    c.queue.push_back(std::move(event));
    return;
  }
  ++priority_queued_;
  UpdateFlagsLocked();
  // Ahead of the trailing buffers, behind earlier events (priority ones included).
  size_t pos = c.queue.size();
  while (pos > 0 && c.queue[pos - 1].kind == StreamEvent::Kind::kBuffer) --pos;
  event.overtaken_buffers = static_cast<uint32_t>(c.queue.size() - pos);
  c.queue.insert(c.queue.begin() + static_cast<std::ptrdiff_t>(pos), std::move(event));
}

void TaskInbox::PullLocked(uint32_t channel) {
  Channel& c = channels_[channel];
  if (cancelled_ || hold_upstream_ || c.upstream == nullptr) return;
  StreamEvent e;
  while (c.upstream->PopFront(c.queued_buffers < credits_per_channel_, &e)) {
    QueueLocked(channel, std::move(e));
    e = StreamEvent();
  }
}

void TaskInbox::OnDataAvailable(uint32_t channel) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    PullLocked(channel);
    ++wakeups_;
  }
  task_cv_.notify_one();
}

void TaskInbox::SendEvent(uint32_t channel, StreamEvent event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    QueueLocked(channel, std::move(event));
    ++wakeups_;
  }
  task_cv_.notify_one();
}

void TaskInbox::PostMail(Mail mail) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    mails_.push_back(std::move(mail));
    UpdateFlagsLocked();
    ++wakeups_;
  }
  task_cv_.notify_one();
}

void TaskInbox::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++wakeups_;
  }
  task_cv_.notify_one();
}

void TaskInbox::Cancel() {
  std::vector<NetworkBuffer*> to_release;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    mails_.clear();
    for (Channel& c : channels_) {
      for (StreamEvent& e : c.queue) {
        if (e.buffer != nullptr) to_release.push_back(e.buffer);
      }
      c.queue.clear();
      c.queued_buffers = 0;
      c.captured.clear();
      c.capture_started = false;
      c.capture_open = false;
    }
    announcements_.clear();
    restored_pending_ = 0;
    priority_queued_ = 0;
    UpdateFlagsLocked();
  }
  for (NetworkBuffer* b : to_release) ReleaseBuffer(b);
  task_cv_.notify_all();
}

bool TaskInbox::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

void TaskInbox::HoldUpstream(bool hold) {
  std::lock_guard<std::mutex> lock(mu_);
  hold_upstream_ = hold;
  if (!hold) {
    for (uint32_t c = 0; c < num_channels(); ++c) PullLocked(c);
  }
}

void TaskInbox::RestoreBuffer(uint32_t channel, NetworkBuffer* buffer) {
  StreamEvent e;
  e.kind = StreamEvent::Kind::kBuffer;
  e.buffer = buffer;
  e.uses_credit = false;
  std::lock_guard<std::mutex> lock(mu_);
  channels_[channel].queue.push_back(std::move(e));
  ++restored_pending_;
}

uint32_t TaskInbox::restored_pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return restored_pending_;
}

uint32_t TaskInbox::queued_buffers(uint32_t channel) const {
  std::lock_guard<std::mutex> lock(mu_);
  return channels_[channel].queued_buffers;
}

bool TaskInbox::TakeEventLocked(const PollFilter& filter, uint32_t* channel, StreamEvent* event) {
  const uint32_t n = num_channels();
  auto take = [&](uint32_t idx) {
    Channel& c = channels_[idx];
    *event = std::move(c.queue.front());
    c.queue.pop_front();
    *channel = idx;
    if (event->priority) {
      --priority_queued_;
      UpdateFlagsLocked();
    }
    if (event->kind == StreamEvent::Kind::kBuffer && event->uses_credit) {
      --c.queued_buffers;
      PullLocked(idx);  // the credit goes back upstream
    } else if (event->kind == StreamEvent::Kind::kBuffer && restored_pending_ > 0) {
      --restored_pending_;
    }
  };
  if (!announcements_.empty()) {
    *channel = announcements_.front().first;
    event->kind = StreamEvent::Kind::kAnnouncement;
    event->barrier = std::move(announcements_.front().second);
    announcements_.pop_front();
    UpdateFlagsLocked();
    return true;
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t idx = (next_channel_ + i) % n;
    Channel& c = channels_[idx];
    if (!c.queue.empty() && c.queue.front().priority) {
      take(idx);
      return true;
    }
  }
  if (!filter.normal) return false;
  bool buffers_ok_known = false, buffers_ok = false;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t idx = (next_channel_ + i) % n;
    Channel& c = channels_[idx];
    if (c.blocked || c.queue.empty()) continue;
    if (c.queue.front().kind == StreamEvent::Kind::kBuffer) {
      if (!buffers_ok_known) {
        buffers_ok = !filter.buffers_allowed || filter.buffers_allowed();
        buffers_ok_known = true;
      }
      if (!buffers_ok) continue;
    }
    take(idx);
    // Stay on a channel while it has data: fewer switches, same fairness over time because
    // a channel holds at most `credits_per_channel_` buffers.
    next_channel_ = channels_[idx].queue.empty() ? (idx + 1) % n : idx;
    return true;
  }
  return false;
}

TaskInbox::Polled TaskInbox::Poll(std::chrono::steady_clock::time_point deadline,
                                  const PollFilter& filter, int64_t* blocked_ns) {
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
      UpdateFlagsLocked();
      return p;
    }
    if (TakeEventLocked(filter, &p.channel, &p.event)) {
      p.what = Polled::What::kEvent;
      return p;
    }
    if (filter.available && filter.available()) {
      p.what = Polled::What::kAvailable;
      return p;
    }
    // A deadline already past (the task's poll between two elements) returns at once: a
    // condition wait would still enter the kernel (a futex wait that times out at once, and a
    // wake on the way out), two system calls per record that cost more than the record itself.
    if (deadline == std::chrono::steady_clock::time_point{}) {
      p.what = Polled::What::kTimeout;
      return p;
    }
    const auto wait_start = std::chrono::steady_clock::now();
    if (deadline <= wait_start) {
      p.what = Polled::What::kTimeout;
      return p;
    }
    const uint64_t seen = wakeups_;
    const bool woken =
        task_cv_.wait_until(lock, deadline, [&] { return cancelled_ || wakeups_ != seen; });
    if (blocked_ns != nullptr) {
      *blocked_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - wait_start)
                         .count();
    }
    if (!woken) {
      p.what = Polled::What::kTimeout;
      return p;
    }
  }
}

TaskInbox::Polled TaskInbox::Poll(std::chrono::steady_clock::time_point deadline) {
  return Poll(deadline, PollFilter());
}

bool TaskInbox::TryTakeMail(Mail* mail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (mails_.empty()) return false;
  *mail = std::move(mails_.front());
  mails_.pop_front();
  UpdateFlagsLocked();
  return true;
}

bool TaskInbox::StartCapture(uint32_t channel, int64_t checkpoint_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  Channel& c = channels_[channel];
  c.captured.clear();
  c.capture_started = true;
  c.capture_open = true;
  c.capture_id = checkpoint_id;
  for (size_t i = 0; i < c.queue.size(); ++i) {
    const StreamEvent& e = c.queue[i];
    if (e.kind == StreamEvent::Kind::kBuffer) {
      if (e.buffer != nullptr) c.captured.emplace_back(e.buffer);
      continue;
    }
    if (!EndsCapture(c, e)) continue;
    // A priority barrier jumped the buffers queued right behind it; they precede it.
    uint32_t overtaken = e.priority ? e.overtaken_buffers : 0;
    for (size_t j = i + 1; j < c.queue.size() && overtaken > 0; ++j) {
      if (c.queue[j].kind != StreamEvent::Kind::kBuffer) continue;
      if (c.queue[j].buffer != nullptr) c.captured.emplace_back(c.queue[j].buffer);
      --overtaken;
    }
    c.capture_open = false;
    return true;
  }
  return true;
}

bool TaskInbox::CaptureFront(uint32_t channel, uint32_t n, std::vector<CapturedBuffer>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  std::vector<const NetworkBuffer*> front;
  for (const StreamEvent& e : channels_[channel].queue) {
    if (front.size() == n) break;
    if (e.kind == StreamEvent::Kind::kBuffer && e.buffer != nullptr) front.push_back(e.buffer);
  }
  if (front.size() < n) return false;
  for (const NetworkBuffer* b : front) out->emplace_back(b);
  return true;
}

bool TaskInbox::TakeCapture(uint32_t channel, std::vector<CapturedBuffer>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  Channel& c = channels_[channel];
  if (!c.capture_started || c.capture_open) return false;
  for (CapturedBuffer& b : c.captured) out->push_back(std::move(b));
  c.captured.clear();
  c.capture_started = false;
  return true;
}

void TaskInbox::StopCaptures() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Channel& c : channels_) {
    c.captured.clear();
    c.capture_started = false;
    c.capture_open = false;
  }
}

size_t TaskInbox::pending_announcements() const {
  std::lock_guard<std::mutex> lock(mu_);
  return announcements_.size();
}

void TaskInbox::AnnounceBufferSize(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Channel& c : channels_) {
    if (c.upstream != nullptr) c.upstream->SetBufferSize(bytes);
  }
}

void TaskInbox::UpdateBlocked(bool unblock_all, const std::vector<uint32_t>& block) {
  std::lock_guard<std::mutex> lock(mu_);
  if (unblock_all) {
    for (Channel& c : channels_) c.blocked = false;
  }
  for (uint32_t c : block) channels_[c].blocked = true;
}

void TaskInbox::SetBlocked(uint32_t channel, bool blocked) {
  std::lock_guard<std::mutex> lock(mu_);
  channels_[channel].blocked = blocked;
}

}  // namespace ckpt::engine::runtime
