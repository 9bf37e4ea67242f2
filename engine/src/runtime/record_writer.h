// RecordWriter: one output edge of a task — partitions records over the downstream subtasks
// (forward, rebalance, rescale, hash by key group, broadcast), copies their serialized bytes into
// one network buffer per target from the task's bounded pool, and hands full buffers to the
// targets' inboxes (waiting for credit). Events (barriers, end of data/partition) flush first so
// they stay in order with the data. Task thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/proto.h"
#include "network_buffer.h"
#include "task_inbox.h"

namespace ckpt::engine::runtime {

struct ChannelTarget {
  TaskInbox* inbox = nullptr;
  uint32_t channel = 0;  // the channel index in that inbox
};

class RecordWriter {
 public:
  // `targets[j]` is downstream subtask j. `target_max_parallelism` is used by HASH.
  RecordWriter(pb::Partitioning partitioning, std::vector<ChannelTarget> targets,
               BufferPool* pool, uint32_t subtask_index, uint32_t source_parallelism,
               uint32_t target_max_parallelism);

  // Routes one record whose element encoding is `element`. `encoded_key_scratch` is reused.
  base::Status Write(const Record& record, std::string_view element);
  // Appends `element` (a watermark) to every target.
  base::Status Broadcast(std::string_view element);
  // Sends every non-empty current buffer.
  base::Status Flush();
  // Flushes, then sends `event` to every target.
  base::Status BroadcastEvent(const StreamEvent& event);

  uint32_t num_targets() const { return static_cast<uint32_t>(targets_.size()); }

 private:
  base::Status WriteTo(uint32_t target, std::string_view element);

  pb::Partitioning partitioning_;
  std::vector<ChannelTarget> targets_;
  std::vector<NetworkBuffer*> current_;
  BufferPool* pool_;
  uint32_t target_max_parallelism_;
  uint32_t round_robin_ = 0;
  // RESCALE: this subtask's fixed subset [rescale_begin_, rescale_end_).
  uint32_t rescale_begin_ = 0;
  uint32_t rescale_end_ = 0;
  std::string key_scratch_;
};

}  // namespace ckpt::engine::runtime
