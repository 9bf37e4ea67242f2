// The engine on S3: the keyed-sum job (sequence source -> keyed sum -> two-phase-commit file
// sink) checkpoints to a bucket on the local s3proxy with each state backend (heap, RocksDB full
// and incremental, changelog) and unaligned; the retained checkpoints are exactly num_retained,
// each validates --deep on S3 (ckpt-tool, as a user runs it), and --from-latest on S3 continues
// with exactly-once output equal to the same job's local run. A savepoint on S3 restores (at
// another parallelism), and `ckpt-engine run --checkpoint-dir s3://...` works end to end.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"
#include "s3_itcase_fixture.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobResult;
using engine::JobRunner;
using engine::JobRunnerOptions;

class EngineS3Test : public S3ITCase {
 protected:
  EngineS3Test() : S3ITCase("engine") {}
};

// Runs ckpt-tool (or ckpt-engine) with `args`: its exit code, and its output in `*out`.
int RunBinary(const std::string& binary, std::vector<std::string> args, const std::string& log,
              std::string* out) {
  args.insert(args.begin(), binary);
  std::filesystem::remove(log);
  const int code = WaitExit(Spawn(args, log));
  *out = ReadFile(log);
  return code;
}

// `ckpt-tool validate --deep LOCATION` is clean (exit 0).
void ExpectValidDeep(const std::string& location, const std::string& log) {
  ASSERT_NE(std::string(kTool), "") << "ckpt-tool was not built";
  std::string out;
  EXPECT_EQ(RunBinary(kTool, {"validate", "--deep", location}, log, &out), 0)
      << location << ":\n" << out;
}

// What a run committed, order aside: per key, the count of lines and the final (largest) sum.
std::map<int64_t, std::pair<int64_t, int64_t>> CommittedByKey(const std::string& sink_dir) {
  std::map<int64_t, std::pair<int64_t, int64_t>> out;
  for (const auto& e : std::filesystem::directory_iterator(sink_dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("part-", 0) != 0) continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      int64_t key = 0, input = 0, sum = 0;
      char c1 = 0, c2 = 0;
      std::istringstream ls(line);
      if (!(ls >> key >> c1 >> input >> c2 >> sum)) continue;
      auto& [count, final_sum] = out[key];
      ++count;
      final_sum = std::max(final_sum, sum);
    }
  }
  return out;
}

// The job's spec; `backpressured`: a slow pass-through behind a HASH edge of its own, so the
// channels into it are full when a barrier comes (an unaligned checkpoint persists them).
pb::JobSpec BackendSpec(KeyedSumJob job, bool backpressured) {
  if (!backpressured) return KeyedSumJobSpec(job);
  job.map_kind = "slow";
  job.map_params_json = R"({"delay_us": 50, "every": 1})";
  std::string json = KeyedSumJobJson(job);
  const std::string forward = R"("to": "map", "partitioning": "FORWARD")";
  json.replace(json.find(forward), forward.size(), R"("to": "map", "partitioning": "HASH")");
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(json, "s3-itcase.json");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? *spec : pb::JobSpec();
}

// The same job, uninterrupted, with local checkpoints: the reference its S3 runs are compared
// with.
std::map<int64_t, std::pair<int64_t, int64_t>> LocalReference(const testing::TempDir& tmp,
                                                              KeyedSumJob job,
                                                              bool backpressured) {
  job.sink_dir = tmp.Sub("out-local");
  job.rate_per_second = 0;
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints-local");
  o.interval_ms = 100;
  o.parallelism = 2;
  base::Result<std::unique_ptr<JobRunner>> runner =
      JobRunner::Create(BackendSpec(job, backpressured), o);
  EXPECT_TRUE(runner.ok()) << runner.status().ToString();
  if (!runner.ok()) return {};
  EXPECT_OK((*runner)->Start());
  JobResult r = (*runner)->Wait();
  EXPECT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  return CommittedByKey(job.sink_dir);
}

struct Backend {
  const char* name;
  const char* state_backend;
  bool incremental;
  bool changelog;
  pb::CheckpointingMode mode;
};

// A test's name and its ctest name say the backend (not the struct's bytes).
void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

