// Exactly-once ITCase, modelled on Flink's UnalignedCheckpointITCase but with aligned barriers:
// sequence source -> failing map -> keyed sum -> two-phase-commit file sink, checkpoints every
// 100 ms, failures at 1/4 (while processing), 1/2 (while snapshotting) and 3/4 (while
// processing, then once more while recovering). The verifier reads committed files only.
#include <atomic>
#include <memory>

#include <gtest/gtest.h>

#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobResult;
using engine::JobRunner;
using engine::JobRunnerOptions;

// Which failures fired so far (shared by all attempts of one job run, like Flink's static
// FailingMapper counters).
struct FailurePlan {
  int64_t quarter = 0, half = 0, three_quarters = 0;  // input values in split 0
  std::atomic<bool> processing_failed{false};
  std::atomic<bool> snapshot_armed{false};
  std::atomic<bool> snapshot_failed{false};
  std::atomic<bool> late_failed{false};
  std::atomic<bool> recovery_armed{false};
  std::atomic<bool> recovery_failed{false};
  std::atomic<int> failures{0};
};

// Passes records through; subtask 0 fails as the plan says. Split 0 (values from..from+len-1)
// is always read by source subtask 0 and thus by this chained subtask 0.
class FailingMap final : public engine::Operator {
 public:
  explicit FailingMap(std::shared_ptr<FailurePlan> plan) : plan_(std::move(plan)) {}
  base::Status InitializeState(engine::OperatorContext& ctx, bool restoring) override {
    ctx_ = &ctx;
    if (restoring && ctx.subtask_index() == 0 && plan_->recovery_armed.exchange(false)) {
      plan_->recovery_failed = true;
      ++plan_->failures;
      return base::Status::Internal("injected failure during recovery");
    }
    return base::Status::OK();
  }
  base::Status Open(engine::OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Status ProcessElement(engine::Record& record) override {
    if (ctx_->subtask_index() == 0) {
      const int64_t v = std::get<int64_t>(record.value.v);
      if (v >= plan_->quarter && v < plan_->half && !plan_->processing_failed.exchange(true)) {
        ++plan_->failures;
        return base::Status::Internal("injected failure while processing at 1/4");
      }
      if (v >= plan_->half && !plan_->snapshot_armed.exchange(true)) {
        // The next snapshot of this subtask fails (checked in SnapshotState).
      }
      if (v >= plan_->three_quarters && plan_->snapshot_failed && !plan_->late_failed.exchange(true)) {
        plan_->recovery_armed = true;
        ++plan_->failures;
        return base::Status::Internal("injected failure while processing at 3/4");
      }
    }
    return ctx_->output().Collect(record);
  }
  base::Status SnapshotState(int64_t checkpoint_id) override {
    if (ctx_->subtask_index() == 0 && plan_->snapshot_armed && !plan_->snapshot_failed.exchange(true)) {
      ++plan_->failures;
      return base::Status::Internal("injected failure while snapshotting checkpoint " +
                                    std::to_string(checkpoint_id));
    }
    return base::Status::OK();
  }

 private:
  std::shared_ptr<FailurePlan> plan_;
  engine::OperatorContext* ctx_ = nullptr;
};

std::unique_ptr<engine::OperatorRegistry> RegistryWith(std::shared_ptr<FailurePlan> plan) {
  auto r = std::make_unique<engine::OperatorRegistry>();
  engine::RegisterBuiltinOperators(*r);
  base::Status st = r->Register(
      {"test-failing-map", "passes records, fails on a plan",
       [plan](const engine::OperatorParams&) -> base::Result<std::unique_ptr<engine::Operator>> {
         return std::unique_ptr<engine::Operator>(std::make_unique<FailingMap>(plan));
       },
       nullptr});
  EXPECT_OK(st);
  return r;
}

struct RunOutcome {
  JobResult result;
  Verification verification;
  int failures = 0;
};

RunOutcome RunWithFailures(uint32_t parallelism, pb::CheckpointingMode mode,
                           const testing::TempDir& tmp) {
  KeyedSumJob job;
  job.from = 1;
  job.to = 240000;
  job.splits = 8;
  job.keys = 64;
  job.rate_per_second = 120000;  // ~2 s of input, so there is room for >= 10 checkpoints
  job.sink_dir = tmp.Sub("out");
  job.map_kind = "test-failing-map";
  auto plan = std::make_shared<FailurePlan>();
  const int64_t split_len = (job.to - job.from + 1) / job.splits;
  plan->quarter = job.from + split_len / 4;
  plan->half = job.from + split_len / 2;
  plan->three_quarters = job.from + split_len * 3 / 4;
  auto registry = RegistryWith(plan);

  JobRunnerOptions o;
  o.registry = registry.get();
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.mode = mode;
  o.parallelism = parallelism;
  o.num_retained = 3;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.max_restart_attempts = 10;
  o.restart_delay_ms = 20;
  RunOutcome out;
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(KeyedSumJobSpec(job), o);
  EXPECT_OK(runner.status());
  if (!runner.ok()) return out;
  EXPECT_OK((*runner)->Start());
  out.result = (*runner)->Wait();
  out.failures = plan->failures.load();
  out.verification = VerifyCommitted({job.sink_dir}, job, mode != pb::AT_LEAST_ONCE);
  return out;
}

class ExactlyOnceITCase : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ExactlyOnceITCase, CommittedOutputIsExactUnderFailures) {
  testing::TempDir tmp;
  RunOutcome r = RunWithFailures(GetParam(), pb::ALIGNED_EXACTLY_ONCE, tmp);
  ASSERT_EQ(r.result.outcome, JobOutcome::kFinished) << r.result.status.ToString();
  const Verification& v = r.verification;
  ExpectExact(v);
  // Processing at 1/4, snapshotting at 1/2, processing at 3/4, and recovery after that.
  EXPECT_EQ(r.failures, 4);
  EXPECT_EQ(r.result.restarts, 4u);
  // Checkpoints completed in between (about 20 on an idle machine; 9 were seen at load 11,
  // so the bound is what the test needs, not what an idle machine reaches): restores came
  // from checkpoints, not from the start.
  EXPECT_GE(r.result.checkpoints.completed, 4u);
  // Every snapshot the engine left behind reads back with all checksums verified.
  base::Result<int> checked = VerifyAllSnapshots(tmp.Sub("checkpoints"));
  ASSERT_OK(checked.status());
}

INSTANTIATE_TEST_SUITE_P(Parallelism, ExactlyOnceITCase, ::testing::Values(1u, 4u, 8u),
                         [](const auto& param_info) { return "p" + std::to_string(param_info.param); });

TEST(AtLeastOnceITCase, NothingIsLostUnderFailures) {
  testing::TempDir tmp;
  RunOutcome r = RunWithFailures(4, pb::AT_LEAST_ONCE, tmp);
  ASSERT_EQ(r.result.outcome, JobOutcome::kFinished) << r.result.status.ToString();
  EXPECT_EQ(r.verification.lost, 0) << r.verification.Summary();
  EXPECT_EQ(r.verification.malformed, 0) << r.verification.Summary();
  EXPECT_EQ(r.failures, 4);
}

}  // namespace
}  // namespace ckpt::itcase
