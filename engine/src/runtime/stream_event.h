// StreamEvent: what travels through a result subpartition and an input channel — a network
// buffer of serialized elements, or an event. Events need no credit and no buffer. A priority
// event (an unaligned barrier) overtakes the buffers queued ahead of it, on the producer's
// subpartition and again on the consumer's channel; `overtaken_buffers` then counts the buffers
// of the consumer's queue it jumped (they precede it in the stream).
#pragma once

#include <cstdint>
#include <memory>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "network_buffer.h"

namespace ckpt::engine::runtime {

struct StreamEvent {
  enum class Kind : uint8_t {
    kBuffer,          // serialized records and watermarks
    kBarrier,         // checkpoint barrier
    kEndOfData,       // the upstream finished its input; it waits for a final checkpoint
    kEndOfPartition,  // the upstream subtask terminated; nothing follows
  };
  Kind kind = Kind::kBuffer;
  NetworkBuffer* buffer = nullptr;
  std::shared_ptr<const CheckpointOptions> barrier;
  bool priority = false;
  // Buffers of restored channel state take no credit.
  bool uses_credit = true;
  uint32_t overtaken_buffers = 0;
};

}  // namespace ckpt::engine::runtime
