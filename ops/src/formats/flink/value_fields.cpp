// The fields of a Flink keyed state's values, from the serializer snapshots at the head of one of
// its keyed state files: a Pojo renders as a JSON object of its fields, a Tuple as an array
// (f0..fN), a Row as {"kind":..,"fields":[..]} (ckpt/flink/value_decoder.h). Values the reader
// cannot decode are shown opaque, so they have no fields.
#include <string>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/value_decoder.h"
#include "formats/flink/flink_format.h"
#include "formats/flink/model.h"
#include "formats/flink/streams.h"

namespace ckpt::ops::internal {
namespace {

using Layout = StateValueFieldList::Layout;

StateValueFieldList FlinkSerializerFields(const flink::SerializerSnapshot& s) {
  StateValueFieldList fields;
  if (!flink::CanDecode(s)) return fields;
  const std::string& c = s.class_name;
  auto positional = [&](Layout layout) {
    fields.layout = layout;
    for (size_t i = 0; i < s.nested.size(); ++i) fields.names.push_back("f" + std::to_string(i));
  };
  if (c.ends_with("runtime.PojoSerializerSnapshot") && s.field_names.size() == s.nested.size() &&
      !s.nested.empty()) {
    fields.layout = Layout::kObjectMember;
    fields.names = s.field_names;
  } else if (c.ends_with("TupleSerializerSnapshot") && !s.nested.empty()) {
    positional(Layout::kArrayElement);
  } else if (c.ends_with("RowSerializer$RowSerializerSnapshot") && !s.nested.empty()) {
    positional(Layout::kRowField);
  }
  return fields;
}

}  // namespace

base::Result<StateValueFieldList> ValueFieldsFlink(base::Fs& fs, const Snapshot& snapshot,
                                                   const OperatorInfo& op,
                                                   const StateInfo& state) {
  const flink::Metadata* md = FlinkMetadataOf(snapshot);
  // Flink keyed list state is one entry per list (a JSON array of elements): no fields.
  if (md == nullptr || !state.keyed || state.kind == StateKind::kList) return StateValueFieldList{};
  for (const flink::OperatorState& fo : md->operators) {
    if (fo.IdHex() != op.id_hex) continue;
    for (const flink::SubtaskState& st : fo.subtasks) {
      if (st.managed_keyed.is_null()) continue;
      CKPT_ASSIGN_OR_RETURN(flink::KeyedBackendMeta meta, ReadKeyedMeta(fs, *md, st.managed_keyed));
      for (const flink::StateMetaInfo& info : meta.states) {
        if (info.name != state.name) continue;
        const flink::SerializerSnapshot* vs = info.Serializer("VALUE_SERIALIZER");
        if (vs != nullptr && state.kind == StateKind::kMap) {
          vs = vs->nested.size() == 2 ? &vs->nested[1] : nullptr;
        }
        return vs == nullptr ? StateValueFieldList{} : FlinkSerializerFields(*vs);
      }
      return StateValueFieldList{};
    }
  }
  return StateValueFieldList{};
}

}  // namespace ckpt::ops::internal
