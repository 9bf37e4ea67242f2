// AggregatingState: an accumulator per (key, namespace) maintained with the registered
// AggregateFunction; Get returns its result. Cheap handle; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
class InternalKeyedState;
}  // namespace state_internal

class AggregatingState {
 public:
  AggregatingState() = default;
  // get_result(accumulator), or nullopt if nothing was added.
  std::optional<format::Value> Get() const;
  // The stored accumulator, or nullptr. Valid until the next write.
  const format::Value* GetAccumulator() const;
  // Adds `input` (creating the accumulator first). FailedPrecondition if the current key group
  // is not owned.
  base::Status Add(const format::Value& input);
  base::Status Clear();

 private:
  friend class KeyedStateBackend;
  explicit AggregatingState(state_internal::InternalKeyedState* state) : state_(state) {}
  state_internal::InternalKeyedState* state_ = nullptr;
};

}  // namespace ckpt::engine
