// TaskInbox: everything that reaches one subtask — mails (control actions run on the task thread:
// checkpoint triggers, notifications, timers, stop) and, per input channel, the stream of network
// buffers and events from one upstream subtask. Credit-based flow control: a channel accepts at
// most `credits_per_channel` buffers not yet taken by the task; a sender without credit waits.
// A channel may be blocked (barrier alignment): its events stay queued until unblocked.
// Thread-safe: senders and mail posters on any thread, Poll on the task thread only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "network_buffer.h"

namespace ckpt::engine::runtime {

struct StreamEvent {
  enum class Kind : uint8_t {
    kBuffer,          // serialized records and watermarks
    kBarrier,         // checkpoint barrier (flushed after all earlier data)
    kEndOfData,       // the upstream finished its input; it waits for a final checkpoint
    kEndOfPartition,  // the upstream subtask terminated; nothing follows
  };
  Kind kind = Kind::kBuffer;
  NetworkBuffer* buffer = nullptr;
  std::shared_ptr<const CheckpointOptions> barrier;
};

class TaskInbox {
 public:
  using Mail = std::function<base::Status()>;

  // `channel_inputs[c]` is the operator input (0 or 1) channel `c` feeds.
  TaskInbox(std::vector<uint32_t> channel_inputs, uint32_t credits_per_channel);

  // Sender side. SendBuffer waits for a credit on `channel`; Cancelled after Cancel().
  base::Status SendBuffer(uint32_t channel, NetworkBuffer* buffer);
  // Events need no credit (they are tiny and must not deadlock behind data).
  void SendEvent(uint32_t channel, StreamEvent event);
  void PostMail(Mail mail);
  // Senders inside SendBuffer right now (waiting for a credit, or about to queue): lets tests
  // wait for "the sender is blocked" as a condition instead of sleeping.
  uint32_t waiting_senders() const;
  // Wakes everyone; senders and Poll return Cancelled/kCancelled from now on. Queued buffers are
  // returned to their pools.
  void Cancel();
  bool cancelled() const;

  struct Polled {
    enum class What { kMail, kEvent, kTimeout, kCancelled };
    What what = What::kTimeout;
    Mail mail;
    uint32_t channel = 0;
    StreamEvent event;
  };
  // Next mail (mails first), else the next event of an unblocked channel (round-robin), waiting
  // until `deadline`. Taking a buffer returns its channel's credit.
  Polled Poll(std::chrono::steady_clock::time_point deadline);
  // A mail without waiting (for sources between polls); false if none.
  bool TryTakeMail(Mail* mail);

  void SetBlocked(uint32_t channel, bool blocked);
  uint32_t num_channels() const { return static_cast<uint32_t>(channels_.size()); }
  uint32_t channel_input(uint32_t channel) const { return channels_[channel].input; }

 private:
  struct Channel {
    uint32_t input = 0;
    std::deque<StreamEvent> queue;
    uint32_t queued_buffers = 0;
    bool blocked = false;
  };
  bool TakeEventLocked(uint32_t* channel, StreamEvent* event);

  const uint32_t credits_per_channel_;
  mutable std::mutex mu_;
  std::condition_variable task_cv_;
  std::condition_variable sender_cv_;
  std::deque<Mail> mails_;
  std::vector<Channel> channels_;
  uint32_t next_channel_ = 0;
  bool cancelled_ = false;
  uint32_t waiting_senders_ = 0;
};

}  // namespace ckpt::engine::runtime
