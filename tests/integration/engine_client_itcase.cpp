// The client verbs of ckpt-engine (list, checkpoints, savepoint, stop, cancel, dispose) against a
// real engine subprocess, found through its state file: Flink's CLI output, snapshots on disk,
// and a printed resume command that restores.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

#define ASSERT_ENGINE_BUILT() \
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it"

constexpr const char* kClientJobId = "fedcba9876543210fedcba9876543210";

struct ClientRun {
  int code = -1;
  std::string out;
};

ClientRun Client(const testing::TempDir& tmp, const std::vector<std::string>& args) {
  static int n = 0;
  const std::string log = tmp.Sub("client-" + std::to_string(++n) + ".log");
  std::vector<std::string> full = {CKPT_ENGINE_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  ClientRun r;
  r.code = WaitExit(Spawn(full, log));
  r.out = ReadFile(log);
  return r;
}

TEST(EngineClientITCase, VerbsDriveARunningEngineFoundThroughItsStateFile) {
  ASSERT_ENGINE_BUILT();
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = kClientJobId;
  job.to = 100000000;
  job.rate_per_second = 5000;
  job.sink_dir = tmp.Sub("out");
  std::ofstream(tmp.Sub("job.json")) << KeyedSumJobJson(job);
  const std::string state = tmp.Sub("state.json");
  setenv("CKPT_ENGINE_STATE_FILE", state.c_str(), 1);

  ClientRun none = Client(tmp, {"list"});
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_NE(none.out.find("--address"), std::string::npos) << none.out;

  RestEngine engine({tmp.Sub("job.json"), "--checkpoint-dir", tmp.Sub("ckpt"), "--interval", "100"},
                    tmp.Sub("engine.log"), state);
  ASSERT_GT(engine.port(), 0) << ReadFile(tmp.Sub("engine.log"));
  auto c = engine.Client();
  ASSERT_TRUE(testing::WaitUntil([&] {
    HttpAnswer a = HttpGet(*c, std::string("/jobs/") + kClientJobId + "/checkpoints");
    return a.status == 200 && a.body["counts"]["completed"].get<int>() >= 1;
  }));

  ClientRun list = Client(tmp, {"list"});
  EXPECT_EQ(list.code, 0) << list.out;
  EXPECT_NE(list.out.find(std::string(kClientJobId) + " : keyed-sum-itcase (RUNNING)"),
            std::string::npos)
      << list.out;
  ClientRun cps = Client(tmp, {"checkpoints", kClientJobId, "--address", engine.url()});
  EXPECT_EQ(cps.code, 0) << cps.out;
  EXPECT_NE(cps.out.find("COMPLETED"), std::string::npos) << cps.out;
  EXPECT_NE(cps.out.find(tmp.Sub("ckpt")), std::string::npos) << cps.out;

  const std::regex path_re("Savepoint completed\\. Path: (\\S+)");
  std::smatch m;
  ClientRun sp = Client(tmp, {"savepoint", kClientJobId, tmp.Sub("sp")});
  ASSERT_EQ(sp.code, 0) << sp.out;
  ASSERT_TRUE(std::regex_search(sp.out, m, path_re)) << sp.out;
  const std::string savepoint = m[1];
  EXPECT_TRUE(std::filesystem::exists(savepoint + "/_metadata")) << savepoint;
  EXPECT_NE(sp.out.find("Resume with: "), std::string::npos) << sp.out;
  EXPECT_NE(sp.out.find("-s " + savepoint), std::string::npos) << sp.out;

  ClientRun bad = Client(tmp, {"cancel", "00000000000000000000000000000000"});
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("not found"), std::string::npos) << bad.out;
  // A relative directory means the one under the client's working directory (this test's), not
  // the engine's; dispose takes a relative path the same way.
  const std::string rel_dir =
      std::filesystem::relative(tmp.Sub("rel-sp"), std::filesystem::current_path()).string();
  ASSERT_NE(rel_dir.front(), '/') << rel_dir;
  ClientRun rel = Client(tmp, {"savepoint", kClientJobId, rel_dir});
  ASSERT_EQ(rel.code, 0) << rel.out;
  ASSERT_TRUE(std::regex_search(rel.out, m, path_re)) << rel.out;
  const std::string rel_savepoint = m[1];
  EXPECT_EQ(std::filesystem::path(rel_savepoint).parent_path(),
            std::filesystem::weakly_canonical(tmp.Sub("rel-sp")))
      << rel.out;
  ClientRun rel_dispose = Client(
      tmp, {"dispose", std::filesystem::relative(rel_savepoint, std::filesystem::current_path())
                           .string()});
  EXPECT_EQ(rel_dispose.code, 0) << rel_dispose.out;
  EXPECT_FALSE(std::filesystem::exists(rel_savepoint)) << rel_dispose.out;

  ClientRun dispose = Client(tmp, {"dispose", savepoint});
  EXPECT_EQ(dispose.code, 0) << dispose.out;
  EXPECT_NE(dispose.out.find("disposed"), std::string::npos) << dispose.out;
  EXPECT_FALSE(std::filesystem::exists(savepoint));

  ClientRun stop = Client(tmp, {"stop", kClientJobId, "--savepoint-path", tmp.Sub("sp")});
  ASSERT_EQ(stop.code, 0) << stop.out;
  ASSERT_TRUE(std::regex_search(stop.out, m, path_re)) << stop.out;
  const std::string final_sp = m[1];
  EXPECT_TRUE(std::filesystem::exists(final_sp + "/_metadata"));
  EXPECT_EQ(engine.Wait(), 0) << ReadFile(tmp.Sub("engine.log"));

  // The printed command resumes from the savepoint.
  const std::regex resume_re("Resume with: (.+)");
  ASSERT_TRUE(std::regex_search(stop.out, m, resume_re)) << stop.out;
  std::istringstream words(m[1].str());
  std::vector<std::string> argv;
  for (std::string w; words >> w;) argv.push_back(w);
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], CKPT_ENGINE_BINARY);
  EXPECT_EQ(argv[argv.size() - 2], "-s");
  EXPECT_EQ(argv.back(), final_sp);
  const std::string log2 = tmp.Sub("resumed.log");
  const pid_t resumed = Spawn(argv, log2);
  EXPECT_TRUE(testing::WaitUntil([&] {
    return ReadFile(log2).find("Restoring from " + final_sp) != std::string::npos &&
           ReadFile(log2).find("REST endpoint: ") != std::string::npos;
  })) << ReadFile(log2);
  kill(resumed, SIGTERM);  // stops with a savepoint
  EXPECT_EQ(WaitExit(resumed), 0) << ReadFile(log2);
}

}  // namespace
}  // namespace ckpt::itcase
