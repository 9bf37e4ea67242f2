// Changelog backend ITCases and the kill -9 campaign per backend. The keyed-sum job (sequence
// source -> failure injector -> keyed sum -> two-phase-commit file sink):
//   - changelog over heap and over RocksDB: committed output is exactly-once across an injected
//     failure (restore = materialization + log replay), with a short materialization interval so
//     checkpoints both materialize and append segments;
//   - a checkpoint written with changelog on restores with changelog off, and one written
//     without changelog restores with it on (from heap also switching to RocksDB);
//   - a retained changelog checkpoint taken at parallelism 2 restores at parallelism 3;
//   - kill -9 of the ckpt-engine process while it checkpoints, resumed with --from-latest, for
//     heap, RocksDB full, RocksDB incremental, changelog over heap and changelog over RocksDB:
//     the committed output is exact and every retained snapshot is intact.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/layout.h"
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

JobRunnerOptions Options(const testing::TempDir& tmp, const std::string& backend, bool changelog) {
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.parallelism = 2;
  o.num_retained = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.state_backend = backend;
  o.incremental = backend == "rocksdb";
  o.changelog = changelog;
  o.changelog_materialization_interval_ms = 300;
  o.state_local_dir = tmp.Sub("local");
  return o;
}

class ChangelogITCase : public ::testing::TestWithParam<std::string> {};

TEST_P(ChangelogITCase, CommittedOutputIsExactUnderAFailure) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  job.map_kind = "failure-injector";
  job.map_params_json = R"({"fail_at_record": 30000, "max_failures": 1})";
  JobRunnerOptions o = Options(tmp, GetParam(), true);
  o.max_restart_attempts = 3;
  o.restart_delay_ms = 20;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(KeyedSumJobSpec(job), o));
  ASSERT_OK(runner->Start());
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  EXPECT_GE(r.restarts, 1u);
  ExpectExact(VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true));
  EXPECT_OK(VerifyAllSnapshots(tmp.Sub("checkpoints")).status());
}

// Runs `first` until 3 checkpoints completed, cancels, and resumes from the newest retained
// checkpoint with `second`'s options; the committed output of both runs must be exact.
void SwitchAcrossRestore(const testing::TempDir& tmp, JobRunnerOptions first_o,
                         JobRunnerOptions second_o) {
  KeyedSumJob first = BackendITCaseJob(tmp.Sub("out-1"));
  // About 10 s of input, so the first run is still running when it is cancelled after its 4th
  // checkpoint however slow checkpoints are. (At 60000 records/s it had 1 s: under TSan and a
  // loaded machine RocksDB checkpoints took long enough that it finished first, or finished
  // with 3 and the wait for the 4th timed out.) The resumed run is not throttled.
  first.rate_per_second = 6000;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner,
                       JobRunner::Create(KeyedSumJobSpec(first), first_o));
  ASSERT_OK(runner->Start());
  JobRunner* r0 = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r0->checkpoint_counts().completed >= 4; }));
  runner->Cancel();
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kCancelled) << r.status.ToString();
  const std::string job_dir = base::JoinPath(first_o.checkpoint_dir, first.job_id);
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
  KeyedSumJob second = first;
  second.sink_dir = tmp.Sub("out-2");
  second.rate_per_second = 0;
  second_o.checkpoint_dir = tmp.Sub("checkpoints-2");
  second_o.restore_path = base::JoinPath(job_dir, "chk-" + std::to_string(newest));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> resumed,
                       JobRunner::Create(KeyedSumJobSpec(second), second_o));
  ASSERT_OK(resumed->Start());
  JobResult r2 = resumed->Wait();
  ASSERT_EQ(r2.outcome, JobOutcome::kFinished) << r2.status.ToString();
  ExpectExact(VerifyCommitted({first.sink_dir, second.sink_dir}, second, /*check_sums=*/true));
}

TEST_P(ChangelogITCase, ChangelogOnThenOffAcrossARestore) {
  testing::TempDir tmp;
  SwitchAcrossRestore(tmp, Options(tmp, GetParam(), true), Options(tmp, GetParam(), false));
}

// From heap this also switches the backend (a heap checkpoint is canonical and restores into
// RocksDB; a native RocksDB checkpoint restores into RocksDB only).
TEST_P(ChangelogITCase, ChangelogOffThenOnAcrossARestoreIntoRocksDb) {
  testing::TempDir tmp;
  SwitchAcrossRestore(tmp, Options(tmp, GetParam(), false), Options(tmp, "rocksdb", true));
}

// Rescale 2 -> 3 of a retained changelog checkpoint (materialization + log filtered by key
// group), changelog still on.
TEST_P(ChangelogITCase, RetainedCheckpointRescalesFromTwoToThree) {
  testing::TempDir tmp;
  JobRunnerOptions second = Options(tmp, GetParam(), true);
  second.parallelism = 3;
  SwitchAcrossRestore(tmp, Options(tmp, GetParam(), true), second);
}

INSTANTIATE_TEST_SUITE_P(Inner, ChangelogITCase, ::testing::Values("heap", "rocksdb"),
                         [](const auto& i) { return std::string(i.param); });

