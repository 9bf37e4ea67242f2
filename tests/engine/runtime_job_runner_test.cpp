// JobRunner: spec checks with errors naming the field, backpressure from a slow operator to the
// source, failure propagation with the restart strategy, cancellation.
#include "ckpt/engine/job_runner.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/engine/operator_context.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

pb::JobSpec SpecFromJson(const std::string& json) {
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(json, "test.json");
  EXPECT_OK(spec.status());
  return spec.ok() ? *spec : pb::JobSpec();
}

const char* kKeyedSum = R"({"name": "t", "operators": [
  {"id": "src", "kind": "sequence-source", "params": {"to": 1000, "keys": 4}},
  {"id": "sum", "kind": "keyed-sum"},
  {"id": "out", "kind": "discard"}],
  "edges": [{"from": "src", "to": "sum", "partitioning": "%s"},
            {"from": "sum", "to": "out", "partitioning": "FORWARD"}]})";

std::string KeyedSum(const std::string& partitioning) {
  std::string s = kKeyedSum;
  return s.replace(s.find("%s"), 2, partitioning);
}

TEST(JobRunnerTest, KeyedOperatorWithoutHashInputIsRejectedNamingIt) {
  base::Status st = JobRunner::Create(SpecFromJson(KeyedSum("REBALANCE")), {}).status();
  ASSERT_STATUS(st, kInvalidArgument, "operator 'sum' (kind keyed-sum)");
  ASSERT_STATUS(st, kInvalidArgument, "HASH");
}

TEST(JobRunnerTest, UnknownKindAndBadParamsNameTheOperatorAndField) {
  pb::JobSpec spec = SpecFromJson(KeyedSum("HASH"));
  spec.mutable_operators(1)->set_kind("keyed-summ");
  base::Status st = JobRunner::Create(spec, {}).status();
  ASSERT_STATUS(st, kInvalidArgument, "unknown kind 'keyed-summ'");
  spec = SpecFromJson(KeyedSum("HASH"));
  (*spec.mutable_operators(0)->mutable_params()->mutable_fields())["to"].set_string_value("x");
  st = JobRunner::Create(spec, {}).status();
  ASSERT_STATUS(st, kInvalidArgument, "params.to");
}

TEST(JobRunnerTest, IntervalWithoutCheckpointDirIsRejected) {
  JobRunnerOptions o;
  o.interval_ms = 100;
  base::Status st = JobRunner::Create(SpecFromJson(KeyedSum("HASH")), o).status();
  ASSERT_STATUS(st, kInvalidArgument, "--checkpoint-dir");
}

TEST(JobRunnerTest, ParallelismAboveMaxParallelismIsRejected) {
  JobRunnerOptions o;
  o.parallelism = 200;  // the parsed spec derived max parallelism 128
  base::Status st = JobRunner::Create(SpecFromJson(KeyedSum("HASH")), o).status();
  ASSERT_STATUS(st, kInvalidArgument, "parallelism");
}

// Test operators: a source counting what it emitted, a sink sleeping per record.
std::atomic<int64_t> g_emitted{0};
std::atomic<int64_t> g_consumed{0};

class CountingSource final : public SourceOperator {
 public:
  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Result<SourceStatus> PollNext() override {
    for (int i = 0; i < 100; ++i) {
      Record r(format::Value(g_emitted.load()));
      CKPT_RETURN_IF_ERROR(ctx_->output().Collect(r));
      ++g_emitted;
    }
    return SourceStatus::kMoreAvailable;
  }

 private:
  OperatorContext* ctx_ = nullptr;
};

class SlowSink final : public Operator {
 public:
  base::Status Open(OperatorContext&) override { return base::Status::OK(); }
  base::Status ProcessElement(Record&) override {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ++g_consumed;
    return base::Status::OK();
  }
};

// Emits kPaddedRecords records of 300 bytes, each spanning two 256-byte buffers, then ends.
constexpr int64_t kPaddedRecords = 2000;
std::atomic<int64_t> g_padded_emitted{0};

class PaddedSource final : public SourceOperator {
 public:
  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Result<SourceStatus> PollNext() override {
    if (g_padded_emitted.load() == kPaddedRecords) return SourceStatus::kEndOfInput;
    Record r(format::Value(std::string(300, 'p')));
    CKPT_RETURN_IF_ERROR(ctx_->output().Collect(r));
    ++g_padded_emitted;
    return SourceStatus::kMoreAvailable;
  }

 private:
  OperatorContext* ctx_ = nullptr;
};

class CountingSink final : public Operator {
 public:
  base::Status Open(OperatorContext&) override { return base::Status::OK(); }
  base::Status ProcessElement(Record&) override {
    ++g_consumed;
    return base::Status::OK();
  }
};

