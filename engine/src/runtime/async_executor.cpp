#include "async_executor.h"

namespace ckpt::engine::runtime {

AsyncExecutor::AsyncExecutor(size_t num_threads) {
  for (size_t i = 0; i < num_threads; ++i) threads_.emplace_back([this] { Loop(); });
}

AsyncExecutor::~AsyncExecutor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void AsyncExecutor::Submit(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
}

void AsyncExecutor::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
}

void AsyncExecutor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and nothing left
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    work();
    lock.lock();
    --running_;
    if (queue_.empty() && running_ == 0) idle_cv_.notify_all();
  }
}

}  // namespace ckpt::engine::runtime
