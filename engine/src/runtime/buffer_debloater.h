// BufferDebloater: sizes the in-flight buffers of one input gate (all input channels of a task)
// to about `target_ms` of its measured throughput (FLIP-183, Flink's BufferDebloater:
// "the upstream buffers about what the downstream processes in a second"). Every period the
// task reports the bytes it consumed; the debloater keeps an exponential moving average of the
// throughput and derives the buffer size as
//   throughput x target / buffers in flight (the task passes channels x (2 x credits + 1)),
// clamped to [min_buffer_bytes, max_buffer_bytes]. A new size is announced only when it differs
// from the announced one by more than `threshold_percent`. Pure logic; no clock of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ckpt/engine/network_options.h"

namespace ckpt::engine::runtime {

class BufferDebloater {
 public:
  BufferDebloater(const NetworkOptions& options, uint32_t buffers_in_flight);

  // `bytes` consumed over the last `elapsed_ms`: the new buffer size to announce, if any.
  std::optional<size_t> Recalculate(uint64_t bytes, int64_t elapsed_ms);

  size_t buffer_size() const { return announced_; }
  // The smoothed throughput (bytes per second).
  double throughput() const { return throughput_; }

 private:
  const int64_t target_ms_;
  const size_t min_bytes_;
  const size_t max_bytes_;
  const uint32_t buffers_in_flight_;
  const uint32_t threshold_percent_;
  const double alpha_;
  double throughput_ = -1;  // < 0: no sample yet
  size_t announced_;
};

}  // namespace ckpt::engine::runtime
