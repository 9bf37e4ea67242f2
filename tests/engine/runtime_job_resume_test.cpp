// JobRunner resume and reliability (issue 8 defects 2, 6, 8, 9): --from-latest considers every
// snapshot the job wrote or restored from and refuses to start empty when that would repeat
// committed output; the job lock refuses a second engine; every failure and restart is logged
// with its cause and the default restart strategy is bounded; Suspend keeps checkpoints; a
// source new to the restored snapshot starts from its beginning; checkpoints of earlier runs
// are subsumed by retention.
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

constexpr const char* kJobId = "72657375726d6500000000000000000a";

// sequence-source(uid) -> file-sink(sink_uid, out).
pb::JobSpec ResumeSpec(const std::string& out, int64_t to, double rate,
                       const std::string& source_uid, const std::string& sink_uid = "sink",
                       const std::string& sink_kind = "file-sink") {
  std::string json = std::string(R"({"name": "resume-test", "job_id": ")") + kJobId +
                     R"(", "operators": [
    {"id": "src", "kind": "sequence-source", "uid": ")" + source_uid + R"(",
     "params": {"to": )" + std::to_string(to) + R"(, "rate_per_second": )" +
                     std::to_string(rate) + R"(}},
    {"id": "sink", "kind": ")" + sink_kind + R"(", "uid": ")" + sink_uid +
                     R"(", "params": {"path": ")" + out + R"("}}],
    "edges": [{"from": "src", "to": "sink", "partitioning": "FORWARD"}]})";
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(json, "resume-test.json");
  EXPECT_OK(spec.status());
  return spec.ok() ? *spec : pb::JobSpec();
}

// Lines in committed part files of `dir`.
int64_t CountCommittedLines(const std::string& dir) {
  base::Fs& fs = base::Fs::Default();
  base::Result<std::vector<base::DirEntry>> entries = fs.ListDir(dir);
  if (!entries.ok()) return 0;
  int64_t lines = 0;
  for (const base::DirEntry& e : *entries) {
    if (e.name.rfind("part-", 0) != 0) continue;
    base::Result<std::string> text = base::ReadFileToString(fs, base::JoinPath(dir, e.name));
    if (text.ok()) lines += static_cast<int64_t>(std::count(text->begin(), text->end(), '\n'));
  }
  return lines;
}

// Checkpoint directories (complete or not) in `job_dir`.
int CheckpointDirs(const std::string& job_dir, bool complete_only) {
  base::Fs& fs = base::Fs::Default();
  base::Result<std::vector<base::DirEntry>> entries = fs.ListDir(job_dir);
  if (!entries.ok()) return 0;
  int n = 0;
  for (const base::DirEntry& e : *entries) {
    if (!e.is_dir || !format::ParseCheckpointDirName(e.name)) continue;
    if (complete_only &&
        !fs.Stat(base::JoinPath(base::JoinPath(job_dir, e.name), "_metadata")).ok()) {
      continue;
    }
    ++n;
  }
  return n;
}

class JobResumeTest : public ::testing::Test {
 protected:
  JobRunnerOptions Options() {
    JobRunnerOptions o;
    o.checkpoint_dir = tmp_.Sub("checkpoints");
    o.savepoint_dir = tmp_.Sub("savepoints");
    o.interval_ms = 20;
    o.lock_wait_ms = 100;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(line);
    };
    return o;
  }
  JobRunnerOptions FromLatest() {
    JobRunnerOptions o = Options();
    o.restore_from_latest = true;
    o.job_id_hex = kJobId;
    return o;
  }
  std::string JobDir() { return format::JobDir(tmp_.Sub("checkpoints"), kJobId); }
  std::string Log() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const std::string& l : log_) all += l + "\n";
    return all;
  }
  static std::string Report(const JobRunner& r) {
    std::string all;
    for (const std::string& l : r.restore_report()) all += l + "\n";
    return all;
  }
  // Starts a long job and waits until `checkpoints` completed.
  std::unique_ptr<JobRunner> StartWithCheckpoints(JobRunnerOptions o, uint64_t checkpoints) {
    auto runner = JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), o);
    EXPECT_OK(runner.status());
    if (!runner.ok()) return nullptr;
    EXPECT_OK((*runner)->Start());
    JobRunner* r = runner->get();
    EXPECT_TRUE(ckpt::testing::WaitUntil(
        [&] { return r->checkpoint_counts().completed >= checkpoints; }))
        << "only " << r->checkpoint_counts().completed << " checkpoints completed";
    return std::move(*runner);
  }

  ckpt::testing::TempDir tmp_;
  std::mutex mu_;
  std::vector<std::string> log_;
};

