// RecordWriter: one output edge of a task — partitions records over the downstream subtasks
// (forward, rebalance, rescale, hash by key group, broadcast) and serializes each element as a
// frame (u32 little-endian length, then the element's bytes) into the current network buffer of
// its target; a frame larger than the room left spans as many buffers as it needs, so records of
// any size pass. A full buffer goes to the target's result subpartition (the producer-side queue
// the consumer drains by credit); nothing here waits for the consumer. Buffers come from the
// task's pool: a free one, else an overdraft buffer, and only when both are exhausted does the
// writer wait for a recycled buffer (Request). Events (barriers, end of data/partition) flush
// first so they stay in order with the data; an unaligned barrier goes ahead of the queued
// buffers instead and returns them, captured, as channel state. Task thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/proto.h"
#include "network_buffer.h"
#include "result_subpartition.h"
#include "task_inbox.h"

namespace ckpt::engine::runtime {

struct ChannelTarget {
  TaskInbox* inbox = nullptr;
  uint32_t channel = 0;  // the channel index in that inbox
};

// Frame header: the element's length.
inline constexpr size_t kFrameHeaderBytes = 4;

class RecordWriter {
 public:
  // `targets[j]` is downstream subtask j. `target_max_parallelism` is used by HASH.
  RecordWriter(pb::Partitioning partitioning, std::vector<ChannelTarget> targets,
               BufferPool* pool, uint32_t subtask_index, uint32_t source_parallelism,
               uint32_t target_max_parallelism);
  ~RecordWriter();

  // Routes one record whose element encoding is `element`.
  base::Status Write(const Record& record, std::string_view element);
  // Appends `element` (a watermark) to every target.
  base::Status Broadcast(std::string_view element);
  // Sends every non-empty current buffer to its subpartition.
  void Flush();
  // The task's periodic flush (buffer timeout): sends a non-empty current buffer on only when
  // its subpartition has no buffer queued, so the consumer can take it now. Behind queued
  // buffers (backpressure) the buffer keeps filling: sealing it would gain no latency and fill
  // the channel with nearly empty buffers — in-flight data of a few records, which made
  // backpressured aligned checkpoints look fast. (Flink's flush does not seal either: the
  // consumer may read a buffer still being written.)
  void FlushIdle();
  // Whether FlushIdle would send a buffer now.
  bool HasIdlePartialBuffer() const;
  // Calls `listener` whenever a subpartition's consumer took its last queued buffer
  // (ResultSubpartition::SetDrainedListener; before the tasks run).
  void SetDrainedListener(const std::function<void()>& listener);
  // Flushes, then appends `event` to every subpartition.
  void BroadcastEvent(const StreamEvent& event);
  // Flushes, then puts `event` ahead of every subpartition's queued buffers; returns them per
  // target, captured, in stream order (the output channel state of an unaligned checkpoint).
  std::vector<std::vector<CapturedBuffer>> BroadcastPriorityEvent(const StreamEvent& event);
  // Restore: queues a replayed buffer of subpartition `target` (before any new output).
  void RestoreBuffer(uint32_t target, NetworkBuffer* buffer);
  // Releases the current and queued buffers (cancellation).
  void Clear();

  uint32_t num_targets() const { return static_cast<uint32_t>(targets_.size()); }
  ResultSubpartition* subpartition(uint32_t target) { return subpartitions_[target].get(); }
  pb::Partitioning partitioning() const { return partitioning_; }
  // Frame bytes (headers included) written to this edge's buffers so far (numBytesOut).
  uint64_t bytes_written() const { return bytes_written_; }
  // Task metrics: the time the writer waits for a recycled buffer (the last resort, inside a
  // record) is added to `*blocked_ns` (back-pressured time). Null (default): not measured.
  void SetBlockedCounter(int64_t* blocked_ns) { blocked_ns_ = blocked_ns; }

 private:
  // A non-empty current buffer and nothing queued: the consumer could take it now.
  bool IdlePartial(uint32_t target) const;
  base::Status WriteTo(uint32_t target, std::string_view element);
  base::Status Append(uint32_t target, std::string_view bytes);
  base::Result<NetworkBuffer*> NextBuffer();

  pb::Partitioning partitioning_;
  std::vector<ChannelTarget> targets_;
  std::vector<std::unique_ptr<ResultSubpartition>> subpartitions_;
  std::vector<NetworkBuffer*> current_;
  BufferPool* pool_;
  uint32_t target_max_parallelism_;
  uint32_t round_robin_ = 0;
  // RESCALE: this subtask's fixed subset [rescale_begin_, rescale_end_).
  uint32_t rescale_begin_ = 0;
  uint32_t rescale_end_ = 0;
  std::string key_scratch_;
  uint64_t bytes_written_ = 0;
  int64_t* blocked_ns_ = nullptr;
};

}  // namespace ckpt::engine::runtime
