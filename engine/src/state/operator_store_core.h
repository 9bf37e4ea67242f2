// Private internals of OperatorStateStore shared by its handles and snapshots.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"
#include "state/cow_slot.h"

namespace ckpt::engine::state_internal {

using ElementList = std::vector<format::Value>;
// Broadcast map: encoded key -> (key, value), ordered by the encoded bytes.
using BroadcastMap = std::map<std::string, std::pair<format::Value, format::Value>, std::less<>>;

struct OperatorStateInfo {
  pb::StateDescriptor descriptor;
  bool registered = false;
  CowSlot<ElementList> list;       // OPERATOR_LIST, OPERATOR_UNION
  CowSlot<BroadcastMap> broadcast;  // BROADCAST
};

struct OperatorStoreCore {
  std::string owner;
  std::vector<OperatorStateInfo> states;
  std::map<std::string, uint32_t, std::less<>> by_name;
  std::string scratch;
  CowStats cow;

  base::Result<uint32_t> Declare(const pb::StateDescriptor& descriptor, bool registered);
  ElementList* WriteList(uint32_t id) {
    return MakeWritable(states[id].list, cow, [](const ElementList& l) { return l.size(); });
  }
  BroadcastMap* WriteBroadcast(uint32_t id) {
    return MakeWritable(states[id].broadcast, cow,
                        [](const BroadcastMap& m) { return m.size(); });
  }
};

struct FrozenOperatorState {
  std::vector<pb::StateDescriptor> states;
  std::vector<CowRef<ElementList>> lists;       // per state (null if broadcast)
  std::vector<CowRef<BroadcastMap>> broadcasts;  // per state (null if list)
};

}  // namespace ckpt::engine::state_internal
