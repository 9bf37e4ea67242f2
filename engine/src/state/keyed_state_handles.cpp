// ValueState, ListState, ReducingState and AggregatingState: one hash probe per access on the
// current (key, namespace) of the backend's current key-group table.
#include <utility>
#include <vector>

#include "ckpt/engine/state/aggregating_state.h"
#include "ckpt/engine/state/list_state.h"
#include "ckpt/engine/state/reducing_state.h"
#include "ckpt/engine/state/value_state.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::ValueTable;

namespace {

const format::Value* Lookup(const BackendCore* c, uint32_t id) {
  const ValueTable* t = c->ReadValues(id);
  return t == nullptr ? nullptr : t->Find(c->hash, c->current_encoded_key, c->current_ns);
}

base::Status Erase(BackendCore* c, uint32_t id) {
  if (!c->key_in_range) return c->NotOwned();
  // Avoid a copy-on-write of a table that does not even hold the entry.
  if (Lookup(c, id) == nullptr) return base::Status::OK();
  c->WriteValues(id)->Erase(c->hash, c->current_encoded_key, c->current_ns);
  return base::Status::OK();
}

}  // namespace

// ValueState ---------------------------------------------------------------------------------

const format::Value* ValueState::Get() const { return Lookup(core_, id_); }

base::Status ValueState::Update(format::Value value) {
  ValueTable* t = core_->WriteValues(id_);
  if (t == nullptr) return core_->NotOwned();
  bool inserted = false;
  t->FindOrInsert(core_->hash, core_->current_encoded_key, core_->current_ns, &inserted) =
      std::move(value);
  return base::Status::OK();
}

base::Status ValueState::Clear() { return Erase(core_, id_); }

// ListState ----------------------------------------------------------------------------------

const std::vector<format::Value>* ListState::Get() const {
  const format::Value* v = Lookup(core_, id_);
  if (v == nullptr) return nullptr;
  const auto* list = std::get_if<format::List>(&v->v);
  return list == nullptr ? nullptr : &list->elements;
}

base::Status ListState::Add(format::Value element) {
  ValueTable* t = core_->WriteValues(id_);
  if (t == nullptr) return core_->NotOwned();
  bool inserted = false;
  format::Value& v =
      t->FindOrInsert(core_->hash, core_->current_encoded_key, core_->current_ns, &inserted);
  if (inserted || !std::holds_alternative<format::List>(v.v)) v = format::List{};
  std::get<format::List>(v.v).elements.push_back(std::move(element));
  return base::Status::OK();
}

base::Status ListState::Update(std::vector<format::Value> elements) {
  if (elements.empty()) return Clear();
  ValueTable* t = core_->WriteValues(id_);
  if (t == nullptr) return core_->NotOwned();
  bool inserted = false;
  t->FindOrInsert(core_->hash, core_->current_encoded_key, core_->current_ns, &inserted) =
      format::List{std::move(elements)};
  return base::Status::OK();
}

base::Status ListState::Clear() { return Erase(core_, id_); }

// ReducingState ------------------------------------------------------------------------------

const format::Value* ReducingState::Get() const { return Lookup(core_, id_); }

base::Status ReducingState::Add(const format::Value& input) {
  ValueTable* t = core_->WriteValues(id_);
  if (t == nullptr) return core_->NotOwned();
  bool inserted = false;
  format::Value& v =
      t->FindOrInsert(core_->hash, core_->current_encoded_key, core_->current_ns, &inserted);
  if (inserted) {
    v = input;
  } else {
    core_->states[id_].reduce(v, input);
  }
  return base::Status::OK();
}

base::Status ReducingState::Clear() { return Erase(core_, id_); }

// AggregatingState ---------------------------------------------------------------------------

std::optional<format::Value> AggregatingState::Get() const {
  const format::Value* acc = Lookup(core_, id_);
  if (acc == nullptr) return std::nullopt;
  return core_->states[id_].aggregate.get_result(*acc);
}

const format::Value* AggregatingState::GetAccumulator() const { return Lookup(core_, id_); }

base::Status AggregatingState::Add(const format::Value& input) {
  ValueTable* t = core_->WriteValues(id_);
  if (t == nullptr) return core_->NotOwned();
  bool inserted = false;
  format::Value& acc =
      t->FindOrInsert(core_->hash, core_->current_encoded_key, core_->current_ns, &inserted);
  const AggregateFunction& f = core_->states[id_].aggregate;
  if (inserted) acc = f.create_accumulator();
  f.add(acc, input);
  return base::Status::OK();
}

base::Status AggregatingState::Clear() { return Erase(core_, id_); }

}  // namespace ckpt::engine
