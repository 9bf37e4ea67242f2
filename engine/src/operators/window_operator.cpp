// tumbling-window and sliding-window: keyed event-time windows (Flink's WindowOperator with an
// event-time trigger). Each record is added to the state of every window it belongs to — the
// window is the state's namespace — and an event-time timer at the window's max timestamp fires
// it when the watermark passes: the result (key, (start, end, aggregate)) is emitted with the
// window's max timestamp and the window's state is cleared. state = "reducing" folds on arrival
// (one value per window); state = "list" buffers the inputs and folds when firing. Records for
// windows the watermark already passed are late and dropped.
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
#include "operators/window_aggregate.h"

namespace ckpt::engine::operators {
namespace {

pb::TypeDescriptor WindowNamespaceType() {
  return format::types::Tuple({format::types::Int64(), format::types::Int64()},
                              {"start", "end"});
}

class WindowOperator final : public Operator {
 public:
  WindowOperator(WindowAssigner assigner, WindowAggregate aggregate, bool buffer_list)
      : assigner_(assigner), aggregate_(aggregate), buffer_list_(buffer_list),
        ns_type_(WindowNamespaceType()) {}

  bool RequiresKeyedInput() const override { return true; }

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    (void)restoring;  // window contents and timers come back with the keyed backend
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    KeyedStateBackend* backend = ctx.keyed_state();
    if (backend == nullptr || ctx.timer_service() == nullptr) {
      return base::Status::FailedPrecondition(label_ + ": needs keyed input (a HASH edge)");
    }
    if (buffer_list_) {
      CKPT_ASSIGN_OR_RETURN(list_, backend->GetListState(ListStateDescriptor(
                                       "window-contents", format::types::Int64(), {}, ns_type_)));
    } else {
      CKPT_ASSIGN_OR_RETURN(reducing_,
                            backend->GetReducingState(
                                ReducingStateDescriptor("window-contents", format::types::Int64(),
                                                        {}, ns_type_),
                                AggregateReducer(aggregate_)));
    }
    ctx.timer_service()->SetNamespaceType(ns_type_);
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    if (record.timestamp == kNoTimestamp) {
      return base::Status::InvalidArgument(label_ +
                                           ": event-time windows need records with timestamps");
    }
    CKPT_ASSIGN_OR_RETURN(int64_t value, ExpectInt64(record.value, label_));
    const format::Value input = AggregateInput(aggregate_, value);
    TimerService* timers = ctx_->timer_service();
    const int64_t watermark = timers->current_watermark();
    windows_.clear();
    assigner_.AssignTo(record.timestamp, &windows_);
    for (const TimeWindow& w : windows_) {
      if (w.MaxTimestamp() <= watermark) continue;  // late: the window already fired
      CKPT_RETURN_IF_ERROR(SetNamespace(w));
      if (buffer_list_) {
        CKPT_RETURN_IF_ERROR(list_.Add(input));
      } else {
        CKPT_RETURN_IF_ERROR(reducing_.Add(input));
      }
      CKPT_RETURN_IF_ERROR(timers->RegisterEventTimeTimer(w.MaxTimestamp()));
    }
    return base::Status::OK();
  }

  base::Status OnTimer(const Timer& timer) override {
    if (timer.domain != TimeDomain::kEventTime) return base::Status::OK();
    std::string_view ns = timer.ns;
    CKPT_ASSIGN_OR_RETURN(format::Value window, format::DecodeValueExact(ns_type_, ns));
    // The timer service already made the timer's key and namespace current.
    int64_t result = 0;
    if (buffer_list_) {
      const std::vector<format::Value>* contents = list_.Get();
      if (contents == nullptr || contents->empty()) return base::Status::OK();
      result = FoldAggregate(aggregate_, *contents);
      CKPT_RETURN_IF_ERROR(list_.Clear());
    } else {
      const format::Value* acc = reducing_.Get();
      if (acc == nullptr) return base::Status::OK();
      result = std::get<int64_t>(acc->v);
      CKPT_RETURN_IF_ERROR(reducing_.Clear());
    }
    auto& fields = std::get<format::Tuple>(window.v).fields;
    fields.push_back(format::Value(result));
    Record out(ctx_->current_key(), std::move(window), timer.timestamp);
    return ctx_->output().Collect(out);
  }

