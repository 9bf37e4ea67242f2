// CheckCadence: how often a task processing elements back to back stops to read the clock (for
// the output buffer timeout, processing-time timers and buffer debloating). Reading the clock per
// record cost a tenth of a keyed job's CPU time; Flink's mailbox does not look at time between
// records either (its timers arrive as mails). Here the task checks every `stride` elements, and
// the stride adapts to how long elements take so that checks fall about every kTargetMicros:
// halved when a stride took longer, doubled when it took under a quarter of that. Slow elements
// (a window firing) thus bring the stride down to one; cheap ones amortize a clock read over
// thousands. Task thread only.
#pragma once

#include <chrono>
#include <cstdint>

namespace ckpt::engine::runtime {

class CheckCadence {
 public:
  // Time between two checks the stride aims at.
  static constexpr int64_t kTargetMicros = 1000;
  // Upper bound of the stride (elements between two checks).
  static constexpr uint32_t kMaxStride = 4096;

  // Counts one element; true when the task should check the clock now (then call Checked).
  bool Tick() { return ++count_ >= stride_; }

  // The task checked at `now_us` (a steady clock in microseconds, NowMicros): adapts the
  // stride to the time since the previous check.
  void Checked(int64_t now_us) {
    if (last_us_ != 0) {
      const int64_t elapsed_us = now_us - last_us_;
      if (elapsed_us > kTargetMicros) {
        if (stride_ > 1) stride_ /= 2;
      } else if (elapsed_us < kTargetMicros / 4 && stride_ < kMaxStride) {
        stride_ *= 2;
      }
    }
    last_us_ = now_us;
    count_ = 0;
  }

  uint32_t stride() const { return stride_; }

  static int64_t NowMicros() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

 private:
  uint32_t stride_ = 16;
  uint32_t count_ = 0;
  int64_t last_us_ = 0;
};

}  // namespace ckpt::engine::runtime
