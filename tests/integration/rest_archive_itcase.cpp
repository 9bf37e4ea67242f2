// `ckpt-engine run --archive-dir` and `ckpt-engine history-server` as a user runs them: the engine
// killed with SIGKILL leaves the archive of its last checkpoint (the job RUNNING in it); the run
// resuming the job (--from-latest) replaces it with its final archive (FINISHED); the history
// server serves it and stops on SIGTERM with exit 0.
#include <signal.h>

#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/engine/rest/rest_archive.h"
#include "ckpt/testing/wait_until.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

using nlohmann::json;

// The state of the job in the archive `file` (its /jobs/overview entry); "" while it cannot be
// read (not written yet).
std::string ArchivedState(const std::string& file) {
  base::Result<std::string> text = base::ReadFileToString(base::Fs::Default(), file);
  if (!text.ok()) return "";
  base::Result<std::vector<engine::ArchivedJson>> entries = engine::DecodeJobArchive(*text, file);
  if (!entries.ok()) return "";
  for (const engine::ArchivedJson& e : *entries) {
    if (e.path == "/jobs/overview") return json::parse(e.json)["jobs"][0]["state"];
  }
  return "";
}

TEST(RestArchiveITCase, CrashLeavesTheCheckpointArchiveAResumedRunReplacesItHistoryServesIt) {
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built";
  EngineRun run;
  const std::string dir = run.tmp.Sub("archive");
  const std::string file = dir + "/" + kJobId;
  {
    RestEngine engine(run.Args({"--archive-dir", dir}), run.log, run.state);
    ASSERT_GT(engine.port(), 0) << ReadFile(run.log);
    auto client = engine.Client();
    ASSERT_TRUE(::ckpt::itcase::WaitCompleted(*client, kJobId, 2));
    ASSERT_TRUE(testing::WaitUntil([&] { return ArchivedState(file) == "RUNNING"; }))
        << ReadFile(run.log);
    engine.Kill();  // a crash
  }
  EXPECT_EQ(ArchivedState(file), "RUNNING");

  const std::string log2 = run.tmp.Sub("engine2.log");
  RestEngine resumed(run.Args({"--archive-dir", dir, "--from-latest", kJobId,
                               "--stop-with-savepoint-after", "0.2"}),
                     log2, run.state);
  ASSERT_GT(resumed.port(), 0) << ReadFile(log2);
  EXPECT_EQ(resumed.Wait(), 0) << ReadFile(log2);
  const std::string out = ReadFile(log2);
  EXPECT_NE(out.find("replacing " + file), std::string::npos) << out;
  EXPECT_NE(out.find("Job archived: " + file), std::string::npos) << out;
  EXPECT_EQ(ArchivedState(file), "FINISHED");

  // An ended run's archive is never overwritten: a third run refuses to start.
  const std::string log3 = run.tmp.Sub("engine3.log");
  std::vector<std::string> third = {CKPT_ENGINE_BINARY, "run"};
  for (const std::string& a : run.Args({"--archive-dir", dir})) third.push_back(a);
  EXPECT_EQ(WaitExit(Spawn(third, log3)), 2) << ReadFile(log3);
  EXPECT_NE(ReadFile(log3).find(file + " exists"), std::string::npos) << ReadFile(log3);
  EXPECT_EQ(ArchivedState(file), "FINISHED");

  const std::string hs_log = run.tmp.Sub("history.log");
  const pid_t hs = Spawn({CKPT_ENGINE_BINARY, "history-server", "--archive-dir", dir, "--port",
                          "0", "--refresh-interval", "100"},
                         hs_log);
  const std::regex re("History server: http://127\\.0\\.0\\.1:([0-9]+)");
  int port = 0;
  ASSERT_TRUE(testing::WaitUntil([&] {
    std::smatch m;
    const std::string text = ReadFile(hs_log);
    if (!std::regex_search(text, m, re)) return false;
    port = std::stoi(m[1]);
    return true;
  })) << ReadFile(hs_log);
  httplib::Client client("127.0.0.1", port);
  HttpAnswer overview = HttpGet(client, "/jobs/overview");
  ASSERT_EQ(overview.status, 200);
  ASSERT_EQ(overview.body["jobs"].size(), 1u) << overview.body.dump();
  EXPECT_EQ(overview.body["jobs"][0]["jid"], kJobId);
  EXPECT_EQ(overview.body["jobs"][0]["state"], "FINISHED");
  EXPECT_EQ(HttpGet(client, "/config").body["features"]["web-history"], true);
  EXPECT_EQ(HttpGet(client, std::string("/jobs/") + kJobId + "/checkpoints").status, 200);
  HttpAnswer missing = HttpGet(client, "/jobs/overview/nothing");
  EXPECT_EQ(missing.status, 404);
  EXPECT_TRUE(missing.body["errors"].is_array()) << missing.body.dump();
  kill(hs, SIGTERM);
  EXPECT_EQ(WaitExit(hs), 0) << ReadFile(hs_log);
}

}  // namespace
}  // namespace ckpt::itcase
