#include "buffer_debloater.h"

#include <algorithm>
#include <cmath>

namespace ckpt::engine::runtime {

BufferDebloater::BufferDebloater(const NetworkOptions& options, uint32_t buffers_in_flight)
    : target_ms_(std::max<int64_t>(1, options.debloat_target_ms)),
      min_bytes_(std::max<size_t>(1, std::min(options.min_buffer_bytes, options.buffer_bytes))),
      max_bytes_(std::max<size_t>(1, options.buffer_bytes)),
      buffers_in_flight_(std::max<uint32_t>(1, buffers_in_flight)),
      threshold_percent_(options.debloat_threshold_percent),
      alpha_(2.0 / (std::max<uint32_t>(1, options.debloat_samples) + 1.0)),
      announced_(max_bytes_) {}

std::optional<size_t> BufferDebloater::Recalculate(uint64_t bytes, int64_t elapsed_ms) {
  if (elapsed_ms <= 0) return std::nullopt;
  const double sample = static_cast<double>(bytes) * 1000.0 / static_cast<double>(elapsed_ms);
  throughput_ = throughput_ < 0 ? sample : alpha_ * sample + (1 - alpha_) * throughput_;
  const double in_flight = throughput_ * static_cast<double>(target_ms_) / 1000.0;
  const double per_buffer = in_flight / buffers_in_flight_;
  const size_t size = static_cast<size_t>(
      std::clamp(per_buffer, static_cast<double>(min_bytes_), static_cast<double>(max_bytes_)));
  const double change = std::fabs(static_cast<double>(size) - static_cast<double>(announced_));
  if (size == announced_ ||
      change * 100.0 <= static_cast<double>(threshold_percent_) * static_cast<double>(announced_)) {
    return std::nullopt;
  }
  announced_ = size;
  return size;
}

}  // namespace ckpt::engine::runtime
