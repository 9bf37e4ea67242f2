// failure-injector: passes records through unchanged and fails the task on purpose — at the
// N-th record of a subtask, while snapshotting checkpoint N, while restoring, or per record with
// probability p — each trigger at most `max_failures` times over the job's life (FailureLedger),
// so the job recovers instead of failing forever. For exactly-once tests.
#include <random>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "operators/builtin_kinds.h"
#include "operators/failure_ledger.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

struct InjectorParams {
  int64_t fail_at_record = -1;
  int64_t fail_at_checkpoint = -1;
  bool fail_on_restore = false;
  double failure_probability = 0;
  int64_t seed = 0;
  int64_t max_failures = 1;
  int64_t subtask = 0;  // -1: every subtask
  std::string marker_dir;
};

class FailureInjector final : public Operator {
 public:
  explicit FailureInjector(InjectorParams p) : p_(std::move(p)) {}

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    ctx_ = &ctx;
    armed_ = p_.subtask < 0 || p_.subtask == static_cast<int64_t>(ctx.subtask_index());
    CKPT_ASSIGN_OR_RETURN(seen_state_, ctx.operator_state()->GetListState(
                                           OperatorListStateDescriptor(
                                               "records-seen", format::types::Int64())));
    // After a rescale a subtask may receive several counters; their sum keeps the total.
    for (const format::Value& v : seen_state_.Get()) {
      if (const auto* n = std::get_if<int64_t>(&v.v)) seen_ += *n;
    }
    rng_.seed(static_cast<uint64_t>(p_.seed) * 1000003u + ctx.subtask_index() * 7919u +
              ctx.attempt_number());
    if (restoring && p_.fail_on_restore) return MaybeFail("restore", "while restoring");
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    ++seen_;
    if (armed_) {
      if (seen_ == p_.fail_at_record) {
        CKPT_RETURN_IF_ERROR(MaybeFail("record", "at record " + std::to_string(seen_)));
      }
      if (p_.failure_probability > 0 && coin_(rng_) < p_.failure_probability) {
        CKPT_RETURN_IF_ERROR(MaybeFail("random", "at record " + std::to_string(seen_) +
                                                     " (probability " +
                                                     std::to_string(p_.failure_probability) +
                                                     ")"));
      }
    }
    return ctx_->output().Collect(record);
  }

  base::Status SnapshotState(int64_t checkpoint_id) override {
    seen_state_.Update({format::Value(seen_)});
    if (armed_ && p_.fail_at_checkpoint >= 0 && checkpoint_id >= p_.fail_at_checkpoint) {
      return MaybeFail("checkpoint",
                       "while snapshotting checkpoint " + std::to_string(checkpoint_id));
    }
    return base::Status::OK();
  }

 private:
  base::Status MaybeFail(const std::string& trigger, const std::string& where) {
    if (!armed_) return base::Status::OK();
    std::string key = (ctx_->uid().empty() ? ctx_->name() : ctx_->uid()) + "-" +
                      std::to_string(ctx_->subtask_index()) + "-" + trigger;
    // In memory the ledger is per job; marker files belong to the directory the user chose
    // (a resumed process may run under a new job id).
    if (p_.marker_dir.empty()) key = ctx_->job_id_hex() + "-" + key;
    CKPT_ASSIGN_OR_RETURN(bool fire, FailureLedger::TryFire(base::Fs::Default(), p_.marker_dir,
                                                            key, p_.max_failures));
    if (!fire) return base::Status::OK();
    return base::Status::Internal(SubtaskLabel(*ctx_) + ": injected failure " + where +
                                  " (failure-injector, attempt " +
                                  std::to_string(ctx_->attempt_number()) + ")");
  }

  const InjectorParams p_;
  OperatorContext* ctx_ = nullptr;
  OperatorListState seen_state_;
  int64_t seen_ = 0;
  bool armed_ = false;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> coin_{0.0, 1.0};
};

base::Result<std::unique_ptr<Operator>> CreateFailureInjector(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields(
      {"fail_at_record", "fail_at_checkpoint", "fail_on_restore", "failure_probability", "seed",
       "max_failures", "subtask", "marker_dir"}));
  InjectorParams p;
  CKPT_ASSIGN_OR_RETURN(p.fail_at_record,
                        GetIntInRange(params, "fail_at_record", -1, -1, INT64_MAX));
  if (p.fail_at_record == 0) return params.Error("fail_at_record", "records count from 1");
  CKPT_ASSIGN_OR_RETURN(p.fail_at_checkpoint,
                        GetIntInRange(params, "fail_at_checkpoint", -1, -1, INT64_MAX));
  CKPT_ASSIGN_OR_RETURN(p.fail_on_restore, params.GetBool("fail_on_restore", false));
  CKPT_ASSIGN_OR_RETURN(p.failure_probability, params.GetDouble("failure_probability", 0));
  if (p.failure_probability < 0 || p.failure_probability > 1) {
    return params.Error("failure_probability", "must be in [0, 1]");
  }
  CKPT_ASSIGN_OR_RETURN(p.seed, params.GetInt("seed", 0));
  CKPT_ASSIGN_OR_RETURN(p.max_failures, GetIntInRange(params, "max_failures", 1, 0, 1 << 20));
  CKPT_ASSIGN_OR_RETURN(p.subtask, GetIntInRange(params, "subtask", 0, -1, 1 << 20));
  CKPT_ASSIGN_OR_RETURN(p.marker_dir, params.GetString("marker_dir", ""));
  return std::unique_ptr<Operator>(std::make_unique<FailureInjector>(std::move(p)));
}

}  // namespace

base::Status RegisterFailureInjector(OperatorRegistry& registry) {
  return registry.Register(
      {"failure-injector",
       "pass-through that fails at record N, at checkpoint N, on restore or with probability p, "
       "each at most max_failures times (marker_dir makes the count survive the process)",
       CreateFailureInjector, nullptr});
}

}  // namespace ckpt::engine::operators
