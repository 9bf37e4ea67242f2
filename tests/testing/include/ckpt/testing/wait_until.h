// WaitUntil: the way tests wait — on a condition, with a deadline, never a fixed sleep.
// Polls `condition` every `poll` until it holds (true) or `deadline` passed (false: the test
// reports what it waited for). The deadline is generous by default: it bounds a hung test, it
// is not a timing assertion.
#pragma once

#include <chrono>
#include <thread>

namespace ckpt::testing {

inline constexpr std::chrono::milliseconds kDefaultWaitDeadline{60000};

template <typename Condition>
bool WaitUntil(Condition&& condition,
               std::chrono::milliseconds deadline = kDefaultWaitDeadline,
               std::chrono::milliseconds poll = std::chrono::milliseconds(2)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= until) return condition();
    std::this_thread::sleep_for(poll);
  }
  return true;
}

}  // namespace ckpt::testing
