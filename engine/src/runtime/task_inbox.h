// TaskInbox: everything that reaches one subtask — mails (control actions run on the task thread:
// checkpoint triggers, notifications, timers, stop) and, per input channel, the consumer-side
// queue of buffers and events from one upstream subtask's result subpartition. Credit-based flow
// control: a channel pulls a buffer from its subpartition only while it holds fewer than
// `credits_per_channel` buffers the task has not taken; events move at once. A priority event
// (unaligned barrier) is queued ahead of the channel's buffers and is handed to the task before
// anything else but mails. A channel may be blocked (aligned barrier alignment): its events stay
// queued until unblocked. While restored channel state is being queued (HoldUpstream), channels
// pull nothing, so replayed buffers come before any new input.
// The task never waits inside a send: it polls with the filter of what it can take now (only
// priority events mid-record, no buffer while its output has no free buffer) and is woken by
// mails, events, and its pool's availability listener (Wake).
// Unaligned checkpoints capture a channel's in-flight data here, as it reaches the channel, not
// as the task processes it (Flink's channel-state persister): StartCapture copies the buffers
// queued ahead of the checkpoint's barrier at once and, until the barrier is queued, every
// buffer that arrives; the checkpoint's input side is complete once each channel's barrier has
// been queued, however many buffers ahead of it the task has yet to process.
// Aligned with timeout: a barrier queued behind buffers is announced (an kAnnouncement event
// handed to the task ahead of any buffer), so the task can start its alignment timer and
// switch to unaligned before it gets to the barrier (Flink's EventAnnouncement).
// Thread-safe: producers and mail posters on any thread, Poll on the task thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ckpt/base/status.h"
#include "stream_event.h"

namespace ckpt::engine::runtime {

class ResultSubpartition;

class TaskInbox {
 public:
  using Mail = std::function<base::Status()>;

  // `channel_inputs[c]` is the operator input (0 or 1) channel `c` feeds.
  TaskInbox(std::vector<uint32_t> channel_inputs, uint32_t credits_per_channel);

  // Wiring (ResultSubpartition::Connect calls it).
  void ConnectChannel(uint32_t channel, ResultSubpartition* upstream);
  // The upstream subpartition of `channel` has something new: pull what credit allows.
  void OnDataAvailable(uint32_t channel);
  // Events straight into a channel (tests; producers go through a subpartition).
  void SendEvent(uint32_t channel, StreamEvent event);
  void PostMail(Mail mail);
  // Wakes a waiting Poll so it re-evaluates its filter (buffer availability changed).
  void Wake();
  // Wakes everyone; Poll returns kCancelled from now on. Queued buffers are released.
  void Cancel();
  bool cancelled() const;

  // Restore: while held, channels pull nothing from upstream; RestoreBuffer queues replayed
  // channel state (no credit taken) in order. Releasing pulls what arrived meanwhile.
  void HoldUpstream(bool hold);
  void RestoreBuffer(uint32_t channel, NetworkBuffer* buffer);
  // Replayed buffers queued and not yet taken.
  uint32_t restored_pending() const;

  struct PollFilter {
    // Non-priority events (buffers included). False mid-record: only priority events and mails.
    bool normal = true;
    // Buffers only while this returns true (empty: always).
    std::function<bool()> buffers_allowed;
    // Return kAvailable once this returns true (empty: never).
    std::function<bool()> available;
  };
  struct Polled {
    enum class What { kMail, kEvent, kAvailable, kTimeout, kCancelled };
    What what = What::kTimeout;
    Mail mail;
    uint32_t channel = 0;
    StreamEvent event;
  };
  // Next mail (mails first), else a priority event, else what the filter allows of an unblocked
  // channel (round-robin), waiting until `deadline`. Taking a buffer returns its credit.
  // `blocked_ns` (may be null): the time spent blocked is added to it (task metrics; the clock
  // is read only around an actual wait).
  Polled Poll(std::chrono::steady_clock::time_point deadline, const PollFilter& filter,
              int64_t* blocked_ns = nullptr);
  Polled Poll(std::chrono::steady_clock::time_point deadline);
  // A mail without waiting; false if none.
  bool TryTakeMail(Mail* mail);
  // Whether a mail waits (lock-free; a source asks before every record).
  bool HasMail() const { return has_mail_.load(std::memory_order_relaxed); }
  // Whether a mail, a priority event or an announcement waits: what a Poll between two elements
  // (filter.normal false) could return. Lock-free, so a task working through a buffer asks
  // before every element instead of polling; a Poll still decides what comes first.
  bool HasUrgent() const { return urgent_.load(std::memory_order_relaxed); }