class FailingSink final : public Operator {
 public:
  base::Status Open(OperatorContext&) override { return base::Status::OK(); }
  base::Status ProcessElement(Record&) override {
    return base::Status::Internal("sink always fails");
  }
};

std::unique_ptr<OperatorRegistry> TestRegistry() {
  auto r = std::make_unique<OperatorRegistry>();
  EXPECT_OK(r->Register({"counting-source", "", [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(new CountingSource());
                         }, nullptr}));
  EXPECT_OK(r->Register({"slow-sink", "", [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(new SlowSink());
                         }, nullptr}));
  EXPECT_OK(r->Register({"padded-source", "", [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(new PaddedSource());
                         }, nullptr}));
  EXPECT_OK(r->Register({"counting-sink", "", [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(new CountingSink());
                         }, nullptr}));
  EXPECT_OK(r->Register({"failing-sink", "", [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(new FailingSink());
                         }, nullptr}));
  return r;
}

const char* kSourceToSink = R"({"name": "t", "operators": [
  {"id": "src", "kind": "counting-source"}, {"id": "sink", "kind": "%s"}],
  "edges": [{"from": "src", "to": "sink", "partitioning": "REBALANCE"}]})";

std::string SourceToSink(const std::string& sink, const std::string& source = "counting-source") {
  std::string s = kSourceToSink;
  s.replace(s.find("%s"), 2, sink);
  return s.replace(s.find("counting-source"), 15, source);
}

TEST(JobRunnerTest, SlowOperatorBackpressuresTheSource) {
  auto registry = TestRegistry();
  JobRunnerOptions o;
  o.registry = registry.get();
  g_emitted = 0;
  g_consumed = 0;
  ASSERT_OK_AND_ASSIGN(auto runner, JobRunner::Create(SpecFromJson(SourceToSink("slow-sink")), o));
  ASSERT_OK(runner->Start());
  ASSERT_TRUE(ckpt::testing::WaitUntil([] { return g_consumed.load() >= 500; }))
      << "the sink consumed only " << g_consumed.load() << " records";
  const int64_t ahead = g_emitted.load() - g_consumed.load();
  runner->Cancel();
  EXPECT_EQ(runner->Wait().outcome, JobOutcome::kCancelled);
  // In flight at most the source's bounded pool (6 buffers of 32 KiB, ~5 bytes per record) plus
  // one batch: without backpressure the source would have emitted millions by now.
  EXPECT_LT(ahead, 6 * 32 * 1024 / 4 + 100);
  EXPECT_GT(ahead, 0);
}

TEST(JobRunnerTest, FailureExhaustsRestartAttemptsAndNamesTheCause) {
  auto registry = TestRegistry();
  JobRunnerOptions o;
  o.registry = registry.get();
  o.max_restart_attempts = 2;
  o.restart_delay_ms = 1;
  ASSERT_OK_AND_ASSIGN(auto runner,
                       JobRunner::Create(SpecFromJson(SourceToSink("failing-sink")), o));
  ASSERT_OK(runner->Start());
  JobResult r = runner->Wait();
  EXPECT_EQ(r.outcome, JobOutcome::kFailed);
  EXPECT_EQ(r.restarts, 2u);
  ASSERT_STATUS(r.status, kInternal, "sink always fails");
  ASSERT_STATUS(r.status, kInternal, "after 2 restart(s)");
}

TEST(JobRunnerTest, BoundedJobFinishesWithoutCheckpointing) {
  ASSERT_OK_AND_ASSIGN(auto runner, JobRunner::Create(SpecFromJson(KeyedSum("HASH")), {}));
  ASSERT_OK(runner->Start());
  JobResult r = runner->Wait();
  EXPECT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  EXPECT_EQ(r.restarts, 0u);
}

// Records span buffers and the pool is as small as it gets (one credit per channel), so the
// source is backpressured while its current buffer holds the start of a record whose end the
// consumer waits for. With flushes only when full or when a task waits (buffer timeout -1),
// the job ends only because a backpressured task sends its partly filled buffer at once; before,
// each such wait lasted until the next periodic flush, and here it would last forever.
TEST(JobRunnerTest, BackpressuredTaskSendsItsPartlyFilledBuffer) {
  auto registry = TestRegistry();
  JobRunnerOptions o;
  o.registry = registry.get();
  o.network.buffer_bytes = 256;
  o.network.buffers_per_channel = 1;
  o.network.buffer_timeout_ms = -1;
  g_padded_emitted = 0;
  g_consumed = 0;
  ASSERT_OK_AND_ASSIGN(
      auto runner, JobRunner::Create(SpecFromJson(SourceToSink("counting-sink", "padded-source")), o));
  ASSERT_OK(runner->Start());
  const bool all = ckpt::testing::WaitUntil([] { return g_consumed.load() == kPaddedRecords; });
  if (!all) runner->Cancel();
  JobResult r = runner->Wait();
  ASSERT_TRUE(all) << "the sink got " << g_consumed.load() << " of " << g_padded_emitted.load()
                   << " records emitted";
  EXPECT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
}