TEST_F(JobResumeTest, FromLatestAfterStopWithSavepointRestoresTheSavepoint) {
  std::unique_ptr<JobRunner> first = StartWithCheckpoints(Options(), 2);
  ASSERT_NE(first, nullptr);
  ASSERT_OK_AND_ASSIGN(std::string savepoint, first->StopWithSavepoint(false));
  ASSERT_EQ(first->Wait().outcome, JobOutcome::kStopped);
  first.reset();
  // The stop discarded the checkpoints; only the savepoint (in the savepoint dir) is left.
  EXPECT_EQ(CheckpointDirs(JobDir(), true), 0);

  ASSERT_OK_AND_ASSIGN(
      auto second,
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), FromLatest()));
  EXPECT_EQ(second->restore_path(), savepoint) << Report(*second);
  EXPECT_NE(Report(*second).find("Chose savepoint"), std::string::npos) << Report(*second);
  EXPECT_EQ(second->restore_claim_mode(), pb::NO_CLAIM);
}

TEST_F(JobResumeTest, FromLatestAfterARestoreKilledBeforeItsFirstCheckpointUsesTheSameSnapshot) {
  std::unique_ptr<JobRunner> first = StartWithCheckpoints(Options(), 1);
  ASSERT_NE(first, nullptr);
  ASSERT_OK_AND_ASSIGN(std::string savepoint, first->StopWithSavepoint(false));
  ASSERT_EQ(first->Wait().outcome, JobOutcome::kStopped);
  first.reset();

  // Restored with -s into another checkpoint root, ended before any checkpoint completed.
  JobRunnerOptions o = Options();
  o.checkpoint_dir = tmp_.Sub("checkpoints2");
  o.interval_ms = 3600 * 1000;
  o.restore_path = savepoint;
  {
    ASSERT_OK_AND_ASSIGN(
        auto restored,
        JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), o));
    ASSERT_OK(restored->Start());
    restored->Suspend();
    ASSERT_EQ(restored->Wait().outcome, JobOutcome::kCancelled);
  }
  JobRunnerOptions latest = FromLatest();
  latest.checkpoint_dir = o.checkpoint_dir;
  ASSERT_OK_AND_ASSIGN(
      auto resumed,
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), latest));
  EXPECT_EQ(resumed->restore_path(), savepoint) << Report(*resumed);
  EXPECT_NE(Report(*resumed).find("restored from"), std::string::npos) << Report(*resumed);
}

TEST_F(JobResumeTest, FromLatestRefusesToStartEmptyWhenEveryCheckpointIsCorrupt) {
  JobRunnerOptions o = Options();
  o.num_retained = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  std::unique_ptr<JobRunner> first = StartWithCheckpoints(o, 3);
  ASSERT_NE(first, nullptr);
  first->Cancel();
  ASSERT_EQ(first->Wait().outcome, JobOutcome::kCancelled);
  first.reset();
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(JobDir()));
  int corrupted = 0;
  for (const base::DirEntry& e : entries) {
    const std::string md = base::JoinPath(base::JoinPath(JobDir(), e.name), "_metadata");
    if (!e.is_dir || !fs.Stat(md).ok()) continue;
    ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(fs, md));
    bytes[bytes.size() / 2] ^= 0x20;
    ASSERT_OK(base::WriteFileAtomic(fs, md, bytes));
    ++corrupted;
  }
  ASSERT_GE(corrupted, 1);

  base::Status refused =
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), FromLatest())
          .status();
  ASSERT_STATUS(refused, kFailedPrecondition, "starting empty would repeat committed output");
  ASSERT_STATUS(refused, kFailedPrecondition, "--allow-empty-start");

  JobRunnerOptions anyway = FromLatest();
  anyway.allow_empty_start = true;
  ASSERT_OK_AND_ASSIGN(
      auto runner,
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), anyway));
  EXPECT_EQ(runner->restore_path(), "");
  EXPECT_NE(Report(*runner).find("--allow-empty-start"), std::string::npos) << Report(*runner);
}

