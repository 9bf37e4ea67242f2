// The ckpt-engine CLI as a user runs it: usage and spec errors exit 2 naming the field; SIGTERM
// stops the job with a savepoint and prints its path and the exact command to resume, and that
// command continues the job with exact committed output.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

#ifdef CKPT_ENGINE_BINARY

int RunEngine(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> full = {CKPT_ENGINE_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  return WaitExit(Spawn(full, log));
}

TEST(EngineCliITCase, UsageAndSpecErrorsExitTwoNamingTheProblem) {
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
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
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
  EXPECT_EQ(v.lost, 0) << v.Summary();
  EXPECT_EQ(v.duplicates, 0) << v.Summary();
  EXPECT_EQ(v.bad_sums, 0) << v.Summary();
  EXPECT_EQ(v.final_sum_mismatch, 0) << v.Summary();
}

#endif  // CKPT_ENGINE_BINARY

}  // namespace
}  // namespace ckpt::itcase
