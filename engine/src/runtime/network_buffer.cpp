#include "network_buffer.h"

namespace ckpt::engine::runtime {

BufferPool::BufferPool(size_t num_buffers, size_t buffer_bytes) : buffer_bytes_(buffer_bytes) {
  buffers_.reserve(num_buffers);
  free_.reserve(num_buffers);
  for (size_t i = 0; i < num_buffers; ++i) {
    auto b = std::make_unique<NetworkBuffer>();
    b->data = std::make_unique<char[]>(buffer_bytes);
    b->capacity = buffer_bytes;
    b->pool = this;
    free_.push_back(b.get());
    buffers_.push_back(std::move(b));
  }
}

base::Result<NetworkBuffer*> BufferPool::Request() {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiting_;
  cv_.wait(lock, [&] { return cancelled_ || !free_.empty(); });
  --waiting_;
  if (cancelled_) return base::Status::Cancelled("task cancelled while waiting for a buffer");
  NetworkBuffer* b = free_.back();
  free_.pop_back();
  b->size = 0;
  return b;
}

size_t BufferPool::NumWaiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

NetworkBuffer* BufferPool::TryRequest() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_ || free_.empty()) return nullptr;
  NetworkBuffer* b = free_.back();
  free_.pop_back();
  b->size = 0;
  return b;
}

void BufferPool::Recycle(NetworkBuffer* buffer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(buffer);
  }
  cv_.notify_one();
}

void BufferPool::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

size_t BufferPool::NumAvailable() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

}  // namespace ckpt::engine::runtime
