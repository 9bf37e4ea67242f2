// sequence-source: the numbers from..to (inclusive), cut into contiguous splits that are dealt
// to the subtasks. Each split's position (the next number) is operator list state, so a restore
// continues exactly where the snapshot was taken, and a rescale redistributes whole splits.
// Numbers within a split are emitted in increasing order (what the exactly-once verifier checks).
#include <algorithm>
#include <chrono>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

struct SequenceParams {
  int64_t from = 1;
  int64_t to = 0;
  int64_t splits = 0;  // 0: the parallelism of the first run
  double rate_per_second = 0;
  int64_t batch_size = 1000;
  int64_t keys = 0;
  int64_t timestamp_step_ms = 0;
};

struct Split {
  int64_t index = 0;
  int64_t next = 0;
  int64_t end = 0;  // inclusive
};

pb::StateDescriptor SplitsDescriptor() {
  return OperatorListStateDescriptor(
      "splits", format::types::Tuple({format::types::Int64(), format::types::Int64(),
                                      format::types::Int64()},
                                     {"split", "next", "end"}));
}

class SequenceSource final : public SourceOperator {
 public:
  explicit SequenceSource(SequenceParams p) : p_(p) {}

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    ctx_ = &ctx;
    CKPT_ASSIGN_OR_RETURN(state_, ctx.operator_state()->GetListState(SplitsDescriptor()));
    if (restoring) {
      for (const format::Value& v : state_.Get()) {
        const auto* t = std::get_if<format::Tuple>(&v.v);
        if (t == nullptr || t->fields.size() != 3 ||
            !std::holds_alternative<int64_t>(t->fields[0].v) ||
            !std::holds_alternative<int64_t>(t->fields[1].v) ||
            !std::holds_alternative<int64_t>(t->fields[2].v)) {
          return base::Status::Corruption(SubtaskLabel(ctx) +
                                          ": restored state 'splits' has a malformed entry");
        }
        splits_.push_back({std::get<int64_t>(t->fields[0].v), std::get<int64_t>(t->fields[1].v),
                           std::get<int64_t>(t->fields[2].v)});
      }
    } else {
      AssignInitialSplits(ctx.subtask_index(), ctx.parallelism());
    }
    std::sort(splits_.begin(), splits_.end(),
              [](const Split& a, const Split& b) { return a.index < b.index; });
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    rate_per_subtask_ = p_.rate_per_second / static_cast<double>(ctx.parallelism());
    started_ = std::chrono::steady_clock::now();
    return base::Status::OK();
  }

  base::Result<SourceStatus> PollNext() override {
    if (stopped_) return SourceStatus::kEndOfInput;
    int64_t budget = p_.batch_size;
    if (rate_per_subtask_ > 0) {
      const double elapsed_s = std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - started_).count();
      const auto allowed = static_cast<int64_t>(elapsed_s * rate_per_subtask_) + 1;
      budget = std::min(budget, allowed - emitted_);
      if (budget <= 0) return SourceStatus::kNothingAvailable;
    }
    Output& out = ctx_->output();
    // Round-robin over the unfinished splits, a slice of the batch each, so every split makes
    // progress and the watermark (minimum over splits) advances.
    size_t active = 0;
    for (const Split& s : splits_) active += s.next <= s.end ? 1 : 0;
    if (active == 0) return FinishInput();
    const int64_t slice = std::max<int64_t>(1, budget / static_cast<int64_t>(active));
    const int64_t batch_start = emitted_;
    for (Split& s : splits_) {
      for (int64_t i = 0; i < slice && s.next <= s.end && budget > 0; ++i, --budget) {
        // Backpressured or a checkpoint trigger waits: end the batch between two records.
        if (emitted_ > batch_start && ctx_->ShouldYield()) return SourceStatus::kMoreAvailable;
        record_.value = format::Value(s.next);
        record_.key = p_.keys > 0 ? format::Value(s.next % p_.keys) : format::Value();
        record_.timestamp =
            p_.timestamp_step_ms > 0 ? (s.next - p_.from) * p_.timestamp_step_ms : kNoTimestamp;
        CKPT_RETURN_IF_ERROR(out.Collect(record_));
        ++s.next;
        ++emitted_;
      }
    }
    if (p_.timestamp_step_ms > 0) CKPT_RETURN_IF_ERROR(EmitWatermark());
    return SourceStatus::kMoreAvailable;
  }

  int64_t IdleWaitMicros() const override { return 1000; }

  base::Status SnapshotState(int64_t checkpoint_id) override {
    (void)checkpoint_id;
    std::vector<format::Value> entries;
    entries.reserve(splits_.size());
    for (const Split& s : splits_) {
      entries.push_back(format::Tuple{{format::Value(s.index), format::Value(s.next),
                                       format::Value(s.end)}});
    }
    state_.Update(std::move(entries));
    return base::Status::OK();
  }

  void Stop(bool drain) override {
    (void)drain;
    stopped_ = true;
  }

 private:
  void AssignInitialSplits(uint32_t subtask, uint32_t parallelism) {
    const int64_t count = p_.splits > 0 ? p_.splits : parallelism;
    // Split s covers a contiguous range; sizes differ by at most one. Computed without
    // multiplying, so any from..to within int64 works.
    const uint64_t n = static_cast<uint64_t>(p_.to) - static_cast<uint64_t>(p_.from) + 1;
    const uint64_t base = n / static_cast<uint64_t>(count);
    const uint64_t rem = n % static_cast<uint64_t>(count);
    uint64_t start = static_cast<uint64_t>(p_.from);
    for (int64_t s = 0; s < count; ++s) {
      const uint64_t len = base + (static_cast<uint64_t>(s) < rem ? 1 : 0);
      if (len > 0 && static_cast<uint32_t>(s % parallelism) == subtask) {
        splits_.push_back({s, static_cast<int64_t>(start), static_cast<int64_t>(start + len - 1)});
      }
      start += len;
    }
  }

  base::Status EmitWatermark() {
    // Timestamps grow with the number inside each split, so the smallest next timestamp over
    // the unfinished splits bounds everything still to come.
    int64_t wm = kMaxWatermark;
    for (const Split& s : splits_) {
      if (s.next <= s.end) wm = std::min(wm, (s.next - p_.from) * p_.timestamp_step_ms - 1);
    }
    if (wm <= last_watermark_) return base::Status::OK();
    last_watermark_ = wm;
    return ctx_->output().EmitWatermark(wm);
  }

  base::Result<SourceStatus> FinishInput() {
    if (p_.timestamp_step_ms > 0) CKPT_RETURN_IF_ERROR(EmitWatermark());
    return SourceStatus::kEndOfInput;
  }

  const SequenceParams p_;
  OperatorContext* ctx_ = nullptr;
  OperatorListState state_;
  std::vector<Split> splits_;
  Record record_;
  double rate_per_subtask_ = 0;
  std::chrono::steady_clock::time_point started_;
  int64_t emitted_ = 0;
  int64_t last_watermark_ = kNoTimestamp;
  bool stopped_ = false;
};

