// DecodeCheckpointProperties: maps the decoded Java object graph of
// org.apache.flink.runtime.checkpoint.CheckpointProperties onto plain fields.
#include "ckpt/flink/checkpoint_properties.h"

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/java_serialization.h"

namespace ckpt::flink {
namespace {

bool PropertiesBool(const JavaValue& obj, std::string_view name) {
  const JavaValue* v = obj.Field(name);
  return v != nullptr && v->kind == JavaValue::Kind::kPrimitive && v->integer != 0;
}

std::string PropertiesText(const JavaValue& obj, std::string_view name) {
  const JavaValue* v = obj.Field(name);
  if (v == nullptr) return "";
  if (v->kind == JavaValue::Kind::kString || v->kind == JavaValue::Kind::kEnum) return v->text;
  return "";
}

}  // namespace

base::Result<CheckpointProperties> DecodeCheckpointProperties(std::string_view bytes,
                                                              const std::string& file,
                                                              uint64_t base_offset) {
  DataInput in(bytes, file, base_offset);
  CKPT_ASSIGN_OR_RETURN(JavaStream stream, ReadJavaObject(in));
  const JavaValue* root = stream.root();
  if (stream.aborted_by() != nullptr) {
    return in.Error(base_offset, "checkpoint properties trailer: the writer aborted the Java "
                                 "serialization stream with " +
                                     stream.aborted_by()->exception->class_name());
  }
  if (root->kind != JavaValue::Kind::kObject ||
      root->class_name() != "org.apache.flink.runtime.checkpoint.CheckpointProperties") {
    return in.Error(base_offset, "checkpoint properties trailer holds a " +
                                     (root->class_name().empty() ? std::string("non-object")
                                                                 : root->class_name()) +
                                     ", not CheckpointProperties");
  }
  CheckpointProperties p;
  p.forced = PropertiesBool(*root, "forced");
  p.discard_subsumed = PropertiesBool(*root, "discardSubsumed");
  p.discard_finished = PropertiesBool(*root, "discardFinished");
  p.discard_cancelled = PropertiesBool(*root, "discardCancelled");
  p.discard_failed = PropertiesBool(*root, "discardFailed");
  p.discard_suspended = PropertiesBool(*root, "discardSuspended");
  p.unclaimed = PropertiesBool(*root, "unclaimed");
  const JavaValue* type = root->Field("checkpointType");
  if (type == nullptr || type->kind != JavaValue::Kind::kObject) {
    return in.Error(base_offset, "checkpoint properties without a checkpointType object");
  }
  p.type_class = type->class_name();
  p.type_name = PropertiesText(*type, "name");
  if (p.type_class == "org.apache.flink.runtime.checkpoint.SavepointType") {
    p.is_savepoint = true;
    p.format_type = PropertiesText(*type, "formatType");
    p.post_action = PropertiesText(*type, "postCheckpointAction");
  } else if (p.type_class == "org.apache.flink.runtime.checkpoint.CheckpointType") {
    p.sharing_files = PropertiesText(*type, "sharingFilesStrategy");
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
