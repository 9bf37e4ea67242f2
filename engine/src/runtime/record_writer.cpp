#include "record_writer.h"

#include <cstring>

#include "ckpt/format/key_groups.h"

namespace ckpt::engine::runtime {

RecordWriter::RecordWriter(pb::Partitioning partitioning, std::vector<ChannelTarget> targets,
                           BufferPool* pool, uint32_t subtask_index,
                           uint32_t source_parallelism, uint32_t target_max_parallelism)
    : partitioning_(partitioning),
      targets_(std::move(targets)),
      current_(targets_.size(), nullptr),
      pool_(pool),
      target_max_parallelism_(target_max_parallelism) {
  const uint32_t n = num_targets();
  // Flink's RescalePartitioner: each upstream subtask feeds a contiguous slice of downstream
  // subtasks (or shares one when there are more upstreams).
  if (source_parallelism <= n) {
    rescale_begin_ = static_cast<uint32_t>(uint64_t{subtask_index} * n / source_parallelism);
    rescale_end_ = static_cast<uint32_t>(uint64_t{subtask_index + 1} * n / source_parallelism);
  } else {
    rescale_begin_ = static_cast<uint32_t>(uint64_t{subtask_index} * n / source_parallelism);
    rescale_end_ = rescale_begin_ + 1;
  }
  if (rescale_end_ <= rescale_begin_) rescale_end_ = rescale_begin_ + 1;
  round_robin_ = subtask_index % (n == 0 ? 1 : n);
}

base::Status RecordWriter::WriteTo(uint32_t target, std::string_view element) {
  NetworkBuffer*& buf = current_[target];
  if (buf != nullptr && buf->free_bytes() < element.size()) {
    CKPT_RETURN_IF_ERROR(targets_[target].inbox->SendBuffer(targets_[target].channel, buf));
    buf = nullptr;
  }
  if (buf == nullptr) {
    if (element.size() > pool_->buffer_bytes()) {
      return base::Status::InvalidArgument(
          "record of " + std::to_string(element.size()) +
          " bytes does not fit a network buffer of " + std::to_string(pool_->buffer_bytes()) +
          " bytes");
    }
    CKPT_ASSIGN_OR_RETURN(buf, pool_->Request());
  }
  std::memcpy(buf->data.get() + buf->size, element.data(), element.size());
  buf->size += element.size();
  return base::Status::OK();
}

base::Status RecordWriter::Write(const Record& record, std::string_view element) {
  const uint32_t n = num_targets();
  switch (partitioning_) {
    case pb::FORWARD:
      return WriteTo(0, element);
    case pb::HASH: {
      key_scratch_.clear();
      CKPT_RETURN_IF_ERROR(EncodeRecordKey(record.key, &key_scratch_));
      uint32_t group = KeyGroupOfEncodedKey(key_scratch_, target_max_parallelism_);
      return WriteTo(format::SubtaskForKeyGroup(target_max_parallelism_, n, group), element);
    }
    case pb::BROADCAST:
      for (uint32_t t = 0; t < n; ++t) CKPT_RETURN_IF_ERROR(WriteTo(t, element));
      return base::Status::OK();
    case pb::RESCALE: {
      uint32_t width = rescale_end_ - rescale_begin_;
      uint32_t t = rescale_begin_ + (round_robin_++ % width);
      return WriteTo(t < n ? t : n - 1, element);
    }
    case pb::REBALANCE:
    default: {
      uint32_t t = round_robin_;
      round_robin_ = (round_robin_ + 1) % n;
      return WriteTo(t, element);
    }
  }
}

base::Status RecordWriter::Broadcast(std::string_view element) {
  for (uint32_t t = 0; t < num_targets(); ++t) CKPT_RETURN_IF_ERROR(WriteTo(t, element));
  return base::Status::OK();
}

base::Status RecordWriter::Flush() {
  for (uint32_t t = 0; t < num_targets(); ++t) {
    NetworkBuffer*& buf = current_[t];
    if (buf != nullptr && buf->size > 0) {
      NetworkBuffer* b = buf;
      buf = nullptr;
      CKPT_RETURN_IF_ERROR(targets_[t].inbox->SendBuffer(targets_[t].channel, b));
    }
  }
  return base::Status::OK();
}

base::Status RecordWriter::BroadcastEvent(const StreamEvent& event) {
  CKPT_RETURN_IF_ERROR(Flush());
  for (const ChannelTarget& t : targets_) t.inbox->SendEvent(t.channel, event);
  return base::Status::OK();
}

}  // namespace ckpt::engine::runtime