base::Result<std::unique_ptr<Operator>> CreateSequenceSource(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields(
      {"from", "to", "splits", "rate_per_second", "batch_size", "keys", "timestamp_step_ms"}));
  SequenceParams p;
  CKPT_ASSIGN_OR_RETURN(p.from, params.GetInt("from", 1));
  CKPT_ASSIGN_OR_RETURN(p.to, params.RequireInt("to"));
  if (p.to < p.from) {
    return params.Error("to", "must be >= from (" + std::to_string(p.from) + "), got " +
                                  std::to_string(p.to));
  }
  CKPT_ASSIGN_OR_RETURN(p.splits, GetIntInRange(params, "splits", 0, 0, 1 << 20));
  CKPT_ASSIGN_OR_RETURN(p.rate_per_second, params.GetDouble("rate_per_second", 0));
  if (p.rate_per_second < 0) return params.Error("rate_per_second", "must be >= 0 (0: unlimited)");
  CKPT_ASSIGN_OR_RETURN(p.batch_size, GetIntInRange(params, "batch_size", 1000, 1, 1 << 20));
  CKPT_ASSIGN_OR_RETURN(p.keys, GetIntInRange(params, "keys", 0, 0, INT64_MAX));
  CKPT_ASSIGN_OR_RETURN(p.timestamp_step_ms,
                        GetIntInRange(params, "timestamp_step_ms", 0, 0, 1 << 30));
  return std::unique_ptr<Operator>(std::make_unique<SequenceSource>(p));
}

}  // namespace

base::Status RegisterSequenceSource(OperatorRegistry& registry) {
  return registry.Register(
      {"sequence-source",
       "numbers from..to in contiguous splits; position in operator state; optional rate, keys "
       "(value mod keys) and event timestamps",
       CreateSequenceSource, nullptr});
}

}  // namespace ckpt::engine::operators
