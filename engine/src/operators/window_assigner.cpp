#include "ckpt/engine/operators/window_assigner.h"

#include <cstdlib>
#include <string>

namespace ckpt::engine::operators {

int64_t WindowStart(int64_t timestamp, int64_t offset_ms, int64_t size_ms) {
  // C++ '%' truncates toward zero; normalising the remainder into [0, size) makes negative
  // timestamps land in the window below them, as Flink's getWindowStartWithOffset does.
  int64_t rem = (timestamp - offset_ms) % size_ms;
  if (rem < 0) rem += size_ms;
  return timestamp - rem;
}

base::Result<WindowAssigner> WindowAssigner::Tumbling(int64_t size_ms, int64_t offset_ms) {
  if (size_ms <= 0) {
    return base::Status::InvalidArgument("size_ms must be > 0, got " + std::to_string(size_ms));
  }
  if (std::llabs(offset_ms) >= size_ms) {
    return base::Status::InvalidArgument("offset_ms must satisfy |offset_ms| < size_ms, got " +
                                         std::to_string(offset_ms));
  }
  return WindowAssigner(size_ms, size_ms, offset_ms);
}

base::Result<WindowAssigner> WindowAssigner::Sliding(int64_t size_ms, int64_t slide_ms,
                                                     int64_t offset_ms) {
  if (size_ms <= 0) {
    return base::Status::InvalidArgument("size_ms must be > 0, got " + std::to_string(size_ms));
  }
  if (slide_ms <= 0 || slide_ms > size_ms) {
    return base::Status::InvalidArgument("slide_ms must satisfy 0 < slide_ms <= size_ms, got " +
                                         std::to_string(slide_ms));
  }
  if (std::llabs(offset_ms) >= slide_ms) {
    return base::Status::InvalidArgument("offset_ms must satisfy |offset_ms| < slide_ms, got " +
                                         std::to_string(offset_ms));
  }
  return WindowAssigner(size_ms, slide_ms, offset_ms);
}

std::vector<TimeWindow> WindowAssigner::Assign(int64_t timestamp) const {
  std::vector<TimeWindow> out;
  out.reserve(static_cast<size_t>(WindowsPerElement()));
  AssignTo(timestamp, &out);
  return out;
}

void WindowAssigner::AssignTo(int64_t timestamp, std::vector<TimeWindow>* out) const {
  const int64_t last_start = WindowStart(timestamp, offset_ms_, slide_ms_);
  for (int64_t start = last_start; start > timestamp - size_ms_; start -= slide_ms_) {
    out->push_back(TimeWindow{start, start + size_ms_});
  }
}

}  // namespace ckpt::engine::operators
