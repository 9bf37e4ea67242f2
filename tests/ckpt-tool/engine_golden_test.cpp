// Golden tests of ckpt-tool over snapshots the reference engine wrote (fixtures/engine-v1: a
// stop-with-savepoint and two retained checkpoints of a job killed with SIGKILL; see
// fixtures/README.md). Frozen like fixtures/v1, so timestamps in the output are stable.
// CKPT_UPDATE_GOLDEN=1 rewrites tests/ckpt-tool/golden/engine-*.
#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

const std::string kJob = "e0e1e2e3e4e5e6e7e8e9eaebecedeeef";
const std::string kSavepoint = "engine-v1/savepoint-e0e1e2-30e19071c9cd";
const std::string kRoot = "engine-v1/checkpoints";
const std::string kChk4 = kRoot + "/" + kJob + "/chk-4";
const std::string kChk5 = kRoot + "/" + kJob + "/chk-5";
const std::string kSpec = "engine-v1/keyed_sum.job.json";
const std::vector<std::string> kAllFormats = {"text", "json", "junit", "github-actions"};

std::string Ext(const std::string& format) { return format == "github-actions" ? "github" : format; }

void Golden(const std::string& name, std::vector<std::string> args, int exit_code) {
  SCOPED_TRACE(name);
  ToolRun run = RunTool(args, FixturePath(""));
  EXPECT_EQ(run.exit_code, exit_code) << "stderr: " << run.err;
  ExpectGolden(name, run.out);
}

TEST(EngineGoldenTest, ReadVerbsInTheirFormats) {
  for (const std::string f : {"text", "json"}) {
    Golden("engine-ls-root." + f, {"--format", f, "ls", kRoot}, 0);
    Golden("engine-ls-savepoint." + f, {"--format", f, "ls", kSavepoint}, 0);
    Golden("engine-show-savepoint." + f, {"--format", f, "show", kSavepoint}, 0);
    Golden("engine-files-checkpoint." + f, {"--format", f, "files", kChk5}, 0);
    Golden("engine-dump-sum." + f, {"--format", f, "dump", kSavepoint, "--operator", "sum"}, 0);
    Golden("engine-dump-source." + f,
           {"--format", f, "dump", kSavepoint, "--operator", "numbers"}, 0);
  }
}

TEST(EngineGoldenTest, ValidateDeepAgainstItsJobInEveryFormat) {
  for (const auto& f : kAllFormats) {
    Golden("engine-validate-savepoint." + Ext(f),
           {"--format", f, "validate", kSavepoint, "--deep", "--against", kSpec}, 0);
    Golden("engine-validate-checkpoint." + Ext(f), {"--format", f, "validate", kChk5, "--deep"}, 0);
  }
}

TEST(EngineGoldenTest, StatsInEveryFormat) {
  for (const auto& f : kAllFormats) {
    Golden("engine-stats-savepoint." + Ext(f), {"--format", f, "stats", kSavepoint}, 0);
  }
}

TEST(EngineGoldenTest, DiffOfConsecutiveCheckpointsShowsChangedSums) {
  Golden("engine-diff-chk4-chk5.text", {"diff", kChk4, kChk5}, 1);
  Golden("engine-diff-chk4-chk5-keys.json", {"--format", "json", "diff", kChk4, kChk5, "--keys"},
         1);
}

TEST(EngineGoldenTest, RemapDryRunPlansAUidChange) {
  Golden("engine-remap-dry-run.text",
         {"remap", kSavepoint, "--to", "/nonexistent/out", "--map", "sums=sums-v2", "--dry-run"},
         0);
}

}  // namespace
}  // namespace ckpt::testing
