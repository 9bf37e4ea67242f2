// dedupe: keyed; forwards a record only the first time its (key, value) pair is seen. The seen
// values of each key are map state (value -> first timestamp), so duplicates stay suppressed
// across restores and rescales.
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

class DedupeOperator final : public Operator {
 public:
  explicit DedupeOperator(pb::TypeDescriptor value_type) : value_type_(std::move(value_type)) {}

  bool RequiresKeyedInput() const override { return true; }

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    (void)restoring;
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    if (ctx.keyed_state() == nullptr) {
      return base::Status::FailedPrecondition(label_ + ": needs keyed input (a HASH edge)");
    }
    CKPT_ASSIGN_OR_RETURN(seen_, ctx.keyed_state()->GetMapState(MapStateDescriptor(
                                     "seen", value_type_, format::types::Int64())));
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    if (seen_.Contains(record.value)) return base::Status::OK();
    base::Status st = seen_.Put(record.value, format::Value(record.timestamp));
    if (!st.ok()) return st.WithContext(label_);
    return ctx_->output().Collect(record);
  }

 private:
  const pb::TypeDescriptor value_type_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  MapState seen_;
};

base::Result<std::unique_ptr<Operator>> CreateDedupe(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"value_type"}));
  CKPT_ASSIGN_OR_RETURN(size_t type,
                        GetEnumParam(params, "value_type", "int64", {"int64", "string"}));
  return std::unique_ptr<Operator>(std::make_unique<DedupeOperator>(
      type == 0 ? format::types::Int64() : format::types::String()));
}

}  // namespace

base::Status RegisterDedupe(OperatorRegistry& registry) {
  return registry.Register({"dedupe",
                            "keyed: forwards each (key, value) once; seen values in map state "
                            "(value_type int64 or string)",
                            CreateDedupe, nullptr});
}

}  // namespace ckpt::engine::operators
