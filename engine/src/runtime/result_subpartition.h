// ResultSubpartition: the producer-side queue of one output channel (one downstream subtask of
// one edge). The producer appends finished buffers and events without waiting; the consumer's
// input channel drains it by credit (a buffer moves only while the channel has a free credit;
// events move at once). A priority event goes ahead of the queued buffers, which an unaligned
// checkpoint captures (their bytes) as the subpartition's channel state.
// Thread-safe: the producer adds on its task thread, the consumer pulls on any thread.
#pragma once

#include <deque>
#include <mutex>
#include <vector>

#include "stream_event.h"

namespace ckpt::engine::runtime {

class TaskInbox;

class ResultSubpartition {
 public:
  ResultSubpartition() = default;
  ResultSubpartition(const ResultSubpartition&) = delete;
  ResultSubpartition& operator=(const ResultSubpartition&) = delete;
  ~ResultSubpartition();

  // The consumer (before either side runs).
  void Connect(TaskInbox* inbox, uint32_t channel);

  // Appends at the tail and tells the consumer.
  void Add(StreamEvent event);
  // Puts `event` ahead of every queued buffer (after queued events, which keep their order)
  // and returns those buffers, captured, in stream order.
  std::vector<CapturedBuffer> AddPriority(StreamEvent event);
  // Consumer side: the front element if it is an event, or a buffer when `credit` allows.
  bool PopFront(bool credit, StreamEvent* out);
  // Releases every queued buffer (the job is cancelled).
  void Clear();

  size_t queued_buffers() const;

 private:
  void NotifyConsumer();

  mutable std::mutex mu_;
  std::deque<StreamEvent> queue_;
  size_t buffers_ = 0;
  TaskInbox* inbox_ = nullptr;
  uint32_t channel_ = 0;
};

}  // namespace ckpt::engine::runtime
