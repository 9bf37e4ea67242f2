// Restores that no retry can fix fail at once: `ckpt-engine run -s` of a native RocksDB
// savepoint into a heap job, of state that maps to no operator without -n, and with a changed
// max parallelism each exits 1 before any attempt starts (no "started", no restart line), with
// one line naming the operator and what is wrong; state that a task cannot restore because it
// does not fit the operator (a state declared with another kind) fails the job on its first
// attempt although restarts are left. A forced checkpoint failure (failure-injector while
// snapshotting) is logged with its cause and shown with it by GET /jobs/:id/checkpoints, in
// the history and as latest.failed.
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobResult;
using engine::JobRunner;
using engine::JobRunnerOptions;
using nlohmann::json;

// Savepoints of the keyed-sum job on the RocksDB backend: one NATIVE, one CANONICAL.
class RestoreFailFastITCase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new testing::TempDir();
    job_ = new KeyedSumJob();
    job_->to = 1000000000;  // never ends on its own: cancelled below
    job_->rate_per_second = 20000;
    job_->sink_dir = tmp_->Sub("out");
    JobRunnerOptions o;
    o.checkpoint_dir = tmp_->Sub("checkpoints");
    o.savepoint_dir = tmp_->Sub("savepoints");
    o.interval_ms = 0;
    o.parallelism = 2;
    o.state_backend = "rocksdb";
    o.state_local_dir = tmp_->Sub("rocksdb");
    base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(KeyedSumJobSpec(*job_), o);
    ASSERT_OK(runner.status());
    ASSERT_OK((*runner)->Start());
    base::Result<std::string> native = (*runner)->TriggerSavepoint(o.savepoint_dir, pb::NATIVE);
    base::Result<std::string> canonical =
        (*runner)->TriggerSavepoint(o.savepoint_dir, pb::CANONICAL);
    (*runner)->Cancel();
    (*runner)->Wait();
    ASSERT_OK(native.status());
    ASSERT_OK(canonical.status());
    native_ = new std::string(*native);
    canonical_ = new std::string(*canonical);
  }
  static void TearDownTestSuite() {
    delete native_;
    delete canonical_;
    delete job_;
    delete tmp_;
  }

  struct CliRun {
    int exit_code = -1;
    std::string output;
  };
  // `ckpt-engine run` of `job` (as a heap job unless `extra` says otherwise) from `snapshot`,
  // with restarts left (--max-restarts 3) and checkpointing on.
  static CliRun RunFrom(const std::string& name, const KeyedSumJob& job,
                        const std::string& snapshot, std::vector<std::string> extra = {}) {
    const std::string spec = tmp_->Sub(name + ".json");
    std::ofstream(spec) << KeyedSumJobJson(job);
    std::vector<std::string> args = {kEngine, "run", spec, "-s", snapshot, "--checkpoint-dir",
                                     tmp_->Sub(name + "-checkpoints"), "--interval", "50",
                                     "--max-restarts", "3", "--restart-delay", "0", "-p", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string log = tmp_->Sub(name + ".log");
    CliRun r;
    r.exit_code = WaitExit(Spawn(args, log));
    r.output = ReadFile(log);
    return r;
  }

  // The run failed before any attempt: exit 1, nothing started or restarted, and exactly one
  // line (the refusal) that contains each of `needles`.
  static void ExpectRefusedAtOnce(const CliRun& r, const std::vector<std::string>& needles) {
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(r.output.find("started"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("restart"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Restarting"), std::string::npos) << r.output;
    std::istringstream lines(r.output);
    std::vector<std::string> refusals;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("cannot restore") != std::string::npos) refusals.push_back(line);
    }
    ASSERT_EQ(refusals.size(), 1u) << r.output;
    EXPECT_EQ(refusals[0].rfind("ckpt-engine run: InvalidArgument: cannot restore ", 0), 0u)
        << refusals[0];
    for (const std::string& n : needles) {
      EXPECT_NE(refusals[0].find(n), std::string::npos) << "'" << n << "' in " << refusals[0];
    }
  }

  static testing::TempDir* tmp_;
  static KeyedSumJob* job_;
  static std::string* native_;
  static std::string* canonical_;
};

testing::TempDir* RestoreFailFastITCase::tmp_ = nullptr;
KeyedSumJob* RestoreFailFastITCase::job_ = nullptr;
std::string* RestoreFailFastITCase::native_ = nullptr;
std::string* RestoreFailFastITCase::canonical_ = nullptr;

TEST_F(RestoreFailFastITCase, NativeRocksDbSavepointIntoHeapJobExitsOneAtOnce) {
  ASSERT_STRNE(kEngine, "") << "ckpt-engine is not built: this test needs it";
  ASSERT_NE(native_, nullptr);
  ExpectRefusedAtOnce(RunFrom("native-into-heap", *job_, *native_, {"--state-backend", "heap"}),
                      {"uid 'sum'", "RocksDB's native format", "state backend is heap",
                       "--state-backend rocksdb"});
}

TEST_F(RestoreFailFastITCase, UnmappedStateWithoutAllowNonRestoredExitsOneAtOnce) {
  ASSERT_STRNE(kEngine, "") << "ckpt-engine is not built: this test needs it";
  ASSERT_NE(canonical_, nullptr);
  KeyedSumJob renamed = *job_;
  renamed.sum_uid = "sum-v2";  // the savepoint's "sum" state maps to no operator any more
  ExpectRefusedAtOnce(RunFrom("unmapped", renamed, *canonical_),
                      {"1 operator(s) that the new job does not contain", "uid 'sum'",
                       "--allow-non-restored-state (-n)"});
}

TEST_F(RestoreFailFastITCase, MaxParallelismMismatchExitsOneAtOnce) {
  ASSERT_STRNE(kEngine, "") << "ckpt-engine is not built: this test needs it";
  ASSERT_NE(canonical_, nullptr);
  KeyedSumJob changed = *job_;
  changed.sum_max_parallelism = 256;  // the savepoint's keyed sum has 128 key groups
  ExpectRefusedAtOnce(RunFrom("max-parallelism", changed, *canonical_),
                      {"uid 'sum'", "max parallelism 256", "written with max parallelism 128"});
}

// Keyed sum's operator, but declaring its keyed state "sum" as a map state: the restored value
// state does not fit it.
class SumAsMapOp final : public engine::Operator {
 public:
  bool RequiresKeyedInput() const override { return true; }
  base::Status InitializeState(engine::OperatorContext& ctx, bool restoring) override {
    (void)restoring;
    return ctx.keyed_state()
        ->GetMapState(engine::MapStateDescriptor("sum", format::types::Int64(),
                                                 format::types::Int64()))
        .status();
  }
  base::Status Open(engine::OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Status ProcessElement(engine::Record& record) override {
    return ctx_->output().Collect(record);
  }

 private:
  engine::OperatorContext* ctx_ = nullptr;
};

TEST_F(RestoreFailFastITCase, StateThatDoesNotFitTheOperatorFailsTheFirstAttemptWithoutRestart) {
  ASSERT_NE(canonical_, nullptr);
  engine::OperatorRegistry registry;
  engine::RegisterBuiltinOperators(registry);
  ASSERT_OK(registry.Register(
      {"test-sum-as-map", "keyed-sum's uid with its state declared as a map",
       [](const engine::OperatorParams&) -> base::Result<std::unique_ptr<engine::Operator>> {
         return std::unique_ptr<engine::Operator>(std::make_unique<SumAsMapOp>());
       },
       nullptr}));
  pb::JobSpec spec = KeyedSumJobSpec(*job_);
  for (pb::OperatorSpec& op : *spec.mutable_operators()) {
    if (op.id() == "sum") {
      op.set_kind("test-sum-as-map");
      op.mutable_params()->Clear();
    }
  }
  std::vector<std::string> log;
  std::mutex log_mu;
  JobRunnerOptions o;
  o.registry = &registry;
  o.checkpoint_dir = tmp_->Sub("kind-checkpoints");
  o.interval_ms = 50;
  o.parallelism = 2;
  o.restore_path = *canonical_;
  o.max_restart_attempts = 3;
  o.restart_delay_ms = 0;
  o.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mu);
    log.push_back(line);
  };
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(spec, o);
  ASSERT_OK(runner.status());
  ASSERT_OK((*runner)->Start());
  JobResult r = (*runner)->Wait();
  EXPECT_EQ(r.outcome, JobOutcome::kFailed);
  EXPECT_EQ(r.restarts, 0u) << "a restore that cannot fit was retried";
  EXPECT_NE(r.status.message().find("state 'sum' was STATE_VALUE and is now requested as "
                                    "STATE_MAP"),
            std::string::npos)
      << r.status.ToString();
  std::lock_guard<std::mutex> lock(log_mu);
  bool said_why = false;
  for (const std::string& line : log) {
    EXPECT_EQ(line.find("Restarting"), std::string::npos) << line;
    said_why = said_why || line.find("not restarted") != std::string::npos;
  }
  EXPECT_TRUE(said_why) << "no log line says why the job was not restarted";
}

