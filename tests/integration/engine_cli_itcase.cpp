// The ckpt-engine CLI as a user runs it: usage and spec errors exit 2 naming the field; SIGTERM
// stops the job with a savepoint and prints its path and the exact command to resume, and that
// command continues the job with exact committed output.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

// The binary, or a failure (not a skip) when it was not built.
#define ASSERT_ENGINE_BUILT() \
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it"

// Complete checkpoints under `root` (any job).
int PublishedSnapshots(const std::string& root) {
  namespace fs = std::filesystem;
  int n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "_metadata") ++n;
  }
  return n;
}

bool LogHas(const std::string& log, const std::string& what) {
  return ReadFile(log).find(what) != std::string::npos;
}

int RunEngine(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> full = {CKPT_ENGINE_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  return WaitExit(Spawn(full, log));
}

TEST(EngineCliITCase, UsageAndSpecErrorsExitTwoNamingTheProblem) {
  ASSERT_ENGINE_BUILT();
  testing::TempDir tmp;
  const std::string log = tmp.Sub("log");
  EXPECT_EQ(RunEngine({"run", tmp.Sub("missing.json")}, log), 2);
  EXPECT_NE(ReadFile(log).find("missing.json"), std::string::npos) << ReadFile(log);

  KeyedSumJob job;
  job.sink_dir = tmp.Sub("out");
  std::string json = KeyedSumJobJson(job);
  json.replace(json.find("\"keyed-sum\""), 11, "\"keyed-summ\"");
  std::ofstream(tmp.Sub("bad.json")) << json;
  std::ofstream(log, std::ios::trunc).close();
  EXPECT_EQ(RunEngine({"run", tmp.Sub("bad.json")}, log), 2);
  EXPECT_NE(ReadFile(log).find("operator 'sum' (kind keyed-summ): unknown kind"),
            std::string::npos)
      << ReadFile(log);

  std::ofstream(tmp.Sub("good.json")) << KeyedSumJobJson(job);
  std::ofstream(log, std::ios::trunc).close();
  EXPECT_EQ(RunEngine({"run", tmp.Sub("good.json"), "--mode", "sometimes"}, log), 2);
  std::ofstream(log, std::ios::trunc).close();
  EXPECT_EQ(RunEngine({"run", tmp.Sub("good.json"), "--interval", "100"}, log), 2);
  EXPECT_NE(ReadFile(log).find("--checkpoint-dir"), std::string::npos) << ReadFile(log);
}

TEST(EngineCliITCase, SigtermStopsWithSavepointAndThePrintedCommandResumes) {
  ASSERT_ENGINE_BUILT();
  testing::TempDir tmp;
  KeyedSumJob job;
  job.to = 60000;
  job.keys = 7;
  job.rate_per_second = 20000;  // ~3 s
  job.sink_dir = tmp.Sub("out");
  std::ofstream(tmp.Sub("job.json")) << KeyedSumJobJson(job);
  const std::string log = tmp.Sub("run1.log");
  pid_t pid = Spawn({CKPT_ENGINE_BINARY, "run", tmp.Sub("job.json"), "--checkpoint-dir",
                     tmp.Sub("checkpoints"), "--interval", "200", "-p", "2"},
                    log);
  // Running and checkpointing (a condition, not a guess at how long start-up takes).
  const bool checkpointed =
      ckpt::testing::WaitUntil([&] { return PublishedSnapshots(tmp.Sub("checkpoints")) >= 1; });
  if (!checkpointed) kill(pid, SIGKILL);
  ASSERT_TRUE(checkpointed) << ReadFile(log);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  ASSERT_EQ(WaitExit(pid), 0) << ReadFile(log);
  const std::string out = ReadFile(log);
  ASSERT_NE(out.find("Savepoint completed. Path: "), std::string::npos) << out;
  const size_t at = out.find("Resume with: ");
  ASSERT_NE(at, std::string::npos) << out;
  std::string command = out.substr(at + 13, out.find('\n', at) - at - 13);
  // The printed command, word by word (our paths have no spaces, so no quoting is involved).
  std::vector<std::string> words;
  std::istringstream ws(command);
  for (std::string w; ws >> w;) words.push_back(w);
  ASSERT_GE(words.size(), 4u);
  EXPECT_EQ(words[0], CKPT_ENGINE_BINARY);
  EXPECT_EQ(WaitExit(Spawn(words, tmp.Sub("run2.log"))), 0) << ReadFile(tmp.Sub("run2.log"));
  Verification v = VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true);
  ExpectExact(v);
}