// kill -9 campaign per backend (the pattern of kill_itcase.cpp, fewer kills per backend), and
// one that switches backend and changelog on every resume.
struct KillCase {
  const char* name;
  // The backend flags of run r: rounds[min(r, rounds.size() - 1)] (run 0 is the first start,
  // each later one a --from-latest resume after a kill).
  std::vector<std::vector<std::string>> rounds;
};

class BackendKillITCase : public ::testing::TestWithParam<KillCase> {};

// The newest checkpoint of the job with a published `_metadata` (0: none).
int64_t Published(const std::string& job_dir) {
  int64_t n = 0;
  auto entries = base::Fs::Default().ListDir(job_dir);
  if (!entries.ok()) return 0;
  for (const auto& e : *entries) {
    if (e.name.rfind("chk-", 0) == 0 &&
        base::Fs::Default()
            .Stat(base::JoinPath(base::JoinPath(job_dir, e.name), format::kMetadataFileName))
            .ok()) {
      n = std::max<int64_t>(n, std::stoll(e.name.substr(4)));
    }
  }
  return n;
}

TEST_P(BackendKillITCase, ResumesFromLatestAfterKillsDuringCheckpointing) {
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it";
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = JobIdFor(std::string("kill-") + GetParam().name);
  job.from = 1;
  job.to = 60000;
  job.splits = 4;
  job.keys = 32;
  job.rate_per_second = 12000;  // ~5 s of input: every kill lands before the end
  job.sink_dir = tmp.Sub("out");
  const std::string spec = tmp.Sub("job.json");
  std::ofstream(spec) << KeyedSumJobJson(job);
  const std::string ckpt = tmp.Sub("checkpoints");
  const std::string job_dir = ckpt + "/" + job.job_id;
  const std::string log = tmp.Sub("engine.log");
  const std::vector<std::string> base = {CKPT_ENGINE_BINARY, "run", spec, "--checkpoint-dir",
                                         ckpt, "--interval", "50", "-p", "2", "--num-retained",
                                         "2", "--state-local-dir", tmp.Sub("local")};
  const auto run_args = [&](int round) {
    const auto& rounds = GetParam().rounds;
    std::vector<std::string> args = base;
    for (const auto& f : rounds[std::min<size_t>(static_cast<size_t>(round), rounds.size() - 1)]) {
      args.push_back(f);
    }
    if (round > 0) {
      args.push_back("--from-latest");
      args.push_back(job_dir);
    }
    return args;
  };

  // A checkpoint every 50 ms: a kill at a random moment lands in one most of the time.
  std::mt19937 rng(777);
  std::uniform_int_distribution<int> delay_ms(0, 300);
  constexpr int kKills = 4;
  int64_t published = 0;
  for (int round = 0; round < kKills; ++round) {
    pid_t pid = Spawn(run_args(round), log);
    ASSERT_GT(pid, 0);
    // Kill only once this run published a checkpoint (a loaded machine starts slowly), then at
    // a random moment: with a checkpoint every 50 ms it lands in one most of the time.
    const int64_t before = published;
    ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return Published(job_dir) > before; },
                                         std::chrono::seconds(30)))
        << ReadFile(log);
    published = Published(job_dir);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(WaitExit(pid), 128 + SIGKILL) << ReadFile(log);
  }
  pid_t pid = Spawn(run_args(kKills), log);
  ASSERT_EQ(WaitExit(pid), 0) << ReadFile(log);

  const std::string output = ReadFile(log);
  EXPECT_EQ(Count(output, "Job finished"), 1u) << output;
  EXPECT_GE(Count(output, "Restoring from "), 2u) << output;

  Verification v = VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true);
  ExpectExact(v);
  base::Result<int> checked = VerifyAllSnapshots(ckpt);
  ASSERT_OK(checked.status());
}

INSTANTIATE_TEST_SUITE_P(
    Backends, BackendKillITCase,
    ::testing::Values(
        KillCase{"Heap", {{"--state-backend", "heap"}}},
        KillCase{"RocksDbFull", {{"--state-backend", "rocksdb", "--incremental", "false"}}},
        KillCase{"RocksDbIncremental", {{"--state-backend", "rocksdb", "--incremental", "true"}}},
        KillCase{"ChangelogHeap",
                 {{"--state-backend", "heap", "--changelog", "on",
                   "--changelog-materialization-interval", "200"}}},
        KillCase{"ChangelogRocksDb",
                 {{"--state-backend", "rocksdb", "--incremental", "true", "--changelog", "on",
                   "--changelog-materialization-interval", "200"}}},
        // Each resume switches: heap, changelog on (over heap), off again, onto RocksDB
        // (a heap checkpoint is canonical), changelog on over RocksDB. (A native RocksDB
        // checkpoint restores into RocksDB only, so RocksDB comes last.)
        KillCase{"SwitchingBackendAndChangelog",
                 {{"--state-backend", "heap"},
                  {"--state-backend", "heap", "--changelog", "on",
                   "--changelog-materialization-interval", "200"},
                  {"--state-backend", "heap", "--changelog", "off"},
                  {"--state-backend", "rocksdb", "--incremental", "true"},
                  {"--state-backend", "rocksdb", "--incremental", "true", "--changelog", "on",
                   "--changelog-materialization-interval", "200"}}}),
    [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace ckpt::itcase
