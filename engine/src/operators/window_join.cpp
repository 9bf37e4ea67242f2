// window-join: a keyed two-input join on event-time tumbling windows (Flink's
// DataStream.join(...).window(TumblingEventTimeWindows)). Each side's values are buffered in list
// state per (key, window); when the watermark (minimum over both inputs) passes the window's end,
// every left value is paired with every right value of the same key, in arrival order, emitted
// as (key, (left, right)) with the window's max timestamp, and the window is cleared. Records
// for windows the watermark already passed are late and dropped.
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operators/window_assigner.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/value_codec.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

// Index into {"int64", "string"}.
pb::TypeDescriptor TypeByIndex(size_t index) {
  return index == 1 ? format::types::String() : format::types::Int64();
}

class WindowJoin final : public Operator {
 public:
  WindowJoin(WindowAssigner assigner, pb::TypeDescriptor left_type, pb::TypeDescriptor right_type)
      : assigner_(assigner), left_type_(std::move(left_type)),
        right_type_(std::move(right_type)),
        ns_type_(format::types::Tuple({format::types::Int64(), format::types::Int64()},
                                      {"start", "end"})) {}

  uint32_t NumInputs() const override { return 2; }
  bool RequiresKeyedInput() const override { return true; }

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    (void)restoring;
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    KeyedStateBackend* backend = ctx.keyed_state();
    if (backend == nullptr || ctx.timer_service() == nullptr) {
      return base::Status::FailedPrecondition(label_ + ": needs keyed inputs (HASH edges)");
    }
    CKPT_ASSIGN_OR_RETURN(left_, backend->GetListState(
                                     ListStateDescriptor("left", left_type_, {}, ns_type_)));
    CKPT_ASSIGN_OR_RETURN(right_, backend->GetListState(
                                      ListStateDescriptor("right", right_type_, {}, ns_type_)));
    ctx.timer_service()->SetNamespaceType(ns_type_);
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    return Add(record, left_, left_type_, "left");
  }
  base::Status ProcessElement2(Record& record) override {
    return Add(record, right_, right_type_, "right");
  }

  base::Status OnTimer(const Timer& timer) override {
    if (timer.domain != TimeDomain::kEventTime) return base::Status::OK();
    const std::vector<format::Value>* left = left_.Get();
    const std::vector<format::Value>* right = right_.Get();
    if (left != nullptr && right != nullptr) {
      for (const format::Value& l : *left) {
        for (const format::Value& r : *right) {
          Record out(ctx_->current_key(), format::Value(format::Tuple{{l, r}}), timer.timestamp);
          CKPT_RETURN_IF_ERROR(ctx_->output().Collect(out));
        }
      }
    }
    CKPT_RETURN_IF_ERROR(left_.Clear());
    return right_.Clear();
  }

 private:
  base::Status Add(Record& record, ListState& side, const pb::TypeDescriptor& type,
                   const char* name) {
    // List state checks types only when it is snapshotted; fail at the record instead.
    const bool is_string = type.kind() == pb::TypeDescriptor::STRING;
    if (is_string ? !std::holds_alternative<std::string>(record.value.v)
                  : !std::holds_alternative<int64_t>(record.value.v)) {
      return base::Status::InvalidArgument(
          label_ + ": the " + name + " input expects " + (is_string ? "string" : "int64") +
          " values (params." + name + "_type), got " + std::string(ValueKindName(record.value)));
    }
    if (record.timestamp == kNoTimestamp) {
      return base::Status::InvalidArgument(label_ + ": the " + name +
                                           " input needs records with timestamps");
    }
    const TimeWindow w = assigner_.Assign(record.timestamp).front();
    if (w.MaxTimestamp() <= ctx_->timer_service()->current_watermark()) return base::Status::OK();
    ns_scratch_.clear();
    CKPT_RETURN_IF_ERROR(format::EncodeValue(
        ns_type_, format::Value(format::Tuple{{format::Value(w.start), format::Value(w.end)}}),
        &ns_scratch_));
    ctx_->keyed_state()->SetCurrentNamespace(ns_scratch_);
    CKPT_RETURN_IF_ERROR(side.Add(std::move(record.value)));
    return ctx_->timer_service()->RegisterEventTimeTimer(w.MaxTimestamp());
  }

  const WindowAssigner assigner_;
  const pb::TypeDescriptor left_type_;
  const pb::TypeDescriptor right_type_;
  const pb::TypeDescriptor ns_type_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  ListState left_;
  ListState right_;
  std::string ns_scratch_;
};

base::Result<std::unique_ptr<Operator>> CreateWindowJoin(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(
      params.CheckKnownFields({"size_ms", "offset_ms", "left_type", "right_type"}));
  CKPT_ASSIGN_OR_RETURN(int64_t size_ms, params.RequireInt("size_ms"));
  CKPT_ASSIGN_OR_RETURN(int64_t offset_ms, params.GetInt("offset_ms", 0));
  base::Result<WindowAssigner> assigner = WindowAssigner::Tumbling(size_ms, offset_ms);
  if (!assigner.ok()) {
    const std::string& m = assigner.status().message();
    return params.Error(m.substr(0, m.find(' ')), m);
  }
  CKPT_ASSIGN_OR_RETURN(size_t left,
                        GetEnumParam(params, "left_type", "int64", {"int64", "string"}));
  CKPT_ASSIGN_OR_RETURN(size_t right,
                        GetEnumParam(params, "right_type", "int64", {"int64", "string"}));
  return std::unique_ptr<Operator>(
      std::make_unique<WindowJoin>(*assigner, TypeByIndex(left), TypeByIndex(right)));
}

}  // namespace

base::Status RegisterWindowJoin(OperatorRegistry& registry) {
  return registry.Register(
      {"window-join",
       "keyed two-input join on event-time tumbling windows (size_ms): emits (key, (left, "
       "right)) for every pair of the same key and window",
       CreateWindowJoin, nullptr});
}

}  // namespace ckpt::engine::operators