  void SetBlocked(uint32_t channel, bool blocked);
  // Unblocks every channel if `unblock_all`, then blocks the channels of `block` (a barrier
  // decision: an abandoned alignment releases its channels, the newer barrier's stay blocked).
  void UpdateBlocked(bool unblock_all, const std::vector<uint32_t>& block);
  // Buffer debloating: announces the buffer size to every channel's upstream subpartition.
  void AnnounceBufferSize(size_t bytes);
  uint32_t num_channels() const { return static_cast<uint32_t>(channels_.size()); }
  uint32_t channel_input(uint32_t channel) const { return channels_[channel].input; }
  uint32_t credits_per_channel() const { return credits_per_channel_; }
  // Buffers queued on `channel` and not yet taken (tests).
  uint32_t queued_buffers(uint32_t channel) const;

  // Unaligned checkpoint `checkpoint_id`, input side: captures (copies) the buffers queued on
  // `channel` ahead of the checkpoint's barrier (a newer one, or the end of partition) and, if
  // that is not queued yet, every buffer queued from now until it is. False once the inbox is
  // cancelled: its queues were dropped, so no capture of it can be complete.
  [[nodiscard]] bool StartCapture(uint32_t channel, int64_t checkpoint_id);
  // The first `n` queued buffers of `channel`, copied into `out`: those a priority barrier the
  // task just took had overtaken. False (nothing copied) if fewer than `n` are queued, which
  // happens only once the inbox is cancelled and its queues dropped.
  [[nodiscard]] bool CaptureFront(uint32_t channel, uint32_t n, std::vector<CapturedBuffer>* out);
  // Once the capture of `channel` is complete (its barrier was queued): moves what it captured
  // into `out` and returns true. False while it is still open or none was started.
  bool TakeCapture(uint32_t channel, std::vector<CapturedBuffer>* out);
  // Drops every capture (the checkpoint was abandoned).
  void StopCaptures();
  // Announcements made and not yet taken (tests).
  size_t pending_announcements() const;

 private:
  struct Channel {
    uint32_t input = 0;
    std::deque<StreamEvent> queue;
    uint32_t queued_buffers = 0;  // those that took a credit
    bool blocked = false;
    ResultSubpartition* upstream = nullptr;
    // Unaligned capture: open until a barrier of `capture_id` or newer (or the end of
    // partition) is queued; `capture_started` until TakeCapture took it.
    bool capture_started = false;
    bool capture_open = false;
    int64_t capture_id = -1;
    std::vector<CapturedBuffer> captured;
  };
  // Whether `e` ends the capture of `c` (its barrier or a newer one, the end of partition).
  static bool EndsCapture(const Channel& c, const StreamEvent& e);
  void PullLocked(uint32_t channel);
  void QueueLocked(uint32_t channel, StreamEvent event);
  bool TakeEventLocked(const PollFilter& filter, uint32_t* channel, StreamEvent* event);
  // Publishes has_mail_ and urgent_ after mails, priority events or announcements changed.
  void UpdateFlagsLocked();

  const uint32_t credits_per_channel_;
  mutable std::mutex mu_;
  std::condition_variable task_cv_;
  std::deque<Mail> mails_;
  std::atomic<bool> has_mail_{false};  // !mails_.empty(), written under mu_
  // Mails, priority events or announcements wait; written under mu_ (UpdateFlagsLocked).
  std::atomic<bool> urgent_{false};
  uint32_t priority_queued_ = 0;  // priority events queued over all channels
  std::vector<Channel> channels_;
  // Barrier announcements not yet taken, in arrival order.
  std::deque<std::pair<uint32_t, std::shared_ptr<const CheckpointOptions>>> announcements_;
  uint32_t next_channel_ = 0;
  bool cancelled_ = false;
  bool hold_upstream_ = false;
  uint32_t restored_pending_ = 0;
  uint64_t wakeups_ = 0;
};

}  // namespace ckpt::engine::runtime
