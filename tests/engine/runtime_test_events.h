// Events the runtime tests put on channels: a checkpoint barrier with only its ID set.
#pragma once

#include <cstdint>
#include <memory>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "runtime/stream_event.h"

namespace ckpt::engine::runtime {

// A barrier of checkpoint `id` (its other options default).
inline StreamEvent TestBarrierEvent(int64_t id) {
  StreamEvent e;
  e.kind = StreamEvent::Kind::kBarrier;
  auto o = std::make_shared<CheckpointOptions>();
  o->checkpoint_id = id;
  e.barrier = o;
  return e;
}

}  // namespace ckpt::engine::runtime
