// RocksDB backend ITCases: the keyed-sum job (sequence source -> failure injector -> keyed sum ->
// two-phase-commit file sink) with --state-backend rocksdb, full and incremental: committed
// output is exactly-once across an injected failure, a retained native checkpoint taken at
// parallelism 2 restores at parallelism 3 (DeleteRange clipping) with exact output, and a
// canonical savepoint resumes on the heap backend (with and without changelog).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobResult;
using engine::JobRunner;
using engine::JobRunnerOptions;

JobRunnerOptions Options(const testing::TempDir& tmp, uint32_t parallelism, bool incremental) {
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.parallelism = parallelism;
  o.num_retained = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.state_backend = "rocksdb";
  o.incremental = incremental;
  o.state_local_dir = tmp.Sub("local");
  return o;
}

class RocksDbITCase : public ::testing::TestWithParam<bool> {};

TEST_P(RocksDbITCase, CommittedOutputIsExactUnderAFailure) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  job.map_kind = "failure-injector";
  job.map_params_json = R"({"fail_at_record": 2500, "max_failures": 1})";
  JobRunnerOptions o = Options(tmp, 2, GetParam());
  o.max_restart_attempts = 3;
  o.restart_delay_ms = 20;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(KeyedSumJobSpec(job), o));
  ASSERT_OK(runner->Start());
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  EXPECT_GE(r.restarts, 1u);
  ExpectExact(VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true));
  // Every retained snapshot decodes and its files match their sizes and checksums.
  EXPECT_OK(VerifyAllSnapshots(tmp.Sub("checkpoints")).status());
}

TEST_P(RocksDbITCase, RetainedCheckpointRescalesFromTwoToThree) {
  testing::TempDir tmp;
  KeyedSumJob first = BackendITCaseJob(tmp.Sub("out-p2"));
  // The first run is cancelled mid-input: its source holds at the end instead of finishing.
  JobRunnerOptions first_o = Options(tmp, 2, GetParam());
  first_o.registry = HoldingSourcesRegistry();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(KeyedSumJobSpec(first), first_o));
  ASSERT_OK(runner->Start());
  JobRunner* r0 = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r0->checkpoint_counts().completed >= 3; }));
  runner->Cancel();
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kCancelled) << r.status.ToString();
  // The newest retained checkpoint.
  const std::string job_dir = base::JoinPath(tmp.Sub("checkpoints"), first.job_id);
  ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> entries, base::Fs::Default().ListDir(job_dir));
  int64_t newest = -1;
  for (const auto& e : entries) {
    if (e.name.rfind("chk-", 0) != 0) continue;
    if (!base::Fs::Default().Stat(base::JoinPath(base::JoinPath(job_dir, e.name),
                                                 format::kMetadataFileName)).ok()) {
      continue;
    }
    newest = std::max<int64_t>(newest, std::stoll(e.name.substr(4)));
  }
  ASSERT_GT(newest, 0);
  const std::string chk = base::JoinPath(job_dir, "chk-" + std::to_string(newest));
  // Its type says what it references: INCREMENTAL exactly when it re-references a shared file
  // an earlier checkpoint uploaded, which a full RocksDB checkpoint never does.
  const std::string md_path = base::JoinPath(chk, format::kMetadataFileName);
  ASSERT_OK_AND_ASSIGN(std::string md_bytes, base::ReadFileToString(base::Fs::Default(), md_path));
  ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata md, format::DecodeMetadata(md_bytes, md_path));
  bool reuses = false;
  for (const pb::FileEntry& f : md.files()) {
    reuses = reuses || (f.scope() == pb::SHARED && f.created_by_checkpoint_id() != newest);
  }
  EXPECT_EQ(md.checkpoint_type(), reuses ? pb::INCREMENTAL : pb::FULL);
  if (!GetParam()) {
    EXPECT_FALSE(reuses);
  }

  KeyedSumJob second = first;
  second.sink_dir = tmp.Sub("out-p3");
  second.rate_per_second = 0;
  JobRunnerOptions o = Options(tmp, 3, GetParam());
  o.checkpoint_dir = tmp.Sub("checkpoints-p3");
  o.restore_path = chk;
  o.job_id_hex = "";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> resumed,
                       JobRunner::Create(KeyedSumJobSpec(second), o));
  ASSERT_OK(resumed->Start());
  JobResult r2 = resumed->Wait();
  ASSERT_EQ(r2.outcome, JobOutcome::kFinished) << r2.status.ToString();
  ExpectExact(VerifyCommitted({first.sink_dir, second.sink_dir}, second, /*check_sums=*/true));
}

// Switching backend: a canonical savepoint of the RocksDB job resumes on the heap backend (and
// on changelog over heap), with exact output across both runs.
TEST_P(RocksDbITCase, CanonicalSavepointResumesOnTheHeapBackend) {
  for (bool changelog : {false, true}) {
    SCOPED_TRACE(changelog ? "changelog over heap" : "heap");
    testing::TempDir tmp;
    KeyedSumJob first = BackendITCaseJob(tmp.Sub("out-rocksdb"));
    first.job_id = JobIdFor(std::string("switch-") + (changelog ? "c" : "h") +
                            (GetParam() ? "i" : "f"));
    // The first run is stopped mid-input: its source holds at the end instead of finishing.
    JobRunnerOptions first_o = Options(tmp, 2, GetParam());
    first_o.registry = HoldingSourcesRegistry();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                         JobRunner::Create(KeyedSumJobSpec(first), first_o));
    ASSERT_OK(runner->Start());
    JobRunner* r0 = runner.get();
    ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r0->checkpoint_counts().completed >= 2; }));
    ASSERT_OK_AND_ASSIGN(std::string savepoint,
                         runner->StopWithSavepoint(/*drain=*/false, tmp.Sub("savepoints"),
                                                   pb::CANONICAL));
    JobResult r = runner->Wait();
    ASSERT_EQ(r.outcome, JobOutcome::kStopped) << r.status.ToString();

    KeyedSumJob second = first;
    second.sink_dir = tmp.Sub("out-heap");
    second.rate_per_second = 0;
    JobRunnerOptions o = Options(tmp, 2, false);
    o.state_backend = "heap";
    o.changelog = changelog;
    o.checkpoint_dir = tmp.Sub("checkpoints-heap");
    o.restore_path = savepoint;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> resumed,
                         JobRunner::Create(KeyedSumJobSpec(second), o));
    ASSERT_OK(resumed->Start());
    JobResult r2 = resumed->Wait();
    ASSERT_EQ(r2.outcome, JobOutcome::kFinished) << r2.status.ToString();
    ExpectExact(VerifyCommitted({first.sink_dir, second.sink_dir}, second, /*check_sums=*/true));
  }
}

INSTANTIATE_TEST_SUITE_P(FullAndIncremental, RocksDbITCase, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "Incremental" : "Full");
                         });

}  // namespace
}  // namespace ckpt::itcase
