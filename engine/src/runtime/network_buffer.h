// Network buffers: fixed-size byte buffers from a bounded pool owned by the producing task.
// A buffer travels through the producer's result subpartition to the consumer's input channel
// and returns to its pool when its last reference is released (the consumer after reading it). A task that produces faster than its consumers run out of buffers and waits
// for one before its next record (backpressure). When one record needs more buffers than are
// free, the pool lends up to `max_overdraft` buffers beyond its size (FLIP-227); while any are
// lent the pool reports itself unavailable, so the task starts no other record.
// BufferPool is thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::engine::runtime {

class BufferPool;

struct NetworkBuffer {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  size_t capacity = 0;
  // Null for an unpooled buffer (restored channel state): deleted on its last release.
  BufferPool* pool = nullptr;
  bool overdraft = false;
  std::atomic<uint32_t> refs{0};

  size_t free_bytes() const { return capacity - size; }
  std::string_view bytes() const { return {data.get(), size}; }
};

// An unpooled buffer holding a copy of `bytes` (one reference).
NetworkBuffer* NewUnpooledBuffer(std::string_view bytes);
// Adds a reference (a captured buffer stays readable after the consumer released it).
void RetainBuffer(NetworkBuffer* buffer);
// Drops one reference; the last one returns the buffer to its pool (or deletes it).
void ReleaseBuffer(NetworkBuffer* buffer);

class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  // Default buffer size: 32 KiB, as Flink's memory segment.
  static constexpr size_t kDefaultBufferBytes = 32 * 1024;
  // Flink's taskmanager.network.memory.max-overdraft-buffers-per-gate.
  static constexpr uint32_t kDefaultMaxOverdraft = 5;

  BufferPool(size_t num_buffers, size_t buffer_bytes, uint32_t max_overdraft = 0);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Takes a free buffer (size reset to 0, one reference), waiting while none is free.
  // Cancelled once Cancel() was called. The last resort of a record that exhausted the
  // overdraft too.
  base::Result<NetworkBuffer*> Request();
  // A free buffer or null, without waiting.
  NetworkBuffer* TryRequest();
  // A lent buffer beyond the pool's size, or null when `max_overdraft` are already lent.
  NetworkBuffer* TryRequestOverdraft();
  // Drops one reference of a buffer of this pool (any thread); same as ReleaseBuffer.
  void Recycle(NetworkBuffer* buffer);
  // Wakes and fails all waiting and future Request calls.
  void Cancel();
  // Called (without the pool's lock) whenever a buffer comes back: the owning task waits on
  // availability and is woken through it.
  void SetAvailabilityListener(std::function<void()> listener);

  size_t num_buffers() const { return buffers_.size(); }
  size_t buffer_bytes() const { return buffer_bytes_; }
  uint32_t max_overdraft() const { return max_overdraft_; }
  size_t NumAvailable() const;
  uint32_t NumOverdraftInUse() const;
  // A free buffer and no overdraft lent: the task may start a record.
  bool IsAvailable() const;
  // Callers inside Request() now (waiting for a buffer): for tests that wait on "blocked".
  size_t NumWaiting() const;

 private:
  friend void ReleaseBuffer(NetworkBuffer* buffer);
  void ReturnLastReference(NetworkBuffer* buffer);
  void UpdateAvailableLocked() {
    available_.store(!free_.empty() && overdraft_in_use_ == 0, std::memory_order_relaxed);
  }

  const size_t buffer_bytes_;
  const uint32_t max_overdraft_;
  std::vector<std::unique_ptr<NetworkBuffer>> buffers_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<NetworkBuffer*> free_;
  uint32_t overdraft_in_use_ = 0;
  // IsAvailable without the lock (a source asks before every record); written under mu_.
  std::atomic<bool> available_{false};
  bool cancelled_ = false;
  size_t waiting_ = 0;
  std::function<void()> listener_;
};

// A buffer captured by an unaligned checkpoint: its bytes, copied at capture so that the buffer
// returns to its pool as soon as its consumer is done with it. (Holding the reference until the
// channel state is written deadlocks under backpressure: the capture waits for the barriers of
// other channels, whose producers wait for the very buffers it holds.)
class CapturedBuffer {
 public:
  CapturedBuffer() = default;
  explicit CapturedBuffer(const NetworkBuffer* buffer) : bytes_(buffer->bytes()) {}

  std::string_view bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace ckpt::engine::runtime