// issue 9: --from-latest JOB_ID resolves <checkpoint-dir>/<job-id> as its help says; the
// restore and the job name are printed at start.
TEST(EngineCliITCase, FromLatestJobIdResolvesUnderTheCheckpointDirAndSaysWhatItRestores) {
  ASSERT_ENGINE_BUILT();
  testing::TempDir tmp;
  KeyedSumJob job;
  job.name = "named-for-the-log";
  job.job_id = "636c6974657374000000000000000001";
  job.to = 100000000;
  job.rate_per_second = 20000;
  job.sink_dir = tmp.Sub("out");
  std::ofstream(tmp.Sub("job.json")) << KeyedSumJobJson(job);
  const std::string log1 = tmp.Sub("run1.log");
  pid_t pid = Spawn({CKPT_ENGINE_BINARY, "run", tmp.Sub("job.json"), "--checkpoint-dir",
                     tmp.Sub("ckpt"), "--interval", "50"},
                    log1);
  const bool checkpointed =
      ckpt::testing::WaitUntil([&] { return PublishedSnapshots(tmp.Sub("ckpt")) >= 1; });
  kill(pid, SIGKILL);
  WaitExit(pid);
  ASSERT_TRUE(checkpointed) << ReadFile(log1);
  EXPECT_TRUE(LogHas(log1, "'named-for-the-log' (" + tmp.Sub("job.json") + ") started"))
      << ReadFile(log1);

  const std::string log2 = tmp.Sub("run2.log");
  pid = Spawn({CKPT_ENGINE_BINARY, "run", tmp.Sub("job.json"), "--checkpoint-dir",
               tmp.Sub("ckpt"), "--interval", "50", "--from-latest", job.job_id},
              log2);
  const bool restored = ckpt::testing::WaitUntil([&] { return LogHas(log2, "started"); });
  kill(pid, SIGKILL);
  WaitExit(pid);
  ASSERT_TRUE(restored) << ReadFile(log2);
  EXPECT_TRUE(LogHas(log2, "Restoring from " + tmp.Sub("ckpt") + "/" + job.job_id + "/chk-"))
      << ReadFile(log2);
  EXPECT_TRUE(LogHas(log2, "(claim mode CLAIM)")) << ReadFile(log2);
  EXPECT_TRUE(LogHas(log2, "Chose checkpoint")) << ReadFile(log2);

  // Without --checkpoint-dir a bare id cannot be resolved: a usage error naming the fix.
  const std::string log3 = tmp.Sub("run3.log");
  EXPECT_EQ(RunEngine({"run", tmp.Sub("job.json"), "--from-latest", job.job_id}, log3), 2);
  EXPECT_TRUE(LogHas(log3, "--checkpoint-dir")) << ReadFile(log3);
}

// issue 8 defect 6 / issue 9: a job that fails on every attempt logs each failure with its
// cause; a signal while it restarts stops it (no savepoint can be taken) instead of being
// refused; the bounded default strategy ends it with the cause otherwise.
TEST(EngineCliITCase, SignalDuringRestartsStopsTheJobAndEveryFailureIsLogged) {
  ASSERT_ENGINE_BUILT();
  testing::TempDir tmp;
  KeyedSumJob job;
  job.to = 1000;
  job.sink_dir = tmp.Sub("sink-is-a-file");
  std::ofstream(job.sink_dir) << "not a directory";
  std::ofstream(tmp.Sub("job.json")) << KeyedSumJobJson(job);
  const std::string log = tmp.Sub("run.log");
  pid_t pid = Spawn({CKPT_ENGINE_BINARY, "run", tmp.Sub("job.json"), "--checkpoint-dir",
                     tmp.Sub("ckpt"), "--interval", "100", "--max-restarts", "100000",
                     "--restart-delay", "50"},
                    log);
  const bool restarting = ckpt::testing::WaitUntil([&] { return LogHas(log, "restart 2 of"); });
  if (!restarting) kill(pid, SIGKILL);
  ASSERT_TRUE(restarting) << ReadFile(log);
  EXPECT_TRUE(LogHas(log, "sink-is-a-file")) << ReadFile(log);  // the cause, not just "failed"
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  const int code = WaitExit(pid);  // ends by itself: a hang here is the defect
  EXPECT_EQ(code, 130) << ReadFile(log);
  EXPECT_TRUE(LogHas(log, "cancelling")) << ReadFile(log);
  EXPECT_TRUE(LogHas(log, "CANCELED")) << ReadFile(log);

  // The default strategy is bounded: the job fails with its cause, exit 1.
  const std::string log2 = tmp.Sub("run2.log");
  EXPECT_EQ(RunEngine({"run", tmp.Sub("job.json"), "--checkpoint-dir", tmp.Sub("ckpt2"),
                       "--interval", "100", "--restart-delay", "10"},
                      log2),
            1)
      << ReadFile(log2);
  EXPECT_TRUE(LogHas(log2, "restart 3 of 3")) << ReadFile(log2);
  EXPECT_TRUE(LogHas(log2, "no restart left")) << ReadFile(log2);
}

// issue 8 defect 6: the job lock on <checkpoint-dir>/<job-id> refuses a second engine.
TEST(EngineCliITCase, SecondEngineOnTheSameJobIsRefused) {
  ASSERT_ENGINE_BUILT();
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = "636c6974657374000000000000000002";
  job.to = 100000000;
  job.rate_per_second = 20000;
  job.sink_dir = tmp.Sub("out");
  std::ofstream(tmp.Sub("job.json")) << KeyedSumJobJson(job);
  pid_t first = Spawn({CKPT_ENGINE_BINARY, "run", tmp.Sub("job.json"), "--checkpoint-dir",
                       tmp.Sub("ckpt"), "--interval", "50"},
                      tmp.Sub("first.log"));
  const bool running =
      ckpt::testing::WaitUntil([&] { return PublishedSnapshots(tmp.Sub("ckpt")) >= 1; });
  if (!running) kill(first, SIGKILL);
  ASSERT_TRUE(running) << ReadFile(tmp.Sub("first.log"));
  const std::string log = tmp.Sub("second.log");
  EXPECT_EQ(RunEngine({"run", tmp.Sub("job.json"), "--checkpoint-dir", tmp.Sub("ckpt"),
                       "--interval", "50", "--from-latest", job.job_id},
                      log),
            2);
  EXPECT_TRUE(LogHas(log, "another engine runs this job")) << ReadFile(log);
  kill(first, SIGKILL);
  WaitExit(first);
}

}  // namespace
}  // namespace ckpt::itcase
