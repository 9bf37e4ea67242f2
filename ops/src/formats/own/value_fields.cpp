// The fields of a state's values in our format: a TUPLE value type whose fields are all named
// and distinct is rendered as a JSON object (format/value_json.h), one member per field.
#include "formats/own/own_format.h"

#include <set>

#include "ckpt/format/operator_id.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

// The rule value_json applies before it renders a tuple as an object.
bool OwnTupleFieldsAllNamed(const pb::TypeDescriptor& type) {
  if (type.elements_size() == 0 || type.field_names_size() != type.elements_size()) return false;
  std::set<std::string> seen;
  for (const std::string& name : type.field_names()) {
    if (name.empty() || !seen.insert(name).second) return false;
  }
  return true;
}

}  // namespace

base::Result<StateValueFieldList> ValueFieldsOwn(const Snapshot& snapshot, const OperatorInfo& op,
                                                 const StateInfo& state) {
  StateValueFieldList fields;
  for (const pb::OperatorState& os : RawMetadata(snapshot).operators()) {
    const auto id = format::OperatorId::FromBytes(os.operator_id());
    if (!id.ok() || id->ToHex() != op.id_hex) continue;
    for (const pb::StateDescriptor& d : os.states()) {
      if (d.name() != state.name) continue;
      const pb::TypeDescriptor& type = d.value_type();
      if (type.kind() != pb::TypeDescriptor::TUPLE || !OwnTupleFieldsAllNamed(type)) {
        return fields;
      }
      fields.layout = StateValueFieldList::Layout::kObjectMember;
      fields.names.assign(type.field_names().begin(), type.field_names().end());
      return fields;
    }
  }
  return fields;
}

}  // namespace ckpt::ops::internal
