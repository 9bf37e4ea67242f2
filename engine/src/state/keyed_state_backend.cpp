// KeyedStateBackend: registration, current key/namespace, snapshot (sync phase) and restore.
#include "ckpt/engine/state/keyed_state_backend.h"

#include <string>
#include <utility>

#include "ckpt/engine/record.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::FrozenKeyedState;

KeyedStateBackend::KeyedStateBackend(uint32_t max_parallelism, format::KeyGroupRange key_groups,
                                     std::string owner)
    : core_(std::make_unique<BackendCore>()) {
  core_->max_parallelism = max_parallelism;
  core_->range = key_groups;
  core_->owner = std::move(owner);
  core_->ns_hash = state_internal::HashBytes({});
  core_->UpdateHash();
  // The two timer states are declared up front so every subtask of an operator declares the
  // same states in the same order (a record's state_index must mean the same on all subtasks).
  core_->TimerStateId(true).status().IgnoreError();
  core_->TimerStateId(false).status().IgnoreError();
  timers_ = std::make_unique<TimerService>(core_.get());
}

KeyedStateBackend::~KeyedStateBackend() = default;

uint32_t KeyedStateBackend::max_parallelism() const { return core_->max_parallelism; }
format::KeyGroupRange KeyedStateBackend::key_group_range() const { return core_->range; }
const std::string& KeyedStateBackend::owner() const { return core_->owner; }
TimerService* KeyedStateBackend::timer_service() { return timers_.get(); }
const CowStats& KeyedStateBackend::cow_stats() const { return core_->cow; }

namespace {

base::Status CheckKind(const pb::StateDescriptor& d, pb::StateKind want, const std::string& owner) {
  if (d.kind() != want) {
    return base::Status::InvalidArgument(owner + ": state '" + d.name() + "' is declared as " +
                                         pb::StateKind_Name(d.kind()) + ", expected " +
                                         pb::StateKind_Name(want));
  }
  return base::Status::OK();
}

}  // namespace

base::Result<ValueState> KeyedStateBackend::GetValueState(const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_VALUE, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  return ValueState(core_.get(), id);
}

base::Result<ListState> KeyedStateBackend::GetListState(const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_LIST, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  return ListState(core_.get(), id);
}

base::Result<MapState> KeyedStateBackend::GetMapState(const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_MAP, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  return MapState(core_.get(), id);
}

base::Result<ReducingState> KeyedStateBackend::GetReducingState(
    const pb::StateDescriptor& descriptor, ReduceFunction reduce) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_REDUCING, core_->owner));
  if (!reduce) {
    return base::Status::InvalidArgument(core_->owner + ": reducing state '" + descriptor.name() +
                                         "' needs a reduce function");
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  core_->states[id].reduce = std::move(reduce);
  return ReducingState(core_.get(), id);
}

base::Result<AggregatingState> KeyedStateBackend::GetAggregatingState(
    const pb::StateDescriptor& descriptor, AggregateFunction aggregate) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_AGGREGATING, core_->owner));
  if (!aggregate.create_accumulator || !aggregate.add || !aggregate.get_result) {
    return base::Status::InvalidArgument(core_->owner + ": aggregating state '" +
                                         descriptor.name() + "' needs all three functions");
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  core_->states[id].aggregate = std::move(aggregate);
  return AggregatingState(core_.get(), id);
}

void KeyedStateBackend::SetCurrentKey(const format::Value& key, std::string_view encoded_key,
                                      uint32_t key_group) {
  BackendCore& c = *core_;
  c.current_key = key;
  c.current_encoded_key.assign(encoded_key);
  c.current_key_group = key_group;
  c.key_in_range = c.range.Contains(key_group);
  c.kg_index = c.key_in_range ? key_group - c.range.start : 0;
  c.key_hash = state_internal::HashBytes(encoded_key);
  c.UpdateHash();
  if (!c.key_type_known) {
    base::Result<pb::TypeDescriptor> type = KeyTypeOf(key);
    if (type.ok()) {
      c.key_type = *type;
      c.key_type_known = true;
    }
  }
}

