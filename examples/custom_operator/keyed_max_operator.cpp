#include "keyed_max_operator.h"

#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"

namespace example {

using ckpt::base::Status;
namespace engine = ckpt::engine;
namespace format = ckpt::format;

Status KeyedMaxOperator::InitializeState(engine::OperatorContext& ctx, bool restoring) {
  // Registering the state is the same whether the job starts fresh or restores: on a restore the
  // backend already holds the snapshot's values for this subtask's key groups and the handle
  // simply sees them. The descriptor (name, kind, value type) is written into every snapshot,
  // so `ckpt-tool` and the inspector can decode this state without this code.
  (void)restoring;
  ctx_ = &ctx;
  if (ctx.keyed_state() == nullptr) {
    return Status::FailedPrecondition("keyed-max needs a keyed input (a HASH edge)");
  }
  CKPT_ASSIGN_OR_RETURN(max_, ctx.keyed_state()->GetValueState(engine::ValueStateDescriptor(
                                  "max", format::types::Int64())));
  return Status::OK();
}

Status KeyedMaxOperator::Open(engine::OperatorContext& ctx) {
  ctx_ = &ctx;
  return Status::OK();
}

Status KeyedMaxOperator::ProcessElement(engine::Record& record) {
  const auto* value = std::get_if<int64_t>(&record.value.v);
  if (value == nullptr) {
    return Status::InvalidArgument(ctx_->name() + ": keyed-max expects int64 values");
  }
  // The runtime has set the current key to record.key: max_ reads and writes that key's value.
  const format::Value* current = max_.Get();
  const bool grows = current == nullptr || std::get<int64_t>(current->v) < *value;
  if (grows) CKPT_RETURN_IF_ERROR(max_.Update(format::Value(*value)));
  if (!grows && !emit_every_record_) return Status::OK();
  record.value = *max_.Get();
  return ctx_->output().Collect(record);
}

ckpt::base::Result<std::unique_ptr<engine::Operator>> CreateKeyedMax(
    const engine::OperatorParams& params) {
  // Validate every parameter here: the engine creates one instance before the job starts, so a
  // typo in the job spec fails with an error naming the operator and the field.
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"emit_every_record"}));
  CKPT_ASSIGN_OR_RETURN(bool every, params.GetBool("emit_every_record", false));
  return std::unique_ptr<engine::Operator>(std::make_unique<KeyedMaxOperator>(every));
}

Status RegisterKeyedMax(engine::OperatorRegistry& registry) {
  return registry.Register({"keyed-max",
                            "example: emits (key, max so far) when a key's maximum grows",
                            CreateKeyedMax, nullptr});
}

}  // namespace example
