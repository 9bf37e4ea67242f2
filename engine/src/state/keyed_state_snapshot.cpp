// KeyedStateSnapshot: encodes the frozen tables of one key group into KeyedRecords, in
// canonical order, on the async snapshot thread.
#include "ckpt/engine/state/keyed_state_snapshot.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::FrozenKeyedState;
using state_internal::TimerEntry;

using state_internal::HeapKeyedStateSnapshot;

HeapKeyedStateSnapshot::HeapKeyedStateSnapshot(std::unique_ptr<FrozenKeyedState> frozen)
    : frozen_(std::move(frozen)) {}
HeapKeyedStateSnapshot::~HeapKeyedStateSnapshot() = default;

const std::vector<pb::StateDescriptor>& HeapKeyedStateSnapshot::states() const {
  return frozen_->states;
}
uint32_t HeapKeyedStateSnapshot::max_parallelism() const { return frozen_->max_parallelism; }
format::KeyGroupRange HeapKeyedStateSnapshot::key_group_range() const { return frozen_->range; }
uint64_t HeapKeyedStateSnapshot::NumEntries() const { return frozen_->num_entries; }

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

base::Status HeapKeyedStateSnapshot::ForEachRecord(
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

namespace state_internal {

namespace {

// The timers' namespace type (documented in timer_service.h).
pb::TypeDescriptor TimerNamespaceType(const BackendCore& c) {
  pb::TypeDescriptor timer_ns = format::types::Void();
  if (c.timer_ns_type_set) {
    timer_ns = c.timer_ns_type;
  } else {
    bool any_ns = false;
    for (const auto* set : {c.event_timers.table.get(), c.processing_timers.table.get()}) {
      for (const auto& t : *set) {
        if (!t.ns.empty()) {
          any_ns = true;
          break;
        }
      }
    }
    if (any_ns) {
      timer_ns = format::types::Bytes();
      for (const auto& s : c.states) {
        if (s.descriptor.kind() != pb::STATE_TIMERS &&
            s.descriptor.namespace_type().kind() != pb::TypeDescriptor::VOID) {
          timer_ns = s.descriptor.namespace_type();
          break;
        }
      }
    }
  }
  return timer_ns;
}

// A declared state as snapshots record it: key type filled in, timers' namespace type set.
pb::StateDescriptor Described(const BackendCore& c, const pb::StateDescriptor& declared,
                              const pb::TypeDescriptor& timer_ns) {
  pb::StateDescriptor d = declared;
  if (d.key_type().kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
    *d.mutable_key_type() = c.key_type_known ? c.key_type : format::types::Bytes();
  }
  if (d.kind() == pb::STATE_TIMERS) *d.mutable_namespace_type() = timer_ns;
  return d;
}

}  // namespace

std::vector<pb::StateDescriptor> DescribeStates(const BackendCore& c) {
  const pb::TypeDescriptor timer_ns = TimerNamespaceType(c);
  std::vector<pb::StateDescriptor> out;
  out.reserve(c.states.size());
  for (const auto& s : c.states) out.push_back(Described(c, s.descriptor, timer_ns));
  return out;
}

std::unique_ptr<FrozenKeyedState> Freeze(BackendCore& c) {
  auto frozen = std::make_unique<FrozenKeyedState>();
  frozen->max_parallelism = c.max_parallelism;
  frozen->range = c.range;
  const size_t n = c.states.size();
  frozen->states.reserve(n);
  frozen->values.resize(n);
  frozen->maps.resize(n);
  frozen->timers.resize(n);
  const pb::TypeDescriptor timer_ns = TimerNamespaceType(c);
  for (size_t i = 0; i < n; ++i) {
    state_internal::KeyedStateInfo& s = c.states[i];
    frozen->states.push_back(Described(c, s.descriptor, timer_ns));
    if (s.timers != nullptr) {
      frozen->num_entries += s.timers->table->size();
      frozen->timers[i] = ShareWithSnapshot(*s.timers);
      continue;
    }
    auto& vals = frozen->values[i];
    vals.resize(s.values.size());
    for (size_t g = 0; g < s.values.size(); ++g) {
      auto& slot = s.values[g];
      if (!slot.table) continue;
      frozen->num_entries += slot.table->size();
      vals[g] = ShareWithSnapshot(slot);
    }
    auto& maps = frozen->maps[i];
    maps.resize(s.maps.size());
    for (size_t g = 0; g < s.maps.size(); ++g) {
      auto& slot = s.maps[g];
      if (!slot.table) continue;
      slot.table->ForEach([&](const auto& e) { frozen->num_entries += e.payload.size(); });
      maps[g] = ShareWithSnapshot(slot);
    }
  }
  ++c.cow.snapshots;
  return frozen;
}

}  // namespace state_internal
}  // namespace ckpt::engine
