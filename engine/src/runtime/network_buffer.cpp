#include "network_buffer.h"

#include <cstring>

namespace ckpt::engine::runtime {

NetworkBuffer* NewUnpooledBuffer(std::string_view bytes) {
  auto* b = new NetworkBuffer();
  b->data = std::make_unique<char[]>(bytes.size() == 0 ? 1 : bytes.size());
  if (!bytes.empty()) std::memcpy(b->data.get(), bytes.data(), bytes.size());
  b->size = bytes.size();
  b->capacity = bytes.size();
  b->refs.store(1);
  return b;
}

void RetainBuffer(NetworkBuffer* buffer) { buffer->refs.fetch_add(1); }

void ReleaseBuffer(NetworkBuffer* buffer) {
  if (buffer->refs.fetch_sub(1) != 1) return;
  if (buffer->pool == nullptr) {
    delete buffer;
    return;
  }
  buffer->pool->ReturnLastReference(buffer);
}

BufferPool::BufferPool(size_t num_buffers, size_t buffer_bytes, uint32_t max_overdraft)
    : buffer_bytes_(buffer_bytes), max_overdraft_(max_overdraft) {
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
  UpdateAvailableLocked();
}

BufferPool::~BufferPool() = default;

base::Result<NetworkBuffer*> BufferPool::Request() {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiting_;
  cv_.wait(lock, [&] { return cancelled_ || !free_.empty(); });
  --waiting_;
  if (cancelled_) return base::Status::Cancelled("task cancelled while waiting for a buffer");
  NetworkBuffer* b = free_.back();
  free_.pop_back();
  UpdateAvailableLocked();
  b->size = 0;
  b->refs.store(1);
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
  UpdateAvailableLocked();
  b->size = 0;
  b->refs.store(1);
  return b;
}

NetworkBuffer* BufferPool::TryRequestOverdraft() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_ || overdraft_in_use_ >= max_overdraft_) return nullptr;
    ++overdraft_in_use_;
    UpdateAvailableLocked();
  }
  auto* b = new NetworkBuffer();
  b->data = std::make_unique<char[]>(buffer_bytes_);
  b->capacity = buffer_bytes_;
  b->pool = this;
  b->overdraft = true;
  b->refs.store(1);
  return b;
}

void BufferPool::Recycle(NetworkBuffer* buffer) { ReleaseBuffer(buffer); }

void BufferPool::ReturnLastReference(NetworkBuffer* buffer) {
  std::function<void()> listener;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (buffer->overdraft) {
      --overdraft_in_use_;
      delete buffer;
    } else {
      free_.push_back(buffer);
    }
    UpdateAvailableLocked();
    listener = listener_;
  }
  cv_.notify_one();
  if (listener) listener();
}

void BufferPool::SetAvailabilityListener(std::function<void()> listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
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

uint32_t BufferPool::NumOverdraftInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return overdraft_in_use_;
}

bool BufferPool::IsAvailable() const { return available_.load(std::memory_order_relaxed); }

}  // namespace ckpt::engine::runtime
