#include "frame_reader.h"

#include <algorithm>

#include "record_writer.h"

namespace ckpt::engine::runtime {
namespace {

uint32_t ReadLength(const char* p) {
  uint32_t v = 0;
  for (size_t i = 0; i < kFrameHeaderBytes; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}

}  // namespace

FrameReader::~FrameReader() { Reset(); }

void FrameReader::Reset() {
  if (buffer_ != nullptr) ReleaseBuffer(buffer_);
  buffer_ = nullptr;
  pos_ = 0;
  partial_.clear();
}

void FrameReader::SetBuffer(NetworkBuffer* buffer) {
  buffer_ = buffer;
  pos_ = 0;
  if (!partial_.empty()) {
    ++gathering_.buffers;
    gathering_.restored = gathering_.restored || buffer->pool == nullptr;
  }
}

void FrameReader::NoteFrameStart() {
  gathering_.offset = pos_;
  gathering_.buffer_size = buffer_->size;
  gathering_.buffers = 1;
  gathering_.restored = buffer_->pool == nullptr;
}

std::string FrameReader::DescribeLastFrame() const {
  return "frame began at byte " + std::to_string(last_.offset) + " of a " +
         std::to_string(last_.buffer_size) + "-byte buffer and spanned " +
         std::to_string(last_.buffers) + " buffer(s)" +
         (last_.restored ? ", replayed channel state among them" : "");
}

bool FrameReader::Next(std::string_view* element) {
  if (buffer_ == nullptr) return false;
  const char* data = buffer_->data.get();
  const size_t size = buffer_->size;
  if (partial_.empty() && size - pos_ >= kFrameHeaderBytes) {
    const uint32_t len = ReadLength(data + pos_);
    if (size - pos_ - kFrameHeaderBytes >= len) {
      NoteFrameStart();
      last_ = gathering_;
      *element = std::string_view(data + pos_ + kFrameHeaderBytes, len);
      pos_ += kFrameHeaderBytes + len;
      consumed_ += kFrameHeaderBytes + len;
      if (pos_ == size) {
        // Keep the buffer until the caller is done with the element: released on the next call.
        frame_.assign(element->data(), element->size());
        *element = frame_;
        ReleaseBuffer(buffer_);
        buffer_ = nullptr;
        pos_ = 0;
      }
      return true;
    }
  }
  // A frame spanning buffers: gather it in `partial_`.
  while (pos_ < size) {
    size_t need;
    if (partial_.size() < kFrameHeaderBytes) {
      need = kFrameHeaderBytes - partial_.size();
    } else {
      need = kFrameHeaderBytes + ReadLength(partial_.data()) - partial_.size();
    }
    const size_t n = std::min(need, size - pos_);
    if (partial_.empty()) NoteFrameStart();
    partial_.append(data + pos_, n);
    pos_ += n;
    if (partial_.size() >= kFrameHeaderBytes &&
        partial_.size() == kFrameHeaderBytes + ReadLength(partial_.data())) {
      frame_.assign(partial_, kFrameHeaderBytes, std::string::npos);
      last_ = gathering_;
      consumed_ += partial_.size();
      partial_.clear();
      if (pos_ == size) {
        ReleaseBuffer(buffer_);
        buffer_ = nullptr;
        pos_ = 0;
      }
      *element = frame_;
      return true;
    }
  }
  ReleaseBuffer(buffer_);
  buffer_ = nullptr;
  pos_ = 0;
  return false;
}

std::string FrameReader::UnconsumedBytes() const {
  std::string out = partial_;
  if (buffer_ != nullptr) out.append(buffer_->data.get() + pos_, buffer_->size - pos_);
  return out;
}

}  // namespace ckpt::engine::runtime