 private:
  base::Status SetNamespace(const TimeWindow& w) {
    // Consecutive records mostly fall into the same few windows: reuse their encodings instead
    // of building and encoding a tuple per record and window.
    for (const auto& [start, encoded] : ns_cache_) {
      if (start == w.start) {
        ctx_->keyed_state()->SetCurrentNamespace(encoded);
        return base::Status::OK();
      }
    }
    std::string encoded;
    CKPT_RETURN_IF_ERROR(format::EncodeValue(
        ns_type_, format::Value(format::Tuple{{format::Value(w.start), format::Value(w.end)}}),
        &encoded));
    ctx_->keyed_state()->SetCurrentNamespace(encoded);
    const size_t capacity = static_cast<size_t>(assigner_.WindowsPerElement()) * 2;
    if (ns_cache_.size() >= capacity) ns_cache_.erase(ns_cache_.begin());
    ns_cache_.emplace_back(w.start, std::move(encoded));
    return base::Status::OK();
  }

  const WindowAssigner assigner_;
  const WindowAggregate aggregate_;
  const bool buffer_list_;
  const pb::TypeDescriptor ns_type_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  ListState list_;
  ReducingState reducing_;
  std::vector<TimeWindow> windows_;
  std::vector<std::pair<int64_t, std::string>> ns_cache_;  // window start -> encoded namespace
};

base::Result<std::unique_ptr<Operator>> CreateWindow(const OperatorParams& params, bool sliding) {
  if (sliding) {
    CKPT_RETURN_IF_ERROR(params.CheckKnownFields(
        {"size_ms", "slide_ms", "offset_ms", "aggregate", "state"}));
  } else {
    CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"size_ms", "offset_ms", "aggregate", "state"}));
  }
  CKPT_ASSIGN_OR_RETURN(int64_t size_ms, params.RequireInt("size_ms"));
  CKPT_ASSIGN_OR_RETURN(int64_t offset_ms, params.GetInt("offset_ms", 0));
  int64_t slide_ms = size_ms;
  if (sliding) {
    CKPT_ASSIGN_OR_RETURN(slide_ms, params.RequireInt("slide_ms"));
  }
  base::Result<WindowAssigner> assigner = sliding
                                              ? WindowAssigner::Sliding(size_ms, slide_ms, offset_ms)
                                              : WindowAssigner::Tumbling(size_ms, offset_ms);
  if (!assigner.ok()) {
    // The assigner's message starts with the field name ("size_ms must be ...").
    const std::string& m = assigner.status().message();
    return params.Error(m.substr(0, m.find(' ')), m);
  }
  CKPT_ASSIGN_OR_RETURN(size_t aggregate,
                        GetEnumParam(params, "aggregate", "sum", WindowAggregateNames()));
  CKPT_ASSIGN_OR_RETURN(size_t state,
                        GetEnumParam(params, "state", "reducing", {"reducing", "list"}));
  return std::unique_ptr<Operator>(std::make_unique<WindowOperator>(
      *assigner, static_cast<WindowAggregate>(aggregate), state == 1));
}

}  // namespace

base::Status RegisterWindowOperators(OperatorRegistry& registry) {
  CKPT_RETURN_IF_ERROR(registry.Register(
      {"tumbling-window",
       "keyed event-time tumbling windows (size_ms): sum/count/min/max of int64 values, "
       "reducing or list state, emits (key, start, end, result) when the watermark passes",
       [](const OperatorParams& p) { return CreateWindow(p, false); }, nullptr}));
  return registry.Register(
      {"sliding-window",
       "keyed event-time sliding windows (size_ms, slide_ms): as tumbling-window",
       [](const OperatorParams& p) { return CreateWindow(p, true); }, nullptr});
}

}  // namespace ckpt::engine::operators
