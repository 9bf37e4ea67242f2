// The keyed states of Flink operators: see formats/flink/keyed_states.h.
#include "formats/flink/keyed_states.h"

#include "formats/flink/changelog_replay.h"
#include "formats/flink/model.h"
#include "formats/flink/streams.h"

namespace ckpt::ops::internal {
namespace {

// Every subtask of an operator registers the same states, so one readable meta information
// suffices; a few handles are tried (a missing or damaged file), not all of them: a
// 10,000-subtask snapshot whose state files are gone must not cost 10,000 failed opens.
constexpr int kKeyedMetaAttempts = 3;

std::string Display(const flink::SerializerSnapshot* s) {
  return s == nullptr ? std::string() : s->DisplayName();
}

}  // namespace

void ReadFlinkKeyedStates(base::Fs& fs, const flink::Metadata& md, const flink::OperatorState& op,
                          FlinkKeyedStates* out) {
  int attempts = 0;
  for (const auto& st : op.subtasks) {
    const flink::KeyedHandle& h = st.managed_keyed;
    if (h.is_null()) continue;
    if (attempts++ == kKeyedMetaAttempts) break;
    auto meta = ReadKeyedMeta(fs, md, h);
    if (meta.ok()) {
      out->by_operator.emplace(op.IdHex(), std::move(meta).value());
      out->errors.erase(op.IdHex());
      break;
    }
    out->errors[op.IdHex()] = meta.status().message();
  }
}

FlinkKeyedStates ReadFlinkKeyedStates(base::Fs& fs, const flink::Metadata& md) {
  FlinkKeyedStates out;
  for (const auto& op : md.operators) ReadFlinkKeyedStates(fs, md, op, &out);
  return out;
}

StateInfo KeyedStateInfo(const flink::StateMetaInfo& st) {
  StateInfo info;
  info.name = st.name;
  info.kind = FlinkStateKind(st);
  info.keyed = IsKeyedStateKind(info.kind);
  const flink::SerializerSnapshot* v = st.Serializer("VALUE_SERIALIZER");
  if (v != nullptr) info.serializer_version = static_cast<uint32_t>(v->version);
  if (st.name.rfind("_timer_state/event", 0) == 0) info.timer_domain = "event-time";
  if (st.name.rfind("_timer_state/processing", 0) == 0) info.timer_domain = "processing-time";
  return info;
}

void FillKeyedStateTypes(const flink::KeyedBackendMeta& meta, OperatorInfo* op) {
  for (auto& info : op->states) {
    for (const auto& st : meta.states) {
      if (st.name != info.name || !info.keyed) continue;
      info.key_type = meta.key_serializer.DisplayName();
      info.namespace_type = Display(st.Serializer("NAMESPACE_SERIALIZER"));
      info.user_key_type = Display(st.Serializer("USER_KEY_SERIALIZER"));
      info.value_type = Display(st.Serializer("VALUE_SERIALIZER"));
    }
  }
}

void AddKeyedStatesToProto(const FlinkKeyedStates& keyed, pb::CheckpointMetadata* md) {
  for (auto& os : *md->mutable_operators()) {
    const std::string id = IdHexOf(os.operator_id());
    auto it = keyed.by_operator.find(id);
    if (it != keyed.by_operator.end()) {
      for (const auto& st : it->second.states) {
        const StateInfo info = KeyedStateInfo(st);
        pb::StateDescriptor* d = os.add_states();
        d->set_name(info.name);
        d->set_kind(static_cast<pb::StateKind>(info.kind));
        d->set_serializer_version(info.serializer_version);
        d->set_timer_domain(info.timer_domain);
      }
    }
    auto err = keyed.errors.find(id);
    if (err != keyed.errors.end()) {
      (*md->mutable_properties())["flink.keyed_meta_error." + id] = err->second;
    }
  }
}

}  // namespace ckpt::ops::internal
