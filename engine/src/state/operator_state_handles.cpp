// OperatorListState and BroadcastState handles (copy-on-write per state).
#include <string>
#include <utility>

#include "ckpt/engine/state/broadcast_state.h"
#include "ckpt/engine/state/operator_list_state.h"
#include "ckpt/format/value_codec.h"
#include "state/operator_store_core.h"

namespace ckpt::engine {

const std::vector<format::Value>& OperatorListState::Get() const {
  return *core_->states[id_].list.table;
}
void OperatorListState::Add(format::Value element) {
  core_->WriteList(id_)->push_back(std::move(element));
}
void OperatorListState::Update(std::vector<format::Value> elements) {
  *core_->WriteList(id_) = std::move(elements);
}
void OperatorListState::Clear() {
  if (!Get().empty()) core_->WriteList(id_)->clear();
}

namespace {

bool Encode(state_internal::OperatorStoreCore* c, uint32_t id, const format::Value& key) {
  c->scratch.clear();
  return format::EncodeValue(c->states[id].descriptor.user_key_type(), key, &c->scratch).ok();
}

}  // namespace

const format::Value* BroadcastState::Get(const format::Value& key) const {
  if (!Encode(core_, id_, key)) return nullptr;
  const auto& m = *core_->states[id_].broadcast.table;
  auto it = m.find(std::string_view(core_->scratch));
  return it == m.end() ? nullptr : &it->second.second;
}

base::Status BroadcastState::Put(const format::Value& key, format::Value value) {
  core_->scratch.clear();
  const pb::StateDescriptor& d = core_->states[id_].descriptor;
  base::Status st = format::EncodeValue(d.user_key_type(), key, &core_->scratch);
  if (!st.ok()) return st.WithContext(core_->owner + ": broadcast state '" + d.name() + "' key");
  core_->WriteBroadcast(id_)->insert_or_assign(core_->scratch,
                                               std::make_pair(key, std::move(value)));
  return base::Status::OK();
}

void BroadcastState::Remove(const format::Value& key) {
  if (!Encode(core_, id_, key)) return;
  const auto& m = *core_->states[id_].broadcast.table;
  if (m.find(std::string_view(core_->scratch)) == m.end()) return;
  auto* w = core_->WriteBroadcast(id_);
  auto it = w->find(std::string_view(core_->scratch));
  if (it != w->end()) w->erase(it);
}

void BroadcastState::Clear() {
  if (Size() != 0) core_->WriteBroadcast(id_)->clear();
}

size_t BroadcastState::Size() const { return core_->states[id_].broadcast.table->size(); }

void BroadcastState::ForEach(const std::function<bool(const format::Value& key,
                                                      const format::Value& value)>& fn) const {
  for (const auto& [encoded, kv] : *core_->states[id_].broadcast.table) {
    if (!fn(kv.first, kv.second)) return;
  }
}

}  // namespace ckpt::engine
