#include "record_writer.h"

#include <algorithm>
#include <chrono>
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
  for (uint32_t t = 0; t < n; ++t) {
    subpartitions_.push_back(std::make_unique<ResultSubpartition>());
    if (targets_[t].inbox != nullptr) {
      subpartitions_.back()->Connect(targets_[t].inbox, targets_[t].channel);
    }
  }
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

RecordWriter::~RecordWriter() {
  for (NetworkBuffer*& b : current_) {
    if (b != nullptr) ReleaseBuffer(b);
    b = nullptr;
  }
}

base::Result<NetworkBuffer*> RecordWriter::NextBuffer() {
  if (NetworkBuffer* b = pool_->TryRequest()) return b;
  if (NetworkBuffer* b = pool_->TryRequestOverdraft()) return b;
  // More buffers than free + overdraft for one record: the last resort waits.
  if (blocked_ns_ == nullptr) return pool_->Request();
  const auto start = std::chrono::steady_clock::now();
  base::Result<NetworkBuffer*> b = pool_->Request();
  *blocked_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return b;
}

base::Status RecordWriter::Append(uint32_t target, std::string_view bytes) {
  NetworkBuffer*& buf = current_[target];
  ResultSubpartition& sp = *subpartitions_[target];
  while (!bytes.empty()) {
    if (buf == nullptr) {
      CKPT_ASSIGN_OR_RETURN(buf, NextBuffer());
    }
    // Buffer debloating: the consumer's announced size bounds what one buffer carries.
    const size_t announced = sp.buffer_size();
    const size_t limit =
        announced == 0 ? buf->capacity : std::max<size_t>(1, std::min(announced, buf->capacity));
    const size_t n = std::min(bytes.size(), limit > buf->size ? limit - buf->size : 0);
    std::memcpy(buf->data.get() + buf->size, bytes.data(), n);
    buf->size += n;
    bytes.remove_prefix(n);
    if (buf->size >= limit) {
      StreamEvent e;
      e.buffer = buf;
      buf = nullptr;
      subpartitions_[target]->Add(std::move(e));
    }
  }
  return base::Status::OK();
}

base::Status RecordWriter::WriteTo(uint32_t target, std::string_view element) {
  char header[kFrameHeaderBytes];
  const uint32_t len = static_cast<uint32_t>(element.size());
  for (size_t i = 0; i < kFrameHeaderBytes; ++i) header[i] = static_cast<char>((len >> (8 * i)) & 0xff);
  bytes_written_ += kFrameHeaderBytes + element.size();
  // The common case: the whole frame fits the current buffer with room to spare (it stays open).
  if (NetworkBuffer* buf = current_[target]; buf != nullptr) {
    const size_t announced = subpartitions_[target]->buffer_size();
    const size_t limit = announced == 0 ? buf->capacity : std::min(announced, buf->capacity);
    if (buf->size + kFrameHeaderBytes + element.size() < limit) {
      char* at = buf->data.get() + buf->size;
      std::memcpy(at, header, kFrameHeaderBytes);
      std::memcpy(at + kFrameHeaderBytes, element.data(), element.size());
      buf->size += kFrameHeaderBytes + element.size();
      return base::Status::OK();
    }
  }
  CKPT_RETURN_IF_ERROR(Append(target, std::string_view(header, kFrameHeaderBytes)));
  return Append(target, element);
}

base::Status RecordWriter::Write(const Record& record, std::string_view element) {
  const uint32_t n = num_targets();
  if (element.size() > UINT32_MAX) {
    return base::Status::InvalidArgument("record of " + std::to_string(element.size()) +
                                         " bytes is larger than 4 GiB");
  }
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

void RecordWriter::Flush() {
  for (uint32_t t = 0; t < num_targets(); ++t) {
    NetworkBuffer*& buf = current_[t];
    if (buf != nullptr && buf->size > 0) {
      StreamEvent e;
      e.buffer = buf;
      buf = nullptr;
      subpartitions_[t]->Add(std::move(e));
    }
  }
}

bool RecordWriter::IdlePartial(uint32_t target) const {
  const NetworkBuffer* buf = current_[target];
  return buf != nullptr && buf->size > 0 && subpartitions_[target]->queued_buffers() == 0;
}

bool RecordWriter::HasIdlePartialBuffer() const {
  for (uint32_t t = 0; t < num_targets(); ++t) {
    if (IdlePartial(t)) return true;
  }
  return false;
}

void RecordWriter::SetDrainedListener(const std::function<void()>& listener) {
  for (auto& sp : subpartitions_) sp->SetDrainedListener(listener);
}

void RecordWriter::FlushIdle() {
  for (uint32_t t = 0; t < num_targets(); ++t) {
    if (!IdlePartial(t)) continue;
    StreamEvent e;
    e.buffer = current_[t];
    current_[t] = nullptr;
    subpartitions_[t]->Add(std::move(e));
  }
}

void RecordWriter::BroadcastEvent(const StreamEvent& event) {
  Flush();
  for (auto& sp : subpartitions_) sp->Add(event);
}

std::vector<std::vector<CapturedBuffer>> RecordWriter::BroadcastPriorityEvent(
    const StreamEvent& event) {
  Flush();
  std::vector<std::vector<CapturedBuffer>> out;
  out.reserve(subpartitions_.size());
  for (auto& sp : subpartitions_) out.push_back(sp->AddPriority(event));
  return out;
}

void RecordWriter::RestoreBuffer(uint32_t target, NetworkBuffer* buffer) {
  StreamEvent e;
  e.buffer = buffer;
  subpartitions_[target]->Add(std::move(e));
}

void RecordWriter::Clear() {
  for (NetworkBuffer*& b : current_) {
    if (b != nullptr) ReleaseBuffer(b);
    b = nullptr;
  }
  for (auto& sp : subpartitions_) sp->Clear();
}

}  // namespace ckpt::engine::runtime
