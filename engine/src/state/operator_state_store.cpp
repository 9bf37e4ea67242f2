// OperatorStateStore: declaration, registration, snapshot and restore of operator state.
#include "ckpt/engine/state/operator_state_store.h"

#include <utility>

#include "ckpt/engine/state/operator_state_snapshot.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "state/operator_store_core.h"

namespace ckpt::engine {

using state_internal::OperatorStoreCore;

namespace state_internal {

base::Result<uint32_t> OperatorStoreCore::Declare(const pb::StateDescriptor& descriptor,
                                                  bool registered) {
  const pb::StateKind kind = descriptor.kind();
  if (kind != pb::STATE_OPERATOR_LIST && kind != pb::STATE_OPERATOR_UNION &&
      kind != pb::STATE_BROADCAST) {
    return base::Status::InvalidArgument(owner + ": state '" + descriptor.name() +
                                         "' is not an operator state kind (" +
                                         pb::StateKind_Name(kind) + ")");
  }
  if (descriptor.name().empty()) {
    return base::Status::InvalidArgument(owner + ": operator state without a name");
  }
  for (const pb::TypeDescriptor* t : {&descriptor.value_type(), &descriptor.user_key_type()}) {
    if (t->kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
      if (t == &descriptor.user_key_type() && kind != pb::STATE_BROADCAST) continue;
      return base::Status::InvalidArgument(owner + ": state '" + descriptor.name() +
                                           "' lacks a type");
    }
    base::Status st = format::ValidateType(*t);
    if (!st.ok()) return st.WithContext(owner + ": state '" + descriptor.name() + "'");
  }
  auto it = by_name.find(descriptor.name());
  if (it != by_name.end()) {
    OperatorStateInfo& s = states[it->second];
    CKPT_RETURN_IF_ERROR_CTX(CheckStateCompatible(s.descriptor, descriptor), owner);
    if (registered) s.registered = true;
    return it->second;
  }
  OperatorStateInfo info;
  info.descriptor = descriptor;
  info.registered = registered;
  if (kind == pb::STATE_BROADCAST) {
    info.broadcast.table = state_internal::NewCowTable<BroadcastMap>();
  } else {
    info.list.table = state_internal::NewCowTable<ElementList>();
  }
  const uint32_t id = static_cast<uint32_t>(states.size());
  by_name.emplace(descriptor.name(), id);
  states.push_back(std::move(info));
  return id;
}

}  // namespace state_internal

OperatorStateStore::OperatorStateStore(std::string owner)
    : core_(std::make_unique<OperatorStoreCore>()) {
  core_->owner = std::move(owner);
}
OperatorStateStore::~OperatorStateStore() = default;

namespace {

base::Status ExpectKind(const pb::StateDescriptor& d, pb::StateKind want, const std::string& who) {
  if (d.kind() == want) return base::Status::OK();
  return base::Status::InvalidArgument(who + ": state '" + d.name() + "' is declared as " +
                                       pb::StateKind_Name(d.kind()) + ", expected " +
                                       pb::StateKind_Name(want));
}

}  // namespace

base::Result<OperatorListState> OperatorStateStore::GetListState(
    const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(ExpectKind(descriptor, pb::STATE_OPERATOR_LIST, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  return OperatorListState(core_.get(), id);
}

base::Result<OperatorListState> OperatorStateStore::GetUnionListState(
    const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(ExpectKind(descriptor, pb::STATE_OPERATOR_UNION, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  return OperatorListState(core_.get(), id);
}

base::Result<BroadcastState> OperatorStateStore::GetBroadcastState(
    const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(ExpectKind(descriptor, pb::STATE_BROADCAST, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  return BroadcastState(core_.get(), id);
}

std::unique_ptr<OperatorStateSnapshot> OperatorStateStore::Snapshot() {
  auto frozen = std::make_unique<state_internal::FrozenOperatorState>();
  for (auto& s : core_->states) {
    frozen->states.push_back(s.descriptor);
    frozen->lists.push_back(state_internal::ShareWithSnapshot(s.list));
    frozen->broadcasts.push_back(state_internal::ShareWithSnapshot(s.broadcast));
  }
  ++core_->cow.snapshots;
  return std::make_unique<OperatorStateSnapshot>(std::move(frozen));
}

base::Status OperatorStateStore::RestoreListState(const pb::StateDescriptor& descriptor,
                                                  std::vector<format::Value> elements) {
  if (descriptor.kind() == pb::STATE_BROADCAST) {
    return base::Status::InvalidArgument(core_->owner + ": '" + descriptor.name() +
                                         "' is broadcast state, not list state");
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, false));
  state_internal::ElementList* list = core_->WriteList(id);
  for (auto& e : elements) list->push_back(std::move(e));
  return base::Status::OK();
}

base::Status OperatorStateStore::RestoreBroadcastState(
    const pb::StateDescriptor& descriptor,
    std::vector<std::pair<format::Value, format::Value>> entries) {
  CKPT_RETURN_IF_ERROR(ExpectKind(descriptor, pb::STATE_BROADCAST, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, false));
  state_internal::BroadcastMap* map = core_->WriteBroadcast(id);
  for (auto& [k, v] : entries) {
    std::string encoded;
    CKPT_RETURN_IF_ERROR_CTX(format::EncodeValue(descriptor.user_key_type(), k, &encoded),
                             core_->owner + ": broadcast state '" + descriptor.name() + "'");
    map->insert_or_assign(std::move(encoded), std::make_pair(std::move(k), std::move(v)));
  }
  return base::Status::OK();
}

std::vector<std::string> OperatorStateStore::StateNames() const {
  std::vector<std::string> names;
  for (const auto& s : core_->states) names.push_back(s.descriptor.name());
  return names;
}

}  // namespace ckpt::engine
