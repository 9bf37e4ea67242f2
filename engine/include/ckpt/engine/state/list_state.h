// ListState: a list of elements per (key, namespace) of a KeyedStateBackend. Cheap handle, valid
// as long as its backend; acts on the current key and namespace. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
class InternalKeyedState;
}  // namespace state_internal

class ListState {
 public:
  ListState() = default;
  // The elements, or nullptr if the list is empty/absent. Valid until the next write.
  const std::vector<format::Value>* Get() const;
  // Appends one element. FailedPrecondition if the current key group is not owned.
  base::Status Add(format::Value element);
  // Replaces the list (an empty vector removes it).
  base::Status Update(std::vector<format::Value> elements);
  base::Status Clear();

 private:
  friend class KeyedStateBackend;
  explicit ListState(state_internal::InternalKeyedState* state) : state_(state) {}
  state_internal::InternalKeyedState* state_ = nullptr;
};

}  // namespace ckpt::engine
