// AsyncExecutor: a small fixed pool of threads running the asynchronous phase of snapshots
// (writing state files) so tasks keep processing. Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ckpt::engine::runtime {

class AsyncExecutor {
 public:
  explicit AsyncExecutor(size_t num_threads);
  ~AsyncExecutor();  // runs what is queued, then joins
  AsyncExecutor(const AsyncExecutor&) = delete;
  AsyncExecutor& operator=(const AsyncExecutor&) = delete;

  void Submit(std::function<void()> work);
  // Blocks until everything submitted so far has run.
  void Drain();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ckpt::engine::runtime
