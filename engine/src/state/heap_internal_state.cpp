// HeapInternalState: value-like states are one table entry per (key, namespace); a map state's
// entry is an ordered map keyed by the user key's encoded bytes (encoded into the core's scratch
// buffer, so lookups do not allocate).
#include "state/heap_internal_state.h"

#include <string>
#include <utility>
#include <vector>

#include "ckpt/format/value_codec.h"

namespace ckpt::engine::state_internal {

// Value-like kinds -------------------------------------------------------------------------

const format::Value* HeapInternalState::Get() {
  const ValueTable* t = c_->ReadValues(id_);
  return t == nullptr ? nullptr : t->Find(c_->hash, c_->current_encoded_key, c_->current_ns);
}

base::Status HeapInternalState::Put(format::Value value) {
  ValueTable* t = c_->WriteValues(id_);
  if (t == nullptr) return c_->NotOwned();
  bool inserted = false;
  t->FindOrInsert(c_->hash, c_->current_encoded_key, c_->current_ns, &inserted) =
      std::move(value);
  return base::Status::OK();
}

base::Status HeapInternalState::Clear() {
  if (!c_->key_in_range) return c_->NotOwned();
  if (IsMap()) {
    if (LookupMap() == nullptr) return base::Status::OK();
    MapTable* t = c_->WriteMaps(id_);
    if (t != nullptr) t->Erase(c_->hash, c_->current_encoded_key, c_->current_ns);
    return base::Status::OK();
  }
  // Avoid a copy-on-write of a table that does not even hold the entry.
  if (Get() == nullptr) return base::Status::OK();
  c_->WriteValues(id_)->Erase(c_->hash, c_->current_encoded_key, c_->current_ns);
  return base::Status::OK();
}

base::Status HeapInternalState::AddToList(format::Value element) {
  ValueTable* t = c_->WriteValues(id_);
  if (t == nullptr) return c_->NotOwned();
  bool inserted = false;
  format::Value& v = t->FindOrInsert(c_->hash, c_->current_encoded_key, c_->current_ns, &inserted);
  if (inserted || !std::holds_alternative<format::List>(v.v)) v = format::List{};
  std::get<format::List>(v.v).elements.push_back(std::move(element));
  return base::Status::OK();
}

base::Status HeapInternalState::Fold(const format::Value& input) {
  ValueTable* t = c_->WriteValues(id_);
  if (t == nullptr) return c_->NotOwned();
  bool inserted = false;
  format::Value& v = t->FindOrInsert(c_->hash, c_->current_encoded_key, c_->current_ns, &inserted);
  const KeyedStateInfo& info = c_->states[id_];
  if (info.descriptor.kind() == pb::STATE_AGGREGATING) {
    if (inserted) v = info.aggregate.create_accumulator();
    info.aggregate.add(v, input);
  } else if (inserted) {
    v = input;
  } else {
    info.reduce(v, input);
  }
  return base::Status::OK();
}

base::Result<int64_t> HeapInternalState::AddInt64(int64_t delta) {
  ValueTable* t = c_->WriteValues(id_);
  if (t == nullptr) return c_->NotOwned();
  bool inserted = false;
  format::Value& v = t->FindOrInsert(c_->hash, c_->current_encoded_key, c_->current_ns, &inserted);
  // In place: the stored int64 changes, no Value is built, moved or destroyed.
  if (int64_t* stored = std::get_if<int64_t>(&v.v); stored != nullptr && !inserted) {
    *stored += delta;
    return *stored;
  }
  v.v = delta;
  return delta;
}

// MAP --------------------------------------------------------------------------------------

const UserMap* HeapInternalState::LookupMap() const {
  const MapTable* t = c_->ReadMaps(id_);
  return t == nullptr ? nullptr : t->Find(c_->hash, c_->current_encoded_key, c_->current_ns);
}

bool HeapInternalState::EncodeUserKey(const format::Value& user_key) {
  c_->scratch.clear();
  return format::EncodeValue(c_->states[id_].descriptor.user_key_type(), user_key, &c_->scratch)
      .ok();
}

const format::Value* HeapInternalState::MapGet(const format::Value& user_key) {
  const UserMap* m = LookupMap();
  if (m == nullptr || !EncodeUserKey(user_key)) return nullptr;
  auto it = m->find(std::string_view(c_->scratch));
  return it == m->end() ? nullptr : &it->second.second;
}

base::Status HeapInternalState::MapPut(const format::Value& user_key, format::Value value) {
  if (!c_->key_in_range) return c_->NotOwned();
  c_->scratch.clear();
  const pb::StateDescriptor& d = c_->states[id_].descriptor;
  base::Status st = format::EncodeValue(d.user_key_type(), user_key, &c_->scratch);
  if (!st.ok()) return st.WithContext(c_->owner + ": map state '" + d.name() + "' user key");
  MapTable* t = c_->WriteMaps(id_);
  if (t == nullptr) return c_->NotOwned();
  bool inserted = false;
  UserMap& m = t->FindOrInsert(c_->hash, c_->current_encoded_key, c_->current_ns, &inserted);
  auto it = m.find(std::string_view(c_->scratch));
  if (it != m.end()) {
    it->second.second = std::move(value);
  } else {
    m.emplace(c_->scratch, std::make_pair(user_key, std::move(value)));
  }
  return base::Status::OK();
}

base::Status HeapInternalState::MapRemove(const format::Value& user_key) {
  if (!c_->key_in_range) return c_->NotOwned();
  const UserMap* existing = LookupMap();
  if (existing == nullptr || !EncodeUserKey(user_key)) return base::Status::OK();
  if (existing->find(std::string_view(c_->scratch)) == existing->end()) {
    return base::Status::OK();
  }
  MapTable* t = c_->WriteMaps(id_);
  UserMap* m =
      t == nullptr ? nullptr : t->Find(c_->hash, c_->current_encoded_key, c_->current_ns);
  if (m == nullptr) return base::Status::OK();
  auto entry = m->find(std::string_view(c_->scratch));
  if (entry != m->end()) m->erase(entry);
  if (m->empty()) t->Erase(c_->hash, c_->current_encoded_key, c_->current_ns);
  return base::Status::OK();
}

size_t HeapInternalState::MapSize() {
  const UserMap* m = LookupMap();
  return m == nullptr ? 0 : m->size();
}

void HeapInternalState::MapForEach(
    const std::function<bool(const format::Value& user_key, const format::Value& value)>& fn) {
  const UserMap* m = LookupMap();
  if (m == nullptr) return;
  for (const auto& [encoded, kv] : *m) {
    if (!fn(kv.first, kv.second)) return;
  }
}

}  // namespace ckpt::engine::state_internal
