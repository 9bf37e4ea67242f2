// BackendCore: current key/namespace hashing, copy-on-write table access and state declaration.
#include "state/backend_core.h"

#include <string>

#include "ckpt/base/checksum.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::engine::state_internal {

uint64_t HashBytes(std::string_view bytes) { return base::Xxh3(bytes); }

bool IsKeyTypePlaceholder(const pb::TypeDescriptor& t) {
  return t.kind() == pb::TypeDescriptor::KIND_UNSPECIFIED ||
         t.kind() == pb::TypeDescriptor::BYTES;
}

void BackendCore::LearnKeyType(const pb::TypeDescriptor& t) {
  if (key_type_known || IsKeyTypePlaceholder(t)) return;
  key_type = t;
  key_type_known = true;
}

base::Status BackendCore::NotOwned() const {
  return base::Status::FailedPrecondition(
      owner + ": key group " + std::to_string(current_key_group) + " of the current key is not in " +
      "this subtask's range [" + std::to_string(range.start) + ", " + std::to_string(range.end) +
      "] (record routed to the wrong subtask, or no key set)");
}

const ValueTable* BackendCore::ReadValues(uint32_t id) const {
  if (!key_in_range) return nullptr;
  return states[id].values[kg_index].table.get();
}

const MapTable* BackendCore::ReadMaps(uint32_t id) const {
  if (!key_in_range) return nullptr;
  return states[id].maps[kg_index].table.get();
}

ValueTable* BackendCore::WriteValues(uint32_t id) {
  if (!key_in_range) return nullptr;
  return Writable(states[id].values[kg_index]);
}

MapTable* BackendCore::WriteMaps(uint32_t id) {
  if (!key_in_range) return nullptr;
  return Writable(states[id].maps[kg_index]);
}

TimerSet* BackendCore::WriteTimers(bool event_time) {
  return Writable(event_time ? event_timers : processing_timers);
}

base::Result<uint32_t> BackendCore::Declare(const pb::StateDescriptor& descriptor,
                                            bool registered) {
  if (descriptor.name().empty()) {
    return base::Status::InvalidArgument(owner + ": keyed state without a name");
  }
  if (!IsKeyedStateKind(descriptor.kind())) {
    return base::Status::InvalidArgument(owner + ": state '" + descriptor.name() +
                                         "' is not a keyed state kind");
  }
  pb::StateDescriptor d = descriptor;
  // A restored placeholder key type is dropped, so that snapshots record the learnt one.
  if (!registered && IsKeyTypePlaceholder(d.key_type())) d.clear_key_type();
  if (d.namespace_type().kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
    *d.mutable_namespace_type() = format::types::Void();
  }
  for (const pb::TypeDescriptor* t : {&d.key_type(), &d.namespace_type(), &d.value_type(),
                                      &d.user_key_type()}) {
    if (t->kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) continue;
    base::Status st = format::ValidateType(*t);
    if (!st.ok()) return st.WithContext(owner + ": state '" + d.name() + "'");
  }
  const bool needs_value = d.kind() != pb::STATE_TIMERS;
  if (needs_value && d.value_type().kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
    return base::Status::InvalidArgument(owner + ": state '" + d.name() + "' has no value type");
  }
  if (d.kind() == pb::STATE_MAP &&
      d.user_key_type().kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
    return base::Status::InvalidArgument(owner + ": map state '" + d.name() +
                                         "' has no user key type");
  }
  if (d.key_type().kind() != pb::TypeDescriptor::KIND_UNSPECIFIED && !key_type_known) {
    key_type = d.key_type();
    key_type_known = true;
  }

  auto it = by_name.find(d.name());
  if (it != by_name.end()) {
    KeyedStateInfo& existing = states[it->second];
    CKPT_RETURN_IF_ERROR_CTX(CheckStateCompatible(existing.descriptor, d), owner);
    if (registered) existing.registered = true;
    if (existing.descriptor.key_type().kind() == pb::TypeDescriptor::KIND_UNSPECIFIED &&
        d.key_type().kind() != pb::TypeDescriptor::KIND_UNSPECIFIED) {
      *existing.descriptor.mutable_key_type() = d.key_type();
    }
    return it->second;
  }
  KeyedStateInfo info;
  info.descriptor = std::move(d);
  info.registered = registered;
  const uint32_t groups = range.size();
  if (info.descriptor.kind() == pb::STATE_MAP) {
    info.maps.resize(groups);
  } else if (info.descriptor.kind() == pb::STATE_TIMERS) {
    info.timers = info.descriptor.timer_domain() == "processing-time" ? &processing_timers
                                                                       : &event_timers;
  } else {
    info.values.resize(groups);
  }
  if (info.descriptor.kind() == pb::STATE_LIST) {
    info.list_type = format::types::List(info.descriptor.value_type());
  }
  const uint32_t id = static_cast<uint32_t>(states.size());
  by_name.emplace(info.descriptor.name(), id);
  states.push_back(std::move(info));
  return id;
}

base::Result<uint32_t> BackendCore::TimerStateId(bool event_time) {
  int64_t& slot = event_time ? timer_event_state : timer_processing_state;
  if (slot >= 0) return static_cast<uint32_t>(slot);
  pb::StateDescriptor d;
  d.set_name(std::string(event_time ? kEventTimersName : kProcessingTimersName));
  d.set_kind(pb::STATE_TIMERS);
  *d.mutable_user_key_type() = format::types::Int64();
  *d.mutable_value_type() = format::types::Void();
  d.set_timer_domain(event_time ? "event-time" : "processing-time");
  CKPT_ASSIGN_OR_RETURN(uint32_t id, Declare(d, true));
  slot = id;
  return id;
}

}  // namespace ckpt::engine::state_internal