base::Status KeyedStateBackend::SetCurrentKey(const format::Value& key) {
  std::string encoded;
  CKPT_RETURN_IF_ERROR_CTX(EncodeRecordKey(key, &encoded), core_->owner);
  const uint32_t group = KeyGroupOfEncodedKey(encoded, core_->max_parallelism);
  SetCurrentKey(key, encoded, group);
  if (!core_->key_in_range) return core_->NotOwned().WithContext("SetCurrentKey");
  return base::Status::OK();
}

const format::Value& KeyedStateBackend::current_key() const { return core_->current_key; }
std::string_view KeyedStateBackend::current_encoded_key() const {
  return core_->current_encoded_key;
}
uint32_t KeyedStateBackend::current_key_group() const { return core_->current_key_group; }

void KeyedStateBackend::SetCurrentNamespace(std::string_view encoded_namespace) {
  BackendCore& c = *core_;
  if (encoded_namespace == c.current_ns) return;
  c.current_ns.assign(encoded_namespace);
  c.ns_hash = state_internal::HashBytes(encoded_namespace);
  c.UpdateHash();
}

std::string_view KeyedStateBackend::current_namespace() const { return core_->current_ns; }

std::unique_ptr<KeyedStateSnapshot> KeyedStateBackend::Snapshot() {
  BackendCore& c = *core_;
  auto frozen = std::make_unique<FrozenKeyedState>();
  frozen->max_parallelism = c.max_parallelism;
  frozen->range = c.range;
  const size_t n = c.states.size();
  frozen->states.reserve(n);
  frozen->values.resize(n);
  frozen->maps.resize(n);
  frozen->timers.resize(n);
  const pb::TypeDescriptor fallback_key = format::types::Bytes();
  // Namespace type of timers (documented in timer_service.h).
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
  for (size_t i = 0; i < n; ++i) {
    state_internal::KeyedStateInfo& s = c.states[i];
    pb::StateDescriptor d = s.descriptor;
    if (d.key_type().kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
      *d.mutable_key_type() = c.key_type_known ? c.key_type : fallback_key;
    }
    if (d.kind() == pb::STATE_TIMERS) *d.mutable_namespace_type() = timer_ns;
    frozen->states.push_back(std::move(d));
    if (s.timers != nullptr) {
      s.timers->exclusive = false;
      frozen->timers[i] = s.timers->table;
      frozen->num_entries += s.timers->table->size();
      continue;
    }
    auto& vals = frozen->values[i];
    vals.resize(s.values.size());
    for (size_t g = 0; g < s.values.size(); ++g) {
      auto& slot = s.values[g];
      if (!slot.table) continue;
      slot.exclusive = false;
      frozen->num_entries += slot.table->size();
      vals[g] = slot.table;
    }
    auto& maps = frozen->maps[i];
    maps.resize(s.maps.size());
    for (size_t g = 0; g < s.maps.size(); ++g) {
      auto& slot = s.maps[g];
      if (!slot.table) continue;
      slot.exclusive = false;
      slot.table->ForEach([&](const auto& e) { frozen->num_entries += e.payload.size(); });
      maps[g] = slot.table;
    }
  }
  ++c.cow.snapshots;
  return std::make_unique<KeyedStateSnapshot>(std::move(frozen));
}

uint64_t KeyedStateBackend::NumEntries() const {
  uint64_t n = 0;
  for (const auto& s : core_->states) {
    for (const auto& slot : s.values) {
      if (slot.table) n += slot.table->size();
    }
    for (const auto& slot : s.maps) {
      if (slot.table) slot.table->ForEach([&](const auto& e) { n += e.payload.size(); });
    }
  }
  n += core_->event_timers.table->size() + core_->processing_timers.table->size();
  return n;
}

}  // namespace ckpt::engine
