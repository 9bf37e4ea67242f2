// interval-join: a keyed two-input join by event time (Flink's KeyedStream.intervalJoin): a left
// record at t and a right record at s of the same key join when lower_ms <= s - t <= upper_ms.
// Each side is buffered per key in map state (timestamp -> list of values); an arriving record
// is matched against the other side's buffer and then kept until the watermark guarantees no
// partner can still arrive (left: t + upper_ms, right: s - lower_ms), when an event-time timer
// removes it. Output: (key, (left, right)) with timestamp max(t, s). Records at or behind the
// watermark are late and dropped.
#include <algorithm>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/value_codec.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

pb::TypeDescriptor TypeByIndex(size_t index) {
  return index == 1 ? format::types::String() : format::types::Int64();
}

class IntervalJoin final : public Operator {
 public:
  IntervalJoin(int64_t lower_ms, int64_t upper_ms, pb::TypeDescriptor left_type,
               pb::TypeDescriptor right_type)
      : lower_ms_(lower_ms), upper_ms_(upper_ms), left_type_(std::move(left_type)),
        right_type_(std::move(right_type)) {}

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
    CKPT_ASSIGN_OR_RETURN(left_, backend->GetMapState(MapStateDescriptor(
                                     "left", format::types::Int64(),
                                     format::types::List(left_type_))));
    CKPT_ASSIGN_OR_RETURN(right_, backend->GetMapState(MapStateDescriptor(
                                      "right", format::types::Int64(),
                                      format::types::List(right_type_))));
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override { return Process(record, true); }
  base::Status ProcessElement2(Record& record) override { return Process(record, false); }

  base::Status OnTimer(const Timer& timer) override {
    if (timer.domain != TimeDomain::kEventTime) return base::Status::OK();
    // The buckets whose cleanup time is exactly `timer.timestamp` (left t + upper, right
    // s - lower); every bucket registered its own timer, and a watermark fires all timers up to
    // it before the next record, so each expires with its own timer: two point removals per
    // timer, never a scan of the buffers (which grow while one input runs ahead of the other).
    CKPT_RETURN_IF_ERROR(left_.Remove(format::Value(timer.timestamp - upper_ms_)));
    return right_.Remove(format::Value(timer.timestamp + lower_ms_));
  }

 private:
  base::Status Process(Record& record, bool is_left) {
    const pb::TypeDescriptor& type = is_left ? left_type_ : right_type_;
    const char* side = is_left ? "left" : "right";
    const bool is_string = type.kind() == pb::TypeDescriptor::STRING;
    if (is_string ? !std::holds_alternative<std::string>(record.value.v)
                  : !std::holds_alternative<int64_t>(record.value.v)) {
      return base::Status::InvalidArgument(label_ + ": the " + side + " input expects " +
                                           (is_string ? "string" : "int64") + " values (params." +
                                           side + "_type), got " +
                                           std::string(ValueKindName(record.value)));
    }
    if (record.timestamp == kNoTimestamp) {
      return base::Status::InvalidArgument(label_ + ": the " + side +
                                           " input needs records with timestamps");
    }
    const int64_t ts = record.timestamp;
    TimerService* timers = ctx_->timer_service();
    if (ts <= timers->current_watermark()) return base::Status::OK();  // late

    // Match against the other side: s - t in [lower, upper].
    MapState& other = is_left ? right_ : left_;
    const int64_t from = is_left ? ts + lower_ms_ : ts - upper_ms_;
    const int64_t to = is_left ? ts + upper_ms_ : ts - lower_ms_;
    matches_.clear();
    other.ForEach([&](const format::Value& k, const format::Value& v) {
      const int64_t other_ts = std::get<int64_t>(k.v);
      if (other_ts >= from && other_ts <= to) {
        for (const format::Value& e : std::get<format::List>(v.v).elements) {
          matches_.emplace_back(other_ts, e);
        }
      }
      return true;
    });
    for (auto& [other_ts, other_value] : matches_) {
      format::Tuple pair = is_left ? format::Tuple{{record.value, std::move(other_value)}}
                                   : format::Tuple{{std::move(other_value), record.value}};
      Record out(ctx_->current_key(), format::Value(std::move(pair)), std::max(ts, other_ts));
      CKPT_RETURN_IF_ERROR(ctx_->output().Collect(out));
    }

    // Buffer this record until no partner can arrive any more.
    MapState& mine = is_left ? left_ : right_;
    const format::Value ts_key(ts);
    format::List list;
    if (const format::Value* existing = mine.Get(ts_key)) list = std::get<format::List>(existing->v);
    list.elements.push_back(std::move(record.value));
    CKPT_RETURN_IF_ERROR(mine.Put(ts_key, format::Value(std::move(list))));
    return timers->RegisterEventTimeTimer(is_left ? ts + upper_ms_ : ts - lower_ms_);
  }

  const int64_t lower_ms_;
  const int64_t upper_ms_;
  const pb::TypeDescriptor left_type_;
  const pb::TypeDescriptor right_type_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  MapState left_;
  MapState right_;
  std::vector<std::pair<int64_t, format::Value>> matches_;
};

base::Result<std::unique_ptr<Operator>> CreateIntervalJoin(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(
      params.CheckKnownFields({"lower_ms", "upper_ms", "left_type", "right_type"}));
  CKPT_ASSIGN_OR_RETURN(int64_t lower, params.RequireInt("lower_ms"));
  CKPT_ASSIGN_OR_RETURN(int64_t upper, params.RequireInt("upper_ms"));
  if (lower > upper) {
    return params.Error("upper_ms", "must be >= lower_ms (" + std::to_string(lower) + "), got " +
                                        std::to_string(upper));
  }
  CKPT_ASSIGN_OR_RETURN(size_t left,
                        GetEnumParam(params, "left_type", "int64", {"int64", "string"}));
  CKPT_ASSIGN_OR_RETURN(size_t right,
                        GetEnumParam(params, "right_type", "int64", {"int64", "string"}));
  return std::unique_ptr<Operator>(
      std::make_unique<IntervalJoin>(lower, upper, TypeByIndex(left), TypeByIndex(right)));
}

}  // namespace

base::Status RegisterIntervalJoin(OperatorRegistry& registry) {
  return registry.Register(
      {"interval-join",
       "keyed two-input join: left at t and right at s join when lower_ms <= s - t <= upper_ms; "
       "buffers in map state, expired by event-time timers",
       CreateIntervalJoin, nullptr});
}

}  // namespace ckpt::engine::operators
