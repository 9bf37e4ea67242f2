// Progress reporting and cooperative cancellation for long operations (validate, prune, relocate).
// CancelToken is thread-safe: the GUI thread cancels while a worker polls.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>

namespace ckpt::base {

class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

// Called with (done, total, what) as work advances; total 0 means unknown. May be called from a
// worker thread. Must be cheap.
using ProgressFn = std::function<void(uint64_t done, uint64_t total, std::string_view what)>;

struct Progress {
  ProgressFn on_progress;             // Default: none
  const CancelToken* cancel = nullptr;  // Default: not cancellable

  void Report(uint64_t done, uint64_t total, std::string_view what) const {
    if (on_progress) on_progress(done, total, what);
  }
  bool cancelled() const { return cancel != nullptr && cancel->cancelled(); }
};

}  // namespace ckpt::base
