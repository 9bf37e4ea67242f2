// The keyed state handles: thin forwarding to the backend's per-state internals.
#include <optional>
#include <utility>
#include <vector>

#include "ckpt/engine/state/aggregating_state.h"
#include "ckpt/engine/state/internal_keyed_state.h"
#include "ckpt/engine/state/list_state.h"
#include "ckpt/engine/state/map_state.h"
#include "ckpt/engine/state/reducing_state.h"
#include "ckpt/engine/state/value_state.h"

namespace ckpt::engine {

// ValueState ---------------------------------------------------------------------------------

const format::Value* ValueState::Get() const { return state_->Get(); }
base::Status ValueState::Update(format::Value value) { return state_->Put(std::move(value)); }
base::Status ValueState::Clear() { return state_->Clear(); }
base::Result<int64_t> ValueState::AddInt64(int64_t delta) { return state_->AddInt64(delta); }

// ListState ----------------------------------------------------------------------------------

const std::vector<format::Value>* ListState::Get() const {
  const format::Value* v = state_->Get();
  if (v == nullptr) return nullptr;
  const auto* list = std::get_if<format::List>(&v->v);
  return list == nullptr ? nullptr : &list->elements;
}

base::Status ListState::Add(format::Value element) { return state_->AddToList(std::move(element)); }

base::Status ListState::Update(std::vector<format::Value> elements) {
  if (elements.empty()) return Clear();
  return state_->Put(format::List{std::move(elements)});
}

base::Status ListState::Clear() { return state_->Clear(); }

// ReducingState ------------------------------------------------------------------------------

const format::Value* ReducingState::Get() const { return state_->Get(); }
base::Status ReducingState::Add(const format::Value& input) { return state_->Fold(input); }
base::Status ReducingState::Clear() { return state_->Clear(); }

// AggregatingState ---------------------------------------------------------------------------

std::optional<format::Value> AggregatingState::Get() const {
  const format::Value* acc = state_->Get();
  if (acc == nullptr) return std::nullopt;
  return state_->aggregate().get_result(*acc);
}

const format::Value* AggregatingState::GetAccumulator() const { return state_->Get(); }
base::Status AggregatingState::Add(const format::Value& input) { return state_->Fold(input); }
base::Status AggregatingState::Clear() { return state_->Clear(); }

// MapState -----------------------------------------------------------------------------------

const format::Value* MapState::Get(const format::Value& user_key) const {
  return state_->MapGet(user_key);
}
bool MapState::Contains(const format::Value& user_key) const { return Get(user_key) != nullptr; }
base::Status MapState::Put(const format::Value& user_key, format::Value value) {
  return state_->MapPut(user_key, std::move(value));
}
base::Status MapState::Remove(const format::Value& user_key) { return state_->MapRemove(user_key); }
base::Status MapState::Clear() { return state_->Clear(); }
bool MapState::IsEmpty() const { return Size() == 0; }
size_t MapState::Size() const { return state_->MapSize(); }
void MapState::ForEach(const std::function<bool(const format::Value& user_key,
                                                const format::Value& value)>& fn) const {
  state_->MapForEach(fn);
}

}  // namespace ckpt::engine
