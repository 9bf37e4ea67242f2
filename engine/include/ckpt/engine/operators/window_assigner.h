// Event-time window assignment for the catalog's window operators: tumbling and sliding windows
// aligned to the epoch plus an offset, with Flink's arithmetic (TimeWindow.getWindowStartWithOffset),
// so a window's bounds are a pure function of the timestamp. Value type; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::engine::operators {

// The half-open interval [start, end) of event time, in milliseconds.
struct TimeWindow {
  int64_t start = 0;
  int64_t end = 0;
  // The largest timestamp that belongs to the window; the window fires when the watermark
  // reaches it.
  int64_t MaxTimestamp() const { return end - 1; }
  bool operator==(const TimeWindow&) const = default;
};

// Start of the window of length `size_ms` (aligned to `offset_ms`) that contains `timestamp`.
// Correct for negative timestamps. Requires size_ms > 0.
int64_t WindowStart(int64_t timestamp, int64_t offset_ms, int64_t size_ms);

// Assigns timestamps to tumbling (slide == size) or sliding (slide < size) windows.
class WindowAssigner {
 public:
  // Tumbling windows of `size_ms`. InvalidArgument naming `size_ms` unless size_ms > 0, or naming
  // `offset_ms` unless |offset_ms| < size_ms.
  static base::Result<WindowAssigner> Tumbling(int64_t size_ms, int64_t offset_ms = 0);
  // Sliding windows of `size_ms` starting every `slide_ms`. InvalidArgument naming the field
  // unless 0 < slide_ms <= size_ms and |offset_ms| < slide_ms.
  static base::Result<WindowAssigner> Sliding(int64_t size_ms, int64_t slide_ms,
                                              int64_t offset_ms = 0);

  // The windows containing `timestamp`, latest start first (as Flink's SlidingEventTimeWindows).
  // A tumbling assigner returns exactly one window.
  std::vector<TimeWindow> Assign(int64_t timestamp) const;
  // Appends to `out` instead of allocating a new vector (hot path).
  void AssignTo(int64_t timestamp, std::vector<TimeWindow>* out) const;

  // Number of windows each timestamp belongs to: ceil(size / slide).
  int64_t WindowsPerElement() const { return (size_ms_ + slide_ms_ - 1) / slide_ms_; }

  int64_t size_ms() const { return size_ms_; }
  int64_t slide_ms() const { return slide_ms_; }
  int64_t offset_ms() const { return offset_ms_; }
  bool is_tumbling() const { return size_ms_ == slide_ms_; }

 private:
  WindowAssigner(int64_t size_ms, int64_t slide_ms, int64_t offset_ms)
      : size_ms_(size_ms), slide_ms_(slide_ms), offset_ms_(offset_ms) {}

  int64_t size_ms_;
  int64_t slide_ms_;
  int64_t offset_ms_;
};

}  // namespace ckpt::engine::operators
