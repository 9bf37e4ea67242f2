// ValueState: one value per (key, namespace) of a KeyedStateBackend. A cheap handle (copyable,
// valid as long as its backend); acts on the backend's current key and namespace. Not
// thread-safe (the backend's thread only).
#pragma once

#include <cstdint>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
class InternalKeyedState;
}  // namespace state_internal

class ValueState {
 public:
  ValueState() = default;
  // The value of the current key and namespace, or nullptr if none (or the current key group is
  // not owned). The pointer is valid until the next write to this backend.
  const format::Value* Get() const;
  // Sets the value. FailedPrecondition if the current key group is not owned by the backend.
  base::Status Update(format::Value value);
  // Removes the value (no-op if absent).
  base::Status Clear();
  // For an INT64 value: adds `delta` to the stored int64 (stores `delta` when none is stored)
  // and returns the new value, in one lookup where the backend allows (a running sum or count
  // without a Get and an Update). FailedPrecondition if the current key group is not owned.
  base::Result<int64_t> AddInt64(int64_t delta);

 private:
  friend class KeyedStateBackend;
  explicit ValueState(state_internal::InternalKeyedState* state) : state_(state) {}
  state_internal::InternalKeyedState* state_ = nullptr;
};

}  // namespace ckpt::engine
