// Record-by-record restore: declaring a snapshot's states and inserting its records (timers by
// every backend into the heap timer sets; the other kinds by HeapKeyedStateBackend here).
#include <string>
#include <vector>

#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::BackendCore;

base::Result<std::vector<uint32_t>> KeyedStateBackend::DeclareRestoredStates(
    const std::vector<pb::StateDescriptor>& states) {
  std::vector<uint32_t> ids;
  ids.reserve(states.size());
  for (const pb::StateDescriptor& d : states) {
    if (d.kind() == pb::STATE_TIMERS) {
      const bool event = d.timer_domain() != "processing-time";
      CKPT_ASSIGN_OR_RETURN(uint32_t id, core()->TimerStateId(event));
      if (d.namespace_type().kind() != pb::TypeDescriptor::VOID &&
          d.namespace_type().kind() != pb::TypeDescriptor::KIND_UNSPECIFIED &&
          !core()->timer_ns_type_set) {
        core()->timer_ns_type = d.namespace_type();
        core()->timer_ns_type_set = true;
      }
      core()->LearnKeyType(d.key_type());
      ids.push_back(id);
      continue;
    }
    CKPT_ASSIGN_OR_RETURN(uint32_t id, core()->Declare(d, false));
    ids.push_back(id);
  }
  return ids;
}

base::Status KeyedStateBackend::RestoreRecord(uint32_t local_state_id, uint32_t key_group,
                                              const format::KeyedRecord& record) {
  BackendCore& c = *core();
  if (local_state_id >= c.states.size()) {
    return base::Status::InvalidArgument(c.owner + ": unknown restored state id " +
                                         std::to_string(local_state_id));
  }
  if (!c.range.Contains(key_group)) {
    return base::Status::InvalidArgument(c.owner + ": restored key group " +
                                         std::to_string(key_group) + " is outside [" +
                                         std::to_string(c.range.start) + ", " +
                                         std::to_string(c.range.end) + "]");
  }
  state_internal::KeyedStateInfo& s = c.states[local_state_id];
  const pb::StateDescriptor& d = s.descriptor;
  if (d.kind() != pb::STATE_TIMERS) return RestoreStateRecord(local_state_id, key_group, record);
  const std::string where = c.owner + ": state '" + d.name() + "'";
  base::Result<format::Value> ts = format::DecodeValueExact(format::types::Int64(), record.user_key);
  if (!ts.ok()) return ts.status().WithContext(where + " (timestamp)");
  // A timer needs a key, so a snapshot that holds timers had learnt its key type; the only one
  // that still records the placeholder is bytes, and bytes it is.
  if (!c.key_type_known) {
    c.key_type = format::types::Bytes();
    c.key_type_known = true;
  }
  base::Result<format::Value> key = format::DecodeValueExact(c.key_type, record.key);
  if (!key.ok()) return key.status().WithContext(where + " (key)");
  state_internal::TimerEntry t;
  t.timestamp = std::get<int64_t>(ts->v);
  t.key.assign(record.key);
  t.ns.assign(record.ns);
  t.key_group = key_group;
  t.key_value = std::move(*key);
  c.Writable(*s.timers)->insert(std::move(t));
  return base::Status::OK();
}

base::Status HeapKeyedStateBackend::RestoreStateRecord(uint32_t local_state_id, uint32_t key_group,
                                                  const format::KeyedRecord& record) {
  BackendCore& c = *core();
  state_internal::KeyedStateInfo& s = c.states[local_state_id];
  const pb::StateDescriptor& d = s.descriptor;
  const std::string where = c.owner + ": state '" + d.name() + "'";
  const size_t g = key_group - c.range.start;
  const uint64_t hash =
      BackendCore::CombineHash(state_internal::HashBytes(record.key),
                               state_internal::HashBytes(record.ns));
  bool inserted = false;
  switch (d.kind()) {
    case pb::STATE_VALUE:
    case pb::STATE_REDUCING:
    case pb::STATE_AGGREGATING:
    case pb::STATE_LIST: {
      const pb::TypeDescriptor& type = d.kind() == pb::STATE_LIST ? s.list_type : d.value_type();
      base::Result<format::Value> value = format::DecodeValueExact(type, record.value);
      if (!value.ok()) return value.status().WithContext(where);
      state_internal::ValueTable* table = c.Writable(s.values[g]);
      table->FindOrInsert(hash, record.key, record.ns, &inserted) = std::move(*value);
      return base::Status::OK();
    }
    case pb::STATE_MAP: {
      base::Result<format::Value> user_key =
          format::DecodeValueExact(d.user_key_type(), record.user_key);
      if (!user_key.ok()) return user_key.status().WithContext(where + " (user key)");
      base::Result<format::Value> value = format::DecodeValueExact(d.value_type(), record.value);
      if (!value.ok()) return value.status().WithContext(where);
      state_internal::MapTable* table = c.Writable(s.maps[g]);
      state_internal::UserMap& map = table->FindOrInsert(hash, record.key, record.ns, &inserted);
      map.insert_or_assign(std::string(record.user_key),
                           std::make_pair(std::move(*user_key), std::move(*value)));
      return base::Status::OK();
    }
    default:
      return base::Status::Corruption(where + ": kind " + pb::StateKind_Name(d.kind()) +
                                      " is not keyed state");
  }
}

}  // namespace ckpt::engine