TEST_F(JobResumeTest, FromLatestStartsEmptyOnlyWhenTheJobNeverPublishedAnything) {
  // No job directory at all: probably a wrong id or root.
  ASSERT_STATUS(
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 10, 0, "numbers"), FromLatest()).status(),
      kNotFound, "does not exist");
  // Killed before its first checkpoint: an incomplete chk-1 only.
  ASSERT_OK(base::Fs::Default().CreateDirs(base::JoinPath(JobDir(), "chk-1")));
  ASSERT_OK_AND_ASSIGN(
      auto runner, JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 10, 0, "numbers"), FromLatest()));
  EXPECT_EQ(runner->restore_path(), "");
  EXPECT_NE(Report(*runner).find("was ever published"), std::string::npos) << Report(*runner);
  // Its leftover is gone: no writer can come back to it while we hold the lock.
  EXPECT_FALSE(base::Fs::Default().Stat(base::JoinPath(JobDir(), "chk-1")).ok());
}

TEST_F(JobResumeTest, FromLatestOfAFinishedJobIsRefused) {
  JobRunnerOptions o = Options();
  ASSERT_OK_AND_ASSIGN(auto first,
                       JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 20000, 50000, "numbers"), o));
  ASSERT_OK(first->Start());
  JobResult r = first->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  first.reset();
  EXPECT_EQ(CountCommittedLines(tmp_.Sub("out")), 20000);
  ASSERT_STATUS(
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 20000, 50000, "numbers"), FromLatest())
          .status(),
      kFailedPrecondition, "already finished");
}

TEST_F(JobResumeTest, SecondEngineOnTheSameJobIsRefused) {
  std::unique_ptr<JobRunner> first = StartWithCheckpoints(Options(), 1);
  ASSERT_NE(first, nullptr);
  base::Status second =
      JobRunner::Create(ResumeSpec(tmp_.Sub("out2"), 100000000, 20000, "numbers"), FromLatest())
          .status();
  ASSERT_STATUS(second, kFailedPrecondition, "another engine runs this job");
  first->Suspend();
  EXPECT_EQ(first->Wait().outcome, JobOutcome::kCancelled);
  first.reset();
  // Released with the first engine: now it may resume.
  EXPECT_OK(
      JobRunner::Create(ResumeSpec(tmp_.Sub("out2"), 100000000, 20000, "numbers"), FromLatest())
          .status());
}

TEST_F(JobResumeTest, EveryFailureIsLoggedWithItsCauseAndDefaultRestartsAreBounded) {
  JobRunnerOptions o = Options();
  o.restart_delay_ms = 1;  // no max_restart_attempts: the default applies
  // The sink directory is a regular file: every attempt fails opening its part file.
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), tmp_.Sub("not-a-dir"), "x"));
  ASSERT_OK_AND_ASSIGN(auto runner,
                       JobRunner::Create(ResumeSpec(tmp_.Sub("not-a-dir"), 1000, 0, "numbers"), o));
  ASSERT_OK(runner->Start());
  std::future<JobResult> done = std::async(std::launch::async, [&] { return runner->Wait(); });
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    runner->Cancel();
    done.wait();
    FAIL() << "the job kept restarting: " << Log();
  }
  JobResult r = done.get();
  EXPECT_EQ(r.outcome, JobOutcome::kFailed);
  EXPECT_EQ(r.restarts, 3u);
  const std::string log = Log();
  EXPECT_NE(log.find("restart 1 of 3"), std::string::npos) << log;
  EXPECT_NE(log.find("restart 3 of 3"), std::string::npos) << log;
  EXPECT_NE(log.find("no restart left"), std::string::npos) << log;
  EXPECT_NE(log.find("not-a-dir"), std::string::npos) << log;  // the cause, every time
  EXPECT_NE(r.status.message().find("not-a-dir"), std::string::npos) << r.status.ToString();
}

