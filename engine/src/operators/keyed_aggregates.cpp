// keyed-sum and keyed-count: running aggregates per key in value state (Flink's
// KeyedStream.sum / a counting RichFlatMapFunction). Each input emits the updated aggregate for
// its key; with emit = "input-and-sum" / "input-and-count" the record's value is the tuple
// (input, aggregate), so a verifier can see every input exactly once next to the running result.
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

enum class Aggregate { kSum, kCount };

class KeyedAggregate final : public Operator {
 public:
  KeyedAggregate(Aggregate aggregate, bool emit_input)
      : aggregate_(aggregate), emit_input_(emit_input) {}

  bool RequiresKeyedInput() const override { return true; }

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    (void)restoring;  // the backend already holds the restored values
    ctx_ = &ctx;
    if (ctx.keyed_state() == nullptr) {
      return base::Status::FailedPrecondition(SubtaskLabel(ctx) +
                                              ": needs keyed input (a HASH edge)");
    }
    const char* name = aggregate_ == Aggregate::kSum ? "sum" : "count";
    CKPT_ASSIGN_OR_RETURN(state_, ctx.keyed_state()->GetValueState(
                                      ValueStateDescriptor(name, format::types::Int64())));
    label_ = SubtaskLabel(ctx);
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    int64_t delta = 1;
    if (aggregate_ == Aggregate::kSum) {
      CKPT_ASSIGN_OR_RETURN(delta, ExpectInt64(record.value, label_));
    }
    CKPT_ASSIGN_OR_RETURN(const int64_t result, state_.AddInt64(delta));
    if (emit_input_) {
      record.value = format::Tuple{{std::move(record.value), format::Value(result)}};
    } else {
      record.value.v = result;  // the input's int64 alternative: assigned in place
    }
    return ctx_->output().Collect(record);
  }

 private:
  const Aggregate aggregate_;
  const bool emit_input_;
  OperatorContext* ctx_ = nullptr;
  ValueState state_;
  std::string label_;
};

OperatorFactory MakeFactory(Aggregate aggregate) {
  return [aggregate](const OperatorParams& params) -> base::Result<std::unique_ptr<Operator>> {
    CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"emit"}));
    const std::string plain = aggregate == Aggregate::kSum ? "sum" : "count";
    CKPT_ASSIGN_OR_RETURN(size_t emit,
                          GetEnumParam(params, "emit", plain, {plain, "input-and-" + plain}));
    return std::unique_ptr<Operator>(std::make_unique<KeyedAggregate>(aggregate, emit == 1));
  };
}

}  // namespace

base::Status RegisterKeyedAggregates(OperatorRegistry& registry) {
  CKPT_RETURN_IF_ERROR(registry.Register(
      {"keyed-sum",
       "running sum of int64 values per key (value state); emits the new sum, or (input, sum)",
       MakeFactory(Aggregate::kSum), nullptr}));
  return registry.Register({"keyed-count",
                            "running count of records per key (value state); emits the new "
                            "count, or (input, count)",
                            MakeFactory(Aggregate::kCount), nullptr});
}

}  // namespace ckpt::engine::operators