// A checkpoint that fails (the failure injector fails subtask 0 of "map" while it snapshots
// checkpoint 1, once) is logged with its cause, and GET /jobs/:id/checkpoints carries the
// cause on that checkpoint in the history and as latest.failed. Checkpoints are triggered by
// hand (no periodic ones), so the history holds exactly what the test did.
TEST(CheckpointFailureCauseITCase, ForcedCheckpointFailureIsLoggedAndShownByRest) {
  ASSERT_STRNE(kEngine, "") << "ckpt-engine is not built: this test needs it";
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f";
  job.to = 1000000000;
  job.rate_per_second = 5000;
  job.sink_dir = tmp.Sub("out");
  job.map_kind = "failure-injector";
  job.map_params_json = R"({"fail_at_checkpoint": 1, "max_failures": 1})";
  const std::string spec = tmp.Sub("job.json"), log = tmp.Sub("engine.log");
  std::ofstream(spec) << KeyedSumJobJson(job);
  RestEngine engine({spec, "--checkpoint-dir", tmp.Sub("ckpt"), "--max-restarts", "3",
                     "--restart-delay", "0"},
                    log, tmp.Sub("state.json"));
  ASSERT_GT(engine.port(), 0) << ReadFile(log);
  auto c = engine.Client();
  const std::string jobs = "/jobs/" + job.job_id;

  HttpAnswer trig = HttpPost(*c, jobs + "/checkpoints", json::object().dump());
  ASSERT_EQ(trig.status, 202) << trig.body.dump();
  json op = AwaitOperation(*c, jobs + "/checkpoints/" + trig.body["request-id"].get<std::string>());
  ASSERT_TRUE(op.contains("failure-cause")) << op.dump();
  EXPECT_NE(op.dump().find("injected failure"), std::string::npos) << op.dump();

  json cps = CheckpointsOf(*c, job.job_id);
  ASSERT_TRUE(cps["latest"]["failed"].is_object()) << cps.dump();
  const json& failed = cps["latest"]["failed"];
  EXPECT_EQ(failed["status"], "FAILED") << failed.dump();
  EXPECT_NE(failed.value("failure_message", "").find("injected failure while snapshotting "
                                                     "checkpoint 1"),
            std::string::npos)
      << failed.dump();
  bool in_history = false;
  for (const json& h : cps["history"]) {
    if (h["id"] != failed["id"]) continue;
    in_history = true;
    EXPECT_EQ(h["status"], "FAILED") << h.dump();
    EXPECT_EQ(h.value("failure_message", ""), failed.value("failure_message", "")) << h.dump();
  }
  EXPECT_TRUE(in_history) << cps.dump();
  EXPECT_GE(cps["counts"]["failed"].get<int>(), 1) << cps.dump();

  // The log names the checkpoint and the cause.
  EXPECT_TRUE(testing::WaitUntil([&] {
    return ReadFile(log).find("Checkpoint " + std::to_string(failed["id"].get<int64_t>()) +
                              " failed: ") != std::string::npos;
  })) << ReadFile(log);
  const std::string text = ReadFile(log);
  const size_t at = text.find("Checkpoint " + std::to_string(failed["id"].get<int64_t>()) +
                              " failed: ");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string line = text.substr(at, text.find('\n', at) - at);
  EXPECT_NE(line.find("injected failure while snapshotting checkpoint 1"), std::string::npos)
      << line;
  engine.Kill();
}

}  // namespace
}  // namespace ckpt::itcase