TEST_F(JobResumeTest, SuspendKeepsCheckpointsWhateverTheRetentionPolicy) {
  std::unique_ptr<JobRunner> first = StartWithCheckpoints(Options(), 1);  // NO_EXTERNALIZED
  ASSERT_NE(first, nullptr);
  first->Suspend();
  EXPECT_EQ(first->Wait().outcome, JobOutcome::kCancelled);
  first.reset();
  EXPECT_GE(CheckpointDirs(JobDir(), true), 1);

  ASSERT_OK_AND_ASSIGN(
      auto second,
      JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), FromLatest()));
  EXPECT_NE(second->restore_path(), "");
  ASSERT_OK(second->Start());
  second->Cancel();  // a cancel applies the policy: NO_EXTERNALIZED discards
  EXPECT_EQ(second->Wait().outcome, JobOutcome::kCancelled);
  second.reset();
  EXPECT_EQ(CheckpointDirs(JobDir(), true), 0);
}

TEST_F(JobResumeTest, CheckpointsOfEarlierRunsAreSubsumedAcrossResumes) {
  JobRunnerOptions o = Options();
  o.num_retained = 2;
  for (int round = 0; round < 4; ++round) {
    JobRunnerOptions r = round == 0 ? o : FromLatest();
    r.num_retained = 2;
    auto runner = JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), r);
    ASSERT_OK(runner.status());
    ASSERT_OK((*runner)->Start());
    JobRunner* job = runner->get();
    ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return job->checkpoint_counts().completed >= 3; }));
    job->Suspend();  // as a kill: everything stays on disk
    job->Wait();
  }
  // num_retained 2: the two newest complete checkpoints, nothing of the earlier runs.
  EXPECT_EQ(CheckpointDirs(JobDir(), true), 2);
  EXPECT_LE(CheckpointDirs(JobDir(), false), 3);  // at most one in flight at the suspend
}

TEST_F(JobResumeTest, ClaimModeRestoresOfTheJobsOwnCheckpointsDoNotLeakEarlierOnes) {
  for (int round = 0; round < 4; ++round) {
    JobRunnerOptions r = Options();
    r.num_retained = 2;
    if (round > 0) {
      ASSERT_OK_AND_ASSIGN(CompletedCheckpoint latest,
                           FindLatestCheckpoint(base::Fs::Default(), JobDir()));
      r.restore_path = latest.dir;  // -s <chk> --claim-mode claim
      r.claim_mode = pb::CLAIM;
    }
    auto runner = JobRunner::Create(ResumeSpec(tmp_.Sub("out"), 100000000, 20000, "numbers"), r);
    ASSERT_OK(runner.status());
    ASSERT_OK((*runner)->Start());
    JobRunner* job = runner->get();
    ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return job->checkpoint_counts().completed >= 3; }));
    job->Suspend();
    job->Wait();
  }
  EXPECT_EQ(CheckpointDirs(JobDir(), true), 2);
  EXPECT_LE(CheckpointDirs(JobDir(), false), 3);
}

TEST_F(JobResumeTest, SourceNewToTheRestoredSnapshotStartsFromItsBeginning) {
  JobRunnerOptions o;
  o.savepoint_dir = tmp_.Sub("savepoints");
  ASSERT_OK_AND_ASSIGN(
      auto first, JobRunner::Create(ResumeSpec(tmp_.Sub("out1"), 100000000, 5000, "numbers"), o));
  ASSERT_OK(first->Start());
  ASSERT_OK_AND_ASSIGN(std::string savepoint, first->StopWithSavepoint(false));
  ASSERT_EQ(first->Wait().outcome, JobOutcome::kStopped);

  // The source's uid changed (and the sink's): none of the snapshot's state maps, -n skips it.
  JobRunnerOptions again;
  again.restore_path = savepoint;
  again.allow_non_restored_state = true;
  ASSERT_OK_AND_ASSIGN(
      auto second,
      JobRunner::Create(ResumeSpec(tmp_.Sub("out2"), 500, 0, "numbers-v2", "sink-v2"), again));
  ASSERT_OK(second->Start());
  JobResult r = second->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  EXPECT_EQ(CountCommittedLines(tmp_.Sub("out2")), 500);
}

}  // namespace
}  // namespace ckpt::engine
