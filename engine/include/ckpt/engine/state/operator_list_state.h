// OperatorListState: a list of elements of one operator subtask (non-keyed). As SPLIT state
// (STATE_OPERATOR_LIST) its elements are dealt round-robin over the new subtasks on a rescale;
// as UNION state (STATE_OPERATOR_UNION) every subtask receives all elements. Cheap handle, valid
// as long as its OperatorStateStore. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
struct OperatorStoreCore;
}  // namespace state_internal

class OperatorListState {
 public:
  OperatorListState() = default;
  // The elements (empty if none). Valid until the next write.
  const std::vector<format::Value>& Get() const;
  void Add(format::Value element);
  void Update(std::vector<format::Value> elements);
  void Clear();

 private:
  friend class OperatorStateStore;
  OperatorListState(state_internal::OperatorStoreCore* core, uint32_t id) : core_(core), id_(id) {}
  state_internal::OperatorStoreCore* core_ = nullptr;
  uint32_t id_ = 0;
};

}  // namespace ckpt::engine
