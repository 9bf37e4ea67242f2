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
  // Where the frame of the last element Next returned came from, for error messages: its
  // length, the byte of its first buffer it began at and that buffer's size, how many buffers
  // it spanned, and whether any of them was replayed channel state (an unpooled buffer).
  std::string DescribeLastFrame() const;
  // Releases the current buffer and forgets the partial frame.
  void Reset();

 private:
  NetworkBuffer* buffer_ = nullptr;
  size_t pos_ = 0;
  std::string partial_;
  std::string frame_;
  uint64_t consumed_ = 0;
  struct Origin {
    size_t offset = 0;       // in its first buffer
    size_t buffer_size = 0;  // of its first buffer
    uint32_t buffers = 0;
    bool restored = false;
  };
  // NoteFrameStart: the frame being gathered; `last_`: the one Next returned last.
  void NoteFrameStart();
  Origin gathering_;
  Origin last_;
};

}  // namespace ckpt::engine::runtime
