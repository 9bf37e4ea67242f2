// ckpt-tool's read verbs over a snapshot written by the reference engine (not by ckpt::format's
// sample writer): validate --deep and --against its own job are clean, ls/show/files/dump/stats
// succeed. Skipped when ckpt-engine is not built in this build tree.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::testing {
namespace {

constexpr char kJob[] = R"({
  "name": "t1-engine-read",
  "parallelism": 2,
  "max_parallelism": 128,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers", "parallelism": 1,
     "params": {"from": 1, "to": 60000, "splits": 1, "keys": 8, "rate_per_second": 40000}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
    {"id": "sink", "kind": "file-sink", "uid": "sums", "params": {"path": "@OUT"}}
  ],
  "edges": [
    {"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}
  ],
  "checkpointing": {"interval_ms": 200}
})";

size_t Lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(EngineSnapshotTest, EngineSavepointPassesEveryReadVerb) {
  const std::string engine = std::string(CKPT_BINARY_DIR) + "/engine/ckpt-engine";
  if (!base::Fs::Default().Stat(engine).ok()) GTEST_SKIP() << "ckpt-engine not built: " << engine;
  TempDir tmp;
  std::string spec = kJob;
  spec.replace(spec.find("@OUT"), 4, tmp.Sub("out"));
  WriteTextFile(tmp.Sub("job.json"), spec);
  const std::string cmd = engine + " run '" + tmp.Sub("job.json") + "' --checkpoint-dir '" +
                          tmp.Sub("ckpt") + "' --stop-with-savepoint-after 0.5 > '" +
                          tmp.Sub("run.log") + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << tmp.Sub("run.log");
  auto sps = base::Fs::Default().ListDir(tmp.Sub("ckpt/savepoints"));
  ASSERT_OK(sps);
  ASSERT_EQ(sps->size(), 1u);
  const std::string sp = "ckpt/savepoints/" + (*sps)[0].name;  // relative to tmp

  ToolRun v = RunTool({"validate", "--deep", "--format", "json", sp}, tmp.path());
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_EQ(v.out.find("\"rule\""), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("\"errors\":0,\"warnings\":0,\"findings\":0"), std::string::npos) << v.out;

  ToolRun against = RunTool({"validate", sp, "--against", "job.json"}, tmp.path());
  EXPECT_EQ(against.exit_code, 0) << against.out << against.err;

  ToolRun ls = RunTool({"ls", "--format", "json", "ckpt"}, tmp.path());
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("\"kind\":\"savepoint\""), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("\"status\":\"complete\""), std::string::npos) << ls.out;

  ToolRun dump = RunTool({"dump", sp, "--operator", "sum", "--format", "json"}, tmp.path());
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(Lines(dump.out), 8u) << dump.out;  // one running sum per key

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", sp}, {"show", "--format", "json", sp}, {"files", sp},
        {"stats", sp}, {"ls", sp}}) {
    ToolRun run = RunTool(args, tmp.path());
    EXPECT_EQ(run.exit_code, 0) << args[0] << ": " << run.err;
    EXPECT_FALSE(run.out.empty()) << args[0];
  }
}

}  // namespace
}  // namespace ckpt::testing