class EngineS3BackendTest : public EngineS3Test, public ::testing::WithParamInterface<Backend> {
 protected:
  JobRunnerOptions Options(const testing::TempDir& tmp) {
    JobRunnerOptions o;
    o.fs = fs_.get();
    o.checkpoint_dir = Uri("checkpoints");
    o.savepoint_dir = Uri("savepoints");
    o.interval_ms = 100;
    o.parallelism = 2;
    o.num_retained = 2;
    o.retention = pb::RETAIN_ON_CANCELLATION;
    o.state_backend = GetParam().state_backend;
    o.incremental = GetParam().incremental;
    o.changelog = GetParam().changelog;
    o.changelog_materialization_interval_ms = 300;
    o.mode = GetParam().mode;
    o.state_local_dir = tmp.Sub("local");
    return o;
  }

  // The checkpoint `dir` on S3 holds what its backend writes: RocksDB SSTs (re-referenced from
  // shared/ exactly when the checkpoint is INCREMENTAL), changelog segments, an unaligned
  // checkpoint's mode and metrics.
  void ExpectBackendFiles(const std::string& dir) {
    const std::string md_path = base::JoinPath(dir, format::kMetadataFileName);
    base::Result<std::string> bytes = base::ReadFileToString(*fs_, md_path);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    base::Result<pb::CheckpointMetadata> md = format::DecodeMetadata(*bytes, md_path);
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    std::map<int, int> kinds;
    bool reuses = false;
    for (const pb::FileEntry& f : md->files()) {
      ++kinds[f.kind()];
      reuses = reuses ||
               (f.scope() == pb::SHARED && f.created_by_checkpoint_id() != md->checkpoint_id());
    }
    const Backend& b = GetParam();
    if (std::string(b.state_backend) == "rocksdb") {
      EXPECT_GT(kinds[pb::ROCKSDB_SST], 0) << md_path;
      EXPECT_EQ(md->checkpoint_type(), reuses ? pb::INCREMENTAL : pb::FULL) << md_path;
      if (!b.incremental) {
        EXPECT_FALSE(reuses) << md_path;
      }
    }
    if (b.changelog) {
      EXPECT_GT(kinds[pb::CHANGELOG], 0) << md_path;
    }
    if (b.mode == pb::UNALIGNED) {
      EXPECT_EQ(md->mode(), pb::UNALIGNED) << md_path;
      EXPECT_TRUE(md->metrics().is_unaligned()) << md_path;
      persisted_ += md->metrics().persisted_data();
      channel_state_files_ += kinds[pb::CHANNEL_STATE];
    }
  }

  pb::JobSpec Spec(const KeyedSumJob& job) {
    return BackendSpec(job, GetParam().mode == pb::UNALIGNED);
  }

  uint64_t persisted_ = 0;        // in-flight bytes the checked unaligned checkpoints persisted
  int channel_state_files_ = 0;  // and the channel-state files they wrote
};

// Checkpoints to S3, cancel (checkpoints retained), then resume --from-latest on S3: exactly-once
// output across both runs, the same as the job's uninterrupted local run.
TEST_P(EngineS3BackendTest, CheckpointsRetainValidateAndResumeExactlyOnce) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  JobRunnerOptions first_o = Options(tmp);
  first_o.registry = HoldingSourcesRegistry();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(Spec(job), first_o));
  ASSERT_OK(runner->Start());
  JobRunner* r0 = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r0->checkpoint_counts().completed >= 4; }));
  runner->Cancel();
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kCancelled) << r.status.ToString();
  runner.reset();  // releases the job directory's lease

  // Retention: exactly the two newest completed checkpoints are left, nothing incomplete.
  const std::string job_dir = base::JoinPath(Uri("checkpoints"), job.job_id);
  size_t complete = 0;
  const std::vector<std::string> dirs = CheckpointDirs(job_dir, &complete);
  EXPECT_EQ(dirs.size(), 2u) << ::testing::PrintToString(dirs);
  EXPECT_EQ(complete, dirs.size()) << ::testing::PrintToString(dirs);
  EXPECT_FALSE(fs_->Stat(base::JoinPath(job_dir, format::kJobLockFileName)).ok())
      << "the lease outlived its engine";
  for (const std::string& d : dirs) {
    ExpectValidDeep(base::JoinPath(job_dir, d), tmp.Sub("validate.log"));
    ExpectBackendFiles(base::JoinPath(job_dir, d));
  }
  if (GetParam().mode == pb::UNALIGNED) {
    // The retained unaligned checkpoints persisted in-flight data, as channel-state files on S3.
    EXPECT_GT(persisted_, 0u);
    EXPECT_GT(channel_state_files_, 0);
  }

  JobRunnerOptions o = Options(tmp);
  o.job_id_hex = job.job_id;
  o.restore_from_latest = true;
  KeyedSumJob second = job;
  second.rate_per_second = 0;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> resumed,
                       JobRunner::Create(Spec(second), o));
  EXPECT_NE(resumed->restore_path().find(job_dir + "/chk-"), std::string::npos)
      << resumed->restore_path();
  ASSERT_OK(resumed->Start());
  JobResult r2 = resumed->Wait();
  ASSERT_EQ(r2.outcome, JobOutcome::kFinished) << r2.status.ToString();
  ExpectExact(VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true));
  EXPECT_EQ(CommittedByKey(job.sink_dir),
            LocalReference(tmp, job, GetParam().mode == pb::UNALIGNED));
  // The finished run's retained checkpoints validate too (incremental ones share files with
  // the first run's).
  const std::vector<std::string> after = CheckpointDirs(job_dir, &complete);
  EXPECT_LE(after.size(), 2u) << ::testing::PrintToString(after);
  for (const std::string& d : after) {
    ExpectValidDeep(base::JoinPath(job_dir, d), tmp.Sub("validate.log"));
  }
  // Nothing is left behind: no subsumed checkpoint, no shared file that no retained checkpoint
  // references (prune would delete those).
  std::string plan;
  EXPECT_EQ(RunBinary(kTool, {"prune", "--dry-run", job_dir}, tmp.Sub("prune.log"), &plan), 0)
      << plan;
  EXPECT_NE(plan.find("would free 0 files"), std::string::npos) << plan;
}

