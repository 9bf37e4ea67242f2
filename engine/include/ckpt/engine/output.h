// Output: where an operator emits records and watermarks. The runtime provides it: either the
// next operator of the chain (a direct call) or the task's record writer (serialization into
// network buffers, partitioning, backpressure). Used only from the owning task's thread.
#pragma once

#include <cstdint>

#include "ckpt/base/status.h"
#include "ckpt/engine/record.h"

namespace ckpt::engine {

class Output {
 public:
  virtual ~Output() = default;

  // Emits `record` downstream; the callee may move from it. May block while the task has no
  // free output buffer (backpressure). Returns the first error of a chained downstream
  // operator, or Cancelled when the task is being cancelled while waiting for a buffer.
  virtual base::Status Collect(Record& record) = 0;

  // Emits a watermark (event time has reached `watermark`). Operators normally forward the
  // watermark they receive; sources emit their own. Errors as Collect.
  virtual base::Status EmitWatermark(int64_t watermark) = 0;
};

}  // namespace ckpt::engine
