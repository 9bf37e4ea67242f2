// OperatorStateSnapshot: the frozen contents of an OperatorStateStore, taken in the synchronous
// phase. Immutable; readable from any thread while the store keeps changing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"

namespace ckpt::engine {

namespace state_internal {
struct FrozenOperatorState;
}  // namespace state_internal

class OperatorStateSnapshot {
 public:
  explicit OperatorStateSnapshot(std::unique_ptr<state_internal::FrozenOperatorState> frozen);
  ~OperatorStateSnapshot();

  // Declared states in declaration order (the section id of a state is its index here).
  const std::vector<pb::StateDescriptor>& states() const;
  // Number of entries of state `state_index`.
  uint64_t NumEntries(uint32_t state_index) const;

  // Calls `emit` for each entry of state `state_index` in order (list: element order; broadcast:
  // key byte order), encoded with the declared types (key empty for list states). Views valid
  // during the call only. InvalidArgument naming the state if a value does not match its type.
  base::Status ForEachRecord(
      uint32_t state_index,
      const std::function<base::Status(const format::OperatorRecord&)>& emit) const;

 private:
  std::unique_ptr<state_internal::FrozenOperatorState> frozen_;
};

}  // namespace ckpt::engine