// A savepoint on S3 validates and restores at parallelism 3 with exactly-once output.
TEST_P(EngineS3BackendTest, SavepointOnS3RestoresAtAnotherParallelism) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  JobRunnerOptions first_o = Options(tmp);
  first_o.registry = HoldingSourcesRegistry();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(Spec(job), first_o));
  ASSERT_OK(runner->Start());
  JobRunner* r0 = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r0->checkpoint_counts().completed >= 2; }));
  ASSERT_OK_AND_ASSIGN(std::string savepoint, runner->StopWithSavepoint(/*drain=*/false));
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kStopped) << r.status.ToString();
  runner.reset();
  EXPECT_EQ(savepoint.rfind(Uri("savepoints/savepoint-"), 0), 0u) << savepoint;
  ExpectValidDeep(savepoint, tmp.Sub("validate.log"));

  KeyedSumJob second = job;
  second.sink_dir = tmp.Sub("out-p3");
  second.rate_per_second = 0;
  JobRunnerOptions o = Options(tmp);
  o.parallelism = 3;
  o.restore_path = savepoint;
  o.job_id_hex = "";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> resumed,
                       JobRunner::Create(Spec(second), o));
  ASSERT_OK(resumed->Start());
  JobResult r2 = resumed->Wait();
  ASSERT_EQ(r2.outcome, JobOutcome::kFinished) << r2.status.ToString();
  ExpectExact(VerifyCommitted({job.sink_dir, second.sink_dir}, second, /*check_sums=*/true));
  // NO_CLAIM: the savepoint is the user's and stays whole.
  ExpectValidDeep(savepoint, tmp.Sub("validate.log"));
}

INSTANTIATE_TEST_SUITE_P(
    Backends, EngineS3BackendTest,
    ::testing::Values(Backend{"heap", "heap", false, false, pb::ALIGNED_EXACTLY_ONCE},
                      Backend{"rocksdb_full", "rocksdb", false, false, pb::ALIGNED_EXACTLY_ONCE},
                      Backend{"rocksdb_incremental", "rocksdb", true, false,
                              pb::ALIGNED_EXACTLY_ONCE},
                      Backend{"changelog", "heap", false, true, pb::ALIGNED_EXACTLY_ONCE},
                      Backend{"heap_unaligned", "heap", false, false, pb::UNALIGNED}),
    [](const ::testing::TestParamInfo<Backend>& p) { return std::string(p.param.name); });

