// Network buffers: fixed-size byte buffers from a bounded pool owned by the producing task.
// A buffer travels to the consumer's inbox and returns to its pool when consumed, so a task that
// produces faster than its consumers run out of buffers and blocks (backpressure).
// BufferPool is thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::engine::runtime {

class BufferPool;

struct NetworkBuffer {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  size_t capacity = 0;
  BufferPool* pool = nullptr;

  size_t free_bytes() const { return capacity - size; }
};

class BufferPool {
 public:
  // Default buffer size: 32 KiB, as Flink's memory segment.
  static constexpr size_t kDefaultBufferBytes = 32 * 1024;

  BufferPool(size_t num_buffers, size_t buffer_bytes);
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Takes a free buffer (size reset to 0), waiting while none is free. Cancelled once Cancel()
  // was called.
  base::Result<NetworkBuffer*> Request();
  // A free buffer or null, without waiting.
  NetworkBuffer* TryRequest();
  // Returns a consumed buffer (any thread).
  void Recycle(NetworkBuffer* buffer);
  // Wakes and fails all waiting and future Request calls.
  void Cancel();

  size_t num_buffers() const { return buffers_.size(); }
  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t NumAvailable() const;
  // Callers inside Request() now (waiting for a buffer): for tests that wait on "blocked".
  size_t NumWaiting() const;

 private:
  const size_t buffer_bytes_;
  std::vector<std::unique_ptr<NetworkBuffer>> buffers_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<NetworkBuffer*> free_;
  bool cancelled_ = false;
  size_t waiting_ = 0;
};

}  // namespace ckpt::engine::runtime
