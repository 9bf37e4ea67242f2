// Timer: one registered event-time or processing-time timer as handed to an operator when it
// fires. Plain value type.
#pragma once

#include <cstdint>
#include <string>

namespace ckpt::engine {

enum class TimeDomain { kEventTime, kProcessingTime };

struct Timer {
  TimeDomain domain = TimeDomain::kEventTime;
  int64_t timestamp = 0;
  // Encoded namespace the timer was registered under (empty for the VOID namespace).
  std::string ns;
  bool operator==(const Timer&) const = default;
};

}  // namespace ckpt::engine
