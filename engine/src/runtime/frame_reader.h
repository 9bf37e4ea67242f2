// FrameReader: reassembles the frames RecordWriter writes (u32 LE length + element bytes) from
// the buffers of one input channel, frames spanning any number of buffers included. The task
// reads one frame at a time between which it may stop (no free output buffer, a mail, a
// barrier); the unconsumed bytes of the channel (a partial frame and the rest of the current
// buffer) are what an unaligned checkpoint persists first for that channel. Task thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "network_buffer.h"

namespace ckpt::engine::runtime {

class FrameReader {
 public:
  FrameReader() = default;
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;
  ~FrameReader();

  // Starts reading `buffer` (the reader releases it once consumed). Only when !has_buffer().
  void SetBuffer(NetworkBuffer* buffer);
  bool has_buffer() const { return buffer_ != nullptr; }
  // The next complete frame's element, valid until the next call. False when the current buffer
  // is used up (it is released; a partial frame is kept for the next buffer).
  bool Next(std::string_view* element);
  // Bytes not yet handed out: the partial frame, then the rest of the current buffer.
  std::string UnconsumedBytes() const;
  // Bytes handed out as elements so far (processed in-flight data).
  uint64_t consumed_bytes() const { return consumed_; }
  // Releases the current buffer and forgets the partial frame.
  void Reset();

 private:
  NetworkBuffer* buffer_ = nullptr;
  size_t pos_ = 0;
  std::string partial_;
  std::string frame_;
  uint64_t consumed_ = 0;
};

}  // namespace ckpt::engine::runtime
