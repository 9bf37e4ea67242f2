// OperatorStateStore: the operator (non-keyed) state of one operator subtask — split list state,
// union list state and broadcast state — with the same copy-on-write snapshots as the keyed
// backend, at the granularity of one state: Snapshot() takes references only; the first write
// to a state a snapshot still holds copies that state. Not thread-safe (the subtask's thread);
// snapshots are immutable and readable from any thread.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/state/broadcast_state.h"
#include "ckpt/engine/state/operator_list_state.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

class OperatorStateSnapshot;
namespace state_internal {
struct OperatorStoreCore;
}  // namespace state_internal

class OperatorStateStore {
 public:
  // `owner` (e.g. "sequence-source (1/4)") is used in error messages.
  explicit OperatorStateStore(std::string owner);
  ~OperatorStateStore();
  OperatorStateStore(const OperatorStateStore&) = delete;
  OperatorStateStore& operator=(const OperatorStateStore&) = delete;

  // Registration by name (idempotent; a restored state is adopted if compatible).
  // InvalidArgument if the descriptor's kind does not match the call; FailedPrecondition if the
  // name exists with another declaration.
  base::Result<OperatorListState> GetListState(const pb::StateDescriptor& descriptor);
  base::Result<OperatorListState> GetUnionListState(const pb::StateDescriptor& descriptor);
  base::Result<BroadcastState> GetBroadcastState(const pb::StateDescriptor& descriptor);

  // Synchronous snapshot phase: freezes every state without copying it. Never fails.
  std::unique_ptr<OperatorStateSnapshot> Snapshot();

  // Restore (before the operator registers): the elements this subtask receives of a list or
  // union state, or the entries of a broadcast state. FailedPrecondition if the name is already
  // declared differently.
  base::Status RestoreListState(const pb::StateDescriptor& descriptor,
                                std::vector<format::Value> elements);
  base::Status RestoreBroadcastState(
      const pb::StateDescriptor& descriptor,
      std::vector<std::pair<format::Value, format::Value>> entries);

  // Names of all declared states (registered or restored), in declaration order.
  std::vector<std::string> StateNames() const;

 private:
  std::unique_ptr<state_internal::OperatorStoreCore> core_;
};

}  // namespace ckpt::engine
