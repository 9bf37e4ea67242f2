// MapState: a per-(key, namespace) ordered map keyed by the user key's encoded bytes; the
// encoding uses the backend's scratch buffer, so lookups do not allocate.
#include "ckpt/engine/state/map_state.h"

#include <string>
#include <utility>

#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::MapTable;
using state_internal::UserMap;

namespace {

const UserMap* LookupMap(const state_internal::BackendCore* c, uint32_t id) {
  const MapTable* t = c->ReadMaps(id);
  return t == nullptr ? nullptr : t->Find(c->hash, c->current_encoded_key, c->current_ns);
}

// Encodes `user_key` into the scratch buffer; false if it does not match the declared type.
bool EncodeUserKey(state_internal::BackendCore* c, uint32_t id, const format::Value& user_key) {
  c->scratch.clear();
  return format::EncodeValue(c->states[id].descriptor.user_key_type(), user_key, &c->scratch)
      .ok();
}

}  // namespace

const format::Value* MapState::Get(const format::Value& user_key) const {
  const UserMap* m = LookupMap(core_, id_);
  if (m == nullptr || !EncodeUserKey(core_, id_, user_key)) return nullptr;
  auto it = m->find(std::string_view(core_->scratch));
  return it == m->end() ? nullptr : &it->second.second;
}

bool MapState::Contains(const format::Value& user_key) const { return Get(user_key) != nullptr; }

base::Status MapState::Put(const format::Value& user_key, format::Value value) {
  if (!core_->key_in_range) return core_->NotOwned();
  core_->scratch.clear();
  const pb::StateDescriptor& d = core_->states[id_].descriptor;
  base::Status st = format::EncodeValue(d.user_key_type(), user_key, &core_->scratch);
  if (!st.ok()) return st.WithContext(core_->owner + ": map state '" + d.name() + "' user key");
  MapTable* t = core_->WriteMaps(id_);
  if (t == nullptr) return core_->NotOwned();
  bool inserted = false;
  UserMap& m = t->FindOrInsert(core_->hash, core_->current_encoded_key, core_->current_ns,
                               &inserted);
  auto it = m.find(std::string_view(core_->scratch));
  if (it != m.end()) {
    it->second.second = std::move(value);
  } else {
    m.emplace(core_->scratch, std::make_pair(user_key, std::move(value)));
  }
  return base::Status::OK();
}

base::Status MapState::Remove(const format::Value& user_key) {
  if (!core_->key_in_range) return core_->NotOwned();
  const UserMap* existing = LookupMap(core_, id_);
  if (existing == nullptr || !EncodeUserKey(core_, id_, user_key)) return base::Status::OK();
  if (existing->find(std::string_view(core_->scratch)) == existing->end()) {
    return base::Status::OK();
  }
  MapTable* t = core_->WriteMaps(id_);
  UserMap* m = t == nullptr ? nullptr
                            : t->Find(core_->hash, core_->current_encoded_key, core_->current_ns);
  if (m == nullptr) return base::Status::OK();
  auto entry = m->find(std::string_view(core_->scratch));
  if (entry != m->end()) m->erase(entry);
  if (m->empty()) t->Erase(core_->hash, core_->current_encoded_key, core_->current_ns);
  return base::Status::OK();
}

base::Status MapState::Clear() {
  if (!core_->key_in_range) return core_->NotOwned();
  if (LookupMap(core_, id_) == nullptr) return base::Status::OK();
  MapTable* t = core_->WriteMaps(id_);
  if (t != nullptr) t->Erase(core_->hash, core_->current_encoded_key, core_->current_ns);
  return base::Status::OK();
}

bool MapState::IsEmpty() const { return Size() == 0; }

size_t MapState::Size() const {
  const UserMap* m = LookupMap(core_, id_);
  return m == nullptr ? 0 : m->size();
}

void MapState::ForEach(const std::function<bool(const format::Value& user_key,
                                                const format::Value& value)>& fn) const {
  const UserMap* m = LookupMap(core_, id_);
  if (m == nullptr) return;
  for (const auto& [encoded, kv] : *m) {
    if (!fn(kv.first, kv.second)) return;
  }
}

}  // namespace ckpt::engine
