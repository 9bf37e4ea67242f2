// KeyedStateSnapshot: encodes the frozen tables of one key group into KeyedRecords, in
// canonical order, on the async snapshot thread.
#include "ckpt/engine/state/keyed_state_snapshot.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::FrozenKeyedState;
using state_internal::TimerEntry;

KeyedStateSnapshot::KeyedStateSnapshot(std::unique_ptr<FrozenKeyedState> frozen)
    : frozen_(std::move(frozen)) {}
KeyedStateSnapshot::~KeyedStateSnapshot() = default;

const std::vector<pb::StateDescriptor>& KeyedStateSnapshot::states() const {
  return frozen_->states;
}
uint32_t KeyedStateSnapshot::max_parallelism() const { return frozen_->max_parallelism; }
format::KeyGroupRange KeyedStateSnapshot::key_group_range() const { return frozen_->range; }
uint64_t KeyedStateSnapshot::NumEntries() const { return frozen_->num_entries; }

namespace {

void BuildTimerIndex(const FrozenKeyedState& f) {
  f.timers_by_group.resize(f.states.size());
  for (size_t i = 0; i < f.states.size(); ++i) {
    if (!f.timers[i]) continue;
    auto& by_group = f.timers_by_group[i];
    by_group.resize(f.range.size());
    for (const TimerEntry& t : *f.timers[i]) {
      if (!f.range.Contains(t.key_group)) continue;
      by_group[t.key_group - f.range.start].push_back(&t);
    }
    for (auto& v : by_group) {
      std::sort(v.begin(), v.end(), [](const TimerEntry* a, const TimerEntry* b) {
        if (a->key != b->key) return a->key < b->key;
        if (a->ns != b->ns) return a->ns < b->ns;
        return a->timestamp < b->timestamp;
      });
    }
  }
}

base::Status EncodeOrExplain(const pb::StateDescriptor& d, const pb::TypeDescriptor& type,
                             const format::Value& value, std::string* out) {
  out->clear();
  base::Status st = format::EncodeValue(type, value, out);
  if (!st.ok()) {
    return base::Status::InvalidArgument("state '" + d.name() + "': value does not match its " +
                                         "declared type " + format::TypeName(type) + ": " +
                                         st.message());
  }
  return base::Status::OK();
}

}  // namespace

base::Status KeyedStateSnapshot::ForEachRecord(
    uint32_t key_group,
    const std::function<base::Status(const format::KeyedRecord&)>& emit) const {
  const FrozenKeyedState& f = *frozen_;
  if (!f.range.Contains(key_group)) {
    return base::Status::InvalidArgument("key group " + std::to_string(key_group) +
                                         " is not in the snapshot's range");
  }
  const size_t g = key_group - f.range.start;
  std::call_once(f.timer_index_once, [&] { BuildTimerIndex(f); });
  std::string value_buf;
  std::string user_key_buf;
  for (size_t i = 0; i < f.states.size(); ++i) {
    const pb::StateDescriptor& d = f.states[i];
    format::KeyedRecord rec;
    rec.state_index = static_cast<uint32_t>(i);
    if (d.kind() == pb::STATE_TIMERS) {
      if (f.timers_by_group[i].empty()) continue;
      for (const TimerEntry* t : f.timers_by_group[i][g]) {
        user_key_buf.clear();
        CKPT_RETURN_IF_ERROR(
            format::EncodeValue(format::types::Int64(), format::Value(t->timestamp), &user_key_buf));
        rec.key = t->key;
        rec.ns = t->ns;
        rec.user_key = user_key_buf;
        rec.value = {};
        CKPT_RETURN_IF_ERROR(emit(rec));
      }
      continue;
    }
    if (d.kind() == pb::STATE_MAP) {
      const auto& table = f.maps[i][g];
      if (!table) continue;
      for (const auto* e : table->SortedEntries()) {
        for (const auto& [encoded_user_key, kv] : e->payload) {
          CKPT_RETURN_IF_ERROR(EncodeOrExplain(d, d.value_type(), kv.second, &value_buf));
          rec.key = e->key;
          rec.ns = e->ns;
          rec.user_key = encoded_user_key;
          rec.value = value_buf;
          CKPT_RETURN_IF_ERROR(emit(rec));
        }
      }
      continue;
    }
    const auto& table = f.values[i][g];
    if (!table) continue;
    const pb::TypeDescriptor type =
        d.kind() == pb::STATE_LIST ? format::types::List(d.value_type()) : d.value_type();
    for (const auto* e : table->SortedEntries()) {
      CKPT_RETURN_IF_ERROR(EncodeOrExplain(d, type, e->payload, &value_buf));
      rec.key = e->key;
      rec.ns = e->ns;
      rec.user_key = {};
      rec.value = value_buf;
      CKPT_RETURN_IF_ERROR(emit(rec));
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