// Drain: a stop-with-savepoint with drain advances event time to the end before the savepoint.
std::atomic<int64_t> g_last_watermark{0};

class WatermarkRecorder final : public Operator {
 public:
  base::Status Open(OperatorContext&) override { return base::Status::OK(); }
  base::Status ProcessElement(Record&) override { return base::Status::OK(); }
  base::Status ProcessWatermark(int64_t watermark) override {
    g_last_watermark = watermark;
    return base::Status::OK();
  }
};

// A coordinator whose state is a counter of requests; remembers what it was restored from.
std::atomic<int> g_restored_from{-1};

class CountingCoordinator final : public OperatorCoordinator {
 public:
  base::Status Restore(const std::string& state) override {
    count_ = state.empty() ? 0 : std::stoi(state);
    g_restored_from = count_.load();
    return base::Status::OK();
  }
  base::Result<std::string> HandleRequest(uint32_t, const std::string&) override {
    return std::to_string(++count_);
  }
  base::Result<std::string> SnapshotState(int64_t) override { return std::to_string(count_.load()); }

 private:
  std::atomic<int> count_{0};
};

// Asks its coordinator for a "split" per poll and emits a watermark of 0.
class CoordinatedSource final : public SourceOperator {
 public:
  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Result<SourceStatus> PollNext() override {
    CKPT_ASSIGN_OR_RETURN(std::string split, ctx_->coordinator()->HandleRequest(0, "next"));
    Record r(format::Value(std::stoll(split)));
    CKPT_RETURN_IF_ERROR(ctx_->output().Collect(r));
    CKPT_RETURN_IF_ERROR(ctx_->output().EmitWatermark(0));
    return SourceStatus::kNothingAvailable;
  }

 private:
  OperatorContext* ctx_ = nullptr;
};

std::unique_ptr<OperatorRegistry> CoordinatedRegistry() {
  auto r = std::make_unique<OperatorRegistry>();
  EXPECT_OK(r->Register(
      {"coordinated-source", "",
       [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
         return std::unique_ptr<Operator>(new CoordinatedSource());
       },
       [](const OperatorParams&, uint32_t) -> base::Result<std::unique_ptr<OperatorCoordinator>> {
         return std::unique_ptr<OperatorCoordinator>(new CountingCoordinator());
       }}));
  EXPECT_OK(r->Register({"watermark-recorder", "",
                         [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(new WatermarkRecorder());
                         },
                         nullptr}));
  return r;
}

const char* kCoordinated = R"({"name": "t", "operators": [
  {"id": "src", "kind": "coordinated-source", "uid": "src"},
  {"id": "rec", "kind": "watermark-recorder", "uid": "rec"}],
  "edges": [{"from": "src", "to": "rec", "partitioning": "REBALANCE"}]})";

TEST(JobRunnerTest, CoordinatorStateIsSavedAndRestoredAndDrainEndsEventTime) {
  ckpt::testing::TempDir tmp;
  auto registry = CoordinatedRegistry();
  JobRunnerOptions o;
  o.registry = registry.get();
  o.savepoint_dir = tmp.Sub("savepoints");
  g_restored_from = -1;
  g_last_watermark = kNoTimestamp;
  ASSERT_OK_AND_ASSIGN(auto first, JobRunner::Create(SpecFromJson(kCoordinated), o));
  ASSERT_OK(first->Start());
  ASSERT_TRUE(ckpt::testing::WaitUntil([] { return g_last_watermark.load() == 0; }))
      << "no watermark reached the recorder";
  EXPECT_EQ(g_restored_from.load(), 0);  // fresh start: empty state
  ASSERT_OK_AND_ASSIGN(std::string savepoint, first->StopWithSavepoint(/*drain=*/true));
  EXPECT_EQ(first->Wait().outcome, JobOutcome::kStopped);
  EXPECT_EQ(g_last_watermark.load(), kMaxWatermark);  // drained

  o.restore_path = savepoint;
  ASSERT_OK_AND_ASSIGN(auto second, JobRunner::Create(SpecFromJson(kCoordinated), o));
  ASSERT_OK(second->Start());
  ASSERT_OK_AND_ASSIGN(std::string again, second->StopWithSavepoint(/*drain=*/false));
  EXPECT_EQ(second->Wait().outcome, JobOutcome::kStopped);
  // The coordinator came back with the request count it had when the savepoint was triggered.
  EXPECT_GT(g_restored_from.load(), 0);
}

}  // namespace
}  // namespace ckpt::engine
