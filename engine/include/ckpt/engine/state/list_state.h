// ListState: a list of elements per (key, namespace) of a KeyedStateBackend. Cheap handle, valid
// as long as its backend; acts on the current key and namespace. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
struct BackendCore;
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
  ListState(state_internal::BackendCore* core, uint32_t id) : core_(core), id_(id) {}
  state_internal::BackendCore* core_ = nullptr;
  uint32_t id_ = 0;
};

}  // namespace ckpt::engine