// A second engine on the same job directory is refused while the first holds its lease.
TEST_F(EngineS3Test, ASecondEngineOnTheJobDirectoryIsRefusedWhileTheLeaseIsHeld) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  JobRunnerOptions o;
  o.fs = fs_.get();
  o.checkpoint_dir = Uri("checkpoints");
  o.interval_ms = 100;
  o.parallelism = 1;
  o.registry = HoldingSourcesRegistry();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(KeyedSumJobSpec(job), o));
  ASSERT_OK(runner->Start());
  JobRunnerOptions second = o;
  second.job_id_hex = job.job_id;
  second.restore_from_latest = true;
  second.allow_empty_start = true;
  second.lock_wait_ms = 100;
  base::Result<std::unique_ptr<JobRunner>> other =
      JobRunner::Create(KeyedSumJobSpec(job), second);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), base::StatusCode::kFailedPrecondition)
      << other.status().ToString();
  EXPECT_NE(other.status().message().find("in use"), std::string::npos)
      << other.status().ToString();
  runner->Cancel();
  runner->Wait();
}

// The savepoint path a `ckpt-engine run` printed ("Savepoint completed. Path: ..."), "" if none.
std::string PrintedSavepoint(const std::string& out) {
  const std::string marker = "Savepoint completed. Path: ";
  const size_t at = out.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  return out.substr(from, out.find('\n', from) - from);
}

// `ckpt-engine run --checkpoint-dir s3://...`: checkpoints and a stop-with-savepoint land on S3
// and validate there; `--from-latest <job-id>` under it resumes from that savepoint (and stops
// with another); `-s s3a://...savepoint` resumes from it with exactly-once output.
TEST_F(EngineS3Test, CliRunsCheckpointsAndResumesFromS3) {
  ASSERT_NE(std::string(kEngine), "") << "ckpt-engine was not built";
  testing::TempDir tmp;
  // Five seconds of input, stopped with a savepoint after one (twice); the last run is unpaced.
  KeyedSumJob job = PacedJob(tmp.Sub("out"), 100000, 16);
  job.rate_per_second = 20000;
  job.job_id = JobIdFor("EngineS3Test.Cli");
  const std::string spec = tmp.Sub("job.json");
  std::ofstream(spec) << KeyedSumJobJson(job);
  KeyedSumJob rest = job;
  rest.rate_per_second = 0;
  const std::string rest_spec = tmp.Sub("job-unpaced.json");
  std::ofstream(rest_spec) << KeyedSumJobJson(rest);
  const std::string job_dir = Uri("cli/checkpoints/" + job.job_id);
  std::string out;
  ASSERT_EQ(RunBinary(kEngine,
                      {"run", spec, "--checkpoint-dir", Uri("cli/checkpoints"), "--interval", "100",
                       "--state-backend", "rocksdb", "--incremental", "true",
                       "--state-local-dir", tmp.Sub("local"), "--stop-with-savepoint-after", "1"},
                      tmp.Sub("run1.log"), &out),
            0)
      << out;
  EXPECT_NE(out.find("checkpoints in " + job_dir), std::string::npos) << out;
  const std::string first = PrintedSavepoint(out);
  EXPECT_EQ(first.rfind(Uri("cli/checkpoints/savepoints/savepoint-"), 0), 0u) << out;
  ExpectValidDeep(first, tmp.Sub("validate.log"));

  // The bare job id under the S3 checkpoint root (file_sink_s3_test and the kill campaign's S3
  // mode name the whole job directory): the newest snapshot is the savepoint the first run
  // stopped with.
  ASSERT_EQ(RunBinary(kEngine,
                      {"run", spec, "--from-latest", job.job_id, "--checkpoint-dir",
                       Uri("cli/checkpoints"), "--interval", "100",
                       "--state-backend", "rocksdb", "--state-local-dir", tmp.Sub("local"),
                       "--stop-with-savepoint-after", "1"},
                      tmp.Sub("run2.log"), &out),
            0)
      << out;
  EXPECT_NE(out.find("Restoring from " + first), std::string::npos) << out;
  const std::string second = PrintedSavepoint(out);
  ASSERT_FALSE(second.empty()) << out;
  ExpectValidDeep(second, tmp.Sub("validate.log"));

  // Resume through s3a:// (the same objects), as Flink's Hadoop filesystem names them.
  const std::string s3a = "s3a://" + second.substr(5);
  ASSERT_EQ(RunBinary(kEngine,
                      {"run", rest_spec, "-s", s3a, "--checkpoint-dir", Uri("cli/checkpoints"),
                       "--interval", "100", "--state-local-dir", tmp.Sub("local")},
                      tmp.Sub("run3.log"), &out),
            0)
      << out;
  EXPECT_NE(out.find("Restoring from " + s3a), std::string::npos) << out;
  ExpectExact(VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true));
}

}  // namespace
}  // namespace ckpt::itcase
