// DecodeCheckpointProperties: maps the decoded Java object graph of
// org.apache.flink.runtime.checkpoint.CheckpointProperties onto plain fields.
#include "ckpt/flink/checkpoint_properties.h"

#include "ckpt/flink/data_input.h"
#include "java_serialization.h"

namespace ckpt::flink {
namespace {

using internal::JavaValue;

const JavaValue* Field(const JavaValue& obj, const std::string& name) {
  auto it = obj.fields.find(name);
  return it == obj.fields.end() ? nullptr : it->second.get();
}

bool Bool(const JavaValue& obj, const std::string& name) {
  const JavaValue* v = Field(obj, name);
  return v != nullptr && v->kind == JavaValue::Kind::kPrimitive && v->integer != 0;
}

std::string Text(const JavaValue& obj, const std::string& name) {
  const JavaValue* v = Field(obj, name);
  if (v == nullptr) return "";
  if (v->kind == JavaValue::Kind::kString || v->kind == JavaValue::Kind::kEnum) return v->text;
  return "";
}

}  // namespace

base::Result<CheckpointProperties> DecodeCheckpointProperties(std::string_view bytes,
                                                              const std::string& file,
                                                              uint64_t base_offset) {
  DataInput in(bytes, file, base_offset);
  CKPT_ASSIGN_OR_RETURN(auto root, internal::ReadJavaObject(in));
  if (root->kind != JavaValue::Kind::kObject ||
      root->class_name != "org.apache.flink.runtime.checkpoint.CheckpointProperties") {
    return in.Error(base_offset, "checkpoint properties trailer holds a " +
                                     (root->class_name.empty() ? std::string("non-object")
                                                               : root->class_name) +
                                     ", not CheckpointProperties");
  }
  CheckpointProperties p;
  p.forced = Bool(*root, "forced");
  p.discard_subsumed = Bool(*root, "discardSubsumed");
  p.discard_finished = Bool(*root, "discardFinished");
  p.discard_cancelled = Bool(*root, "discardCancelled");
  p.discard_failed = Bool(*root, "discardFailed");
  p.discard_suspended = Bool(*root, "discardSuspended");
  p.unclaimed = Bool(*root, "unclaimed");
  const JavaValue* type = Field(*root, "checkpointType");
  if (type == nullptr || type->kind != JavaValue::Kind::kObject) {
    return in.Error(base_offset, "checkpoint properties without a checkpointType object");
  }
  p.type_class = type->class_name;
  p.type_name = Text(*type, "name");
  if (p.type_class == "org.apache.flink.runtime.checkpoint.SavepointType") {
    p.is_savepoint = true;
    p.format_type = Text(*type, "formatType");
    p.post_action = Text(*type, "postCheckpointAction");
  } else if (p.type_class == "org.apache.flink.runtime.checkpoint.CheckpointType") {
    p.sharing_files = Text(*type, "sharingFilesStrategy");
  } else {
    return in.Error(base_offset, "unknown snapshot type class " + p.type_class);
  }
  if (!in.at_end()) {
    return in.Error("trailing bytes: " + std::to_string(in.remaining()) +
                    " byte(s) after the CheckpointProperties object, which ends the file");
  }
  return p;
}

}  // namespace ckpt::flink
