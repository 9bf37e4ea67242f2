// Kill test: the engine runs as a subprocess (the ckpt-engine binary), is SIGKILLed 10 times and
// resumed each time with --from-latest <checkpoint-dir>/<job-id>; the last run completes. The
// committed output must then be exact: no input lost or duplicated, order kept per source split
// and key, every running sum consistent. Each kill lands at a random point counted in published
// checkpoints (0: during startup and restore, before the run published any; 1-3: after that
// many), not in milliseconds: on a loaded machine a fixed delay often ended runs before their
// first checkpoint, and the number of restores the test expected did not happen. A run that
// finishes before its kill is the last one.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

// The highest checkpoint id with a published `_metadata` under `job_dir`, 0 if none.
int64_t HighestPublishedCheckpoint(const std::string& job_dir) {
  const std::string latest = LatestCheckpoint(job_dir);
  if (latest.empty()) return 0;
  const size_t dash = latest.rfind("chk-");
  return dash == std::string::npos ? 0 : std::stoll(latest.substr(dash + 4));
}

// Whether `pid` exited (reaped, its exit code in `*exit_code`), without blocking.
bool ExitedOn(pid_t pid, int* exit_code) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return false;
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

TEST(KillITCase, ResumesFromLatestAfterTenKills) {
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it";
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = "6b696c6c746573740000000000000001";
  job.from = 1;
  job.to = 120000;
  job.splits = 4;
  job.keys = 32;
  job.rate_per_second = 12000;  // ~10 s of input: every kill lands before the end
  job.sink_dir = tmp.Sub("out");
  const std::string spec = tmp.Sub("job.json");
  std::ofstream(spec) << KeyedSumJobJson(job);
  const std::string ckpt = tmp.Sub("checkpoints");
  const std::string job_dir = ckpt + "/" + job.job_id;
  const std::string log = tmp.Sub("engine.log");
  std::vector<std::string> base = {CKPT_ENGINE_BINARY, "run", spec, "--checkpoint-dir", ckpt,
                                   "--interval", "100", "-p", "2"};

  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> checkpoints_before_kill(0, 3);
  // Resumes that had a published checkpoint to restore and ran long enough to say so (one killed
  // at once may die before it prints anything).
  int resumes_with_snapshot = 0;
  bool finished = false;
  for (int round = 0; round <= 10 && !finished; ++round) {
    std::vector<std::string> args = base;
    if (round > 0) {
      args.push_back("--from-latest");
      args.push_back(job_dir);
    }
    const bool restores = round > 0 && !LatestCheckpoint(job_dir).empty();
    pid_t pid = Spawn(args, log);
    ASSERT_GT(pid, 0);
    if (round == 10) {
      ASSERT_EQ(WaitExit(pid), 0) << ReadFile(log);
      resumes_with_snapshot += restores ? 1 : 0;
      finished = true;
      break;
    }
    // The first run always publishes one, so that resumes have something to restore.
    const int wait_for = round == 0 ? 1 + checkpoints_before_kill(rng) % 3
                                    : checkpoints_before_kill(rng);
    const int64_t before = HighestPublishedCheckpoint(job_dir);
    int exit_code = -1;
    ASSERT_TRUE(testing::WaitUntil(
        [&] {
          if (ExitedOn(pid, &exit_code)) return true;
          return HighestPublishedCheckpoint(job_dir) >= before + wait_for;
        },
        std::chrono::milliseconds(120000), std::chrono::milliseconds(5)))
        << "round " << round << ": no checkpoint published\n" << ReadFile(log);
    // It published a checkpoint of its own (or finished): it printed what it restored.
    if (restores && (wait_for > 0 || exit_code >= 0)) ++resumes_with_snapshot;
    if (exit_code >= 0) {  // the input ran out before the kill: this run was the last
      ASSERT_EQ(exit_code, 0) << ReadFile(log);
      finished = true;
      break;
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(WaitExit(pid), 128 + SIGKILL) << ReadFile(log);
  }
  ASSERT_TRUE(finished);

  // One run finished, and every resume that had a published checkpoint restored it (those
  // killed at once may have restored without printing it).
  const std::string output = ReadFile(log);
  EXPECT_EQ(Count(output, "Job finished"), 1u) << output;
  EXPECT_GE(resumes_with_snapshot, 1) << output;
  EXPECT_GE(Count(output, "Restoring from "), static_cast<size_t>(resumes_with_snapshot))
      << output;

  Verification v = VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true);
  ExpectExact(v);
  // Checkpoints a killed run left behind are intact (none half-published).
  base::Result<int> checked = VerifyAllSnapshots(ckpt);
  ASSERT_OK(checked.status());
}

}  // namespace
}  // namespace ckpt::itcase
