// Clock: the time source of the checkpoint coordinator, so tests drive time by hand
// (ManualClock) instead of sleeping. Both implementations are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace ckpt::engine {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch (SystemClock) or whatever the test set (ManualClock).
  virtual int64_t NowMs() const = 0;
};

// Wall-clock time (std::chrono::system_clock).
class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override;
  // Process-wide instance.
  static SystemClock& Get();
};

// Time that moves only when told to.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 1'700'000'000'000) : now_ms_(start_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  void Advance(int64_t delta_ms) { now_ms_ += delta_ms; }
  void Set(int64_t now_ms) { now_ms_ = now_ms; }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace ckpt::engine
