// ResultSubpartition: the producer-side queue of one output channel (one downstream subtask of
// one edge). The producer appends finished buffers and events without waiting; the consumer's
// input channel drains it by credit (a buffer moves only while the channel has a free credit;
// events move at once). A priority event goes ahead of the queued buffers, which an unaligned
// checkpoint captures (their bytes) as the subpartition's channel state.
// Thread-safe: the producer adds on its task thread, the consumer pulls on any thread.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
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
  // The producer (before either side runs): called, on the consumer's thread, each time the
  // consumer takes the last queued buffer. A producer waiting for a free buffer then sends its
  // partly filled one (RecordWriter::FlushIdle), which the consumer may need to finish a record.
  void SetDrainedListener(std::function<void()> listener) { on_drained_ = std::move(listener); }

  // Appends at the tail and tells the consumer.
  void Add(StreamEvent event);
  // Puts `event` ahead of every queued buffer (after queued events, which keep their order)
  // and returns those buffers, captured, in stream order.
  std::vector<CapturedBuffer> AddPriority(StreamEvent event);
  // Aligned with timeout, output side (FLINK-27251): if the barrier of `checkpoint_id` is still
  // queued, moves it ahead of the buffers queued before it (as AddPriority) and returns them,
  // captured; nullopt when it already left.
  std::optional<std::vector<CapturedBuffer>> PromoteBarrier(int64_t checkpoint_id);
  // Whether the barrier of `checkpoint_id` is still queued here.
  bool HoldsBarrier(int64_t checkpoint_id) const;
  // Consumer side: the front element if it is an event, or a buffer when `credit` allows.
  bool PopFront(bool credit, StreamEvent* out);
  // Releases every queued buffer (the job is cancelled).
  void Clear();

  size_t queued_buffers() const;
  // Buffer debloating: the consumer's announced buffer size (0: the whole buffer). The producer
  // sends a buffer on once it holds this many bytes.
  void SetBufferSize(size_t bytes) { buffer_size_.store(bytes, std::memory_order_relaxed); }
  size_t buffer_size() const { return buffer_size_.load(std::memory_order_relaxed); }

 private:
  void NotifyConsumer();

  mutable std::mutex mu_;
  std::deque<StreamEvent> queue_;
  size_t buffers_ = 0;
  TaskInbox* inbox_ = nullptr;
  uint32_t channel_ = 0;
  std::atomic<size_t> buffer_size_{0};
  std::function<void()> on_drained_;
};

}  // namespace ckpt::engine::runtime
