// ReducingState: a value per (key, namespace) that inputs are folded into with the registered
// ReduceFunction (the first input is stored as is). Cheap handle; not thread-safe.
#pragma once

#include <cstdint>

#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
class InternalKeyedState;
}  // namespace state_internal

class ReducingState {
 public:
  ReducingState() = default;
  // The reduced value, or nullptr if nothing was added. Valid until the next write.
  const format::Value* Get() const;
  // Folds `input` in. FailedPrecondition if the current key group is not owned.
  base::Status Add(const format::Value& input);
  base::Status Clear();

 private:
  friend class KeyedStateBackend;
  explicit ReducingState(state_internal::InternalKeyedState* state) : state_(state) {}
  state_internal::InternalKeyedState* state_ = nullptr;
};

}  // namespace ckpt::engine
