// Kill test: the engine runs as a subprocess (the ckpt-engine binary), is SIGKILLed at random
// moments 10 times and resumed each time with --from-latest <checkpoint-dir>/<job-id>; the last
// run completes. The committed output must then be exact: no input lost or duplicated, order
// kept per source split and key, every running sum consistent.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

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
  std::uniform_int_distribution<int> delay_ms(300, 900);
  for (int round = 0; round < 10; ++round) {
    std::vector<std::string> args = base;
    if (round > 0) {
      args.push_back("--from-latest");
      args.push_back(job_dir);
    }
    pid_t pid = Spawn(args, log);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(WaitExit(pid), 128 + SIGKILL) << ReadFile(log);
  }
  std::vector<std::string> args = base;
  args.push_back("--from-latest");
  args.push_back(job_dir);
  pid_t pid = Spawn(args, log);
  ASSERT_EQ(WaitExit(pid), 0) << ReadFile(log);

  // Every kill hit a running job (it never finished early), and resumes restored state.
  const std::string output = ReadFile(log);
  EXPECT_EQ(Count(output, "Job finished"), 1u) << output;
  EXPECT_GE(Count(output, "Restoring from "), 8u) << output;

  Verification v = VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true);
  ExpectExact(v);
  // Checkpoints a killed run left behind are intact (none half-published).
  base::Result<int> checked = VerifyAllSnapshots(ckpt);
  ASSERT_OK(checked.status());
}

}  // namespace
}  // namespace ckpt::itcase
