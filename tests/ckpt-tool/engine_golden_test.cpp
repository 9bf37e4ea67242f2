// Golden tests of ckpt-tool over snapshots the reference engine wrote (fixtures/engine-v1: a
// stop-with-savepoint and two retained checkpoints of a job killed with SIGKILL; see
// fixtures/README.md). Frozen like fixtures/v1, so timestamps in the output are stable.
// CKPT_UPDATE_GOLDEN=1 rewrites tests/ckpt-tool/golden/engine-*.
#include <gtest/gtest.h>

#include <string>

#include "ckpt/base/posix_fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/proto.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

const std::string kEngineJob = "e0e1e2e3e4e5e6e7e8e9eaebecedeeef";
const std::string kSavepoint = "engine-v1/savepoint-e0e1e2-30e19071c9cd";
const std::string kRoot = "engine-v1/checkpoints";
const std::string kChk4 = kRoot + "/" + kEngineJob + "/chk-4";
const std::string kChk5 = kRoot + "/" + kEngineJob + "/chk-5";
const std::string kSpec = "engine-v1/keyed_sum.job.json";
const std::vector<std::string> kAllFormats = {"text", "json", "junit", "github-actions"};

std::string Ext(const std::string& format) { return format == "github-actions" ? "github" : format; }

TEST(EngineGoldenTest, ReadVerbsInTheirFormats) {
  for (const std::string f : {"text", "json"}) {
    ExpectToolGolden("engine-ls-root." + f, {"--format", f, "ls", kRoot}, 0);
    ExpectToolGolden("engine-ls-savepoint." + f, {"--format", f, "ls", kSavepoint}, 0);
    ExpectToolGolden("engine-show-savepoint." + f, {"--format", f, "show", kSavepoint}, 0);
    ExpectToolGolden("engine-files-checkpoint." + f, {"--format", f, "files", kChk5}, 0);
    ExpectToolGolden("engine-dump-sum." + f, {"--format", f, "dump", kSavepoint, "--operator", "sum"}, 0);
    ExpectToolGolden("engine-dump-source." + f,
           {"--format", f, "dump", kSavepoint, "--operator", "numbers"}, 0);
    ExpectToolGolden("engine-positions-checkpoint." + f, {"--format", f, "positions", kChk5}, 0);
    ExpectToolGolden("engine-positions-savepoint." + f, {"--format", f, "positions", kSavepoint}, 0);
    ExpectToolGolden("engine-diff-positions." + f,
                     {"--format", f, "diff", kChk4, kChk5, "--no-state-sizes"}, 1);
  }
}

// Restoring chk-4 in place of chk-5 re-reads every sequence split from an earlier value: one
// CKPT-R001 warning per split, and the verdict still restores (warnings fail only --strict).
TEST(EngineGoldenTest, ValidateSinceWarnsWhereAnOlderCheckpointReadsAgain) {
  ExpectToolGolden("engine-validate-since-older.text",
                   {"validate", kChk4, "--since", kChk5, "--verbose"}, 0);
  ExpectToolGolden("engine-validate-since-newer.text",
                   {"validate", kChk5, "--since", kChk4, "--verbose"}, 0);
  ExpectToolGolden("engine-validate-since-older.json",
                   {"--format", "json", "validate", kChk4, "--since", kChk5}, 0);
  ExpectToolGolden("engine-validate-since-strict.text",
                   {"validate", kChk4, "--since", kChk5, "--strict"}, 1);
}

// The sink's pending files are recorded with absolute paths of the machine that made the
// fixture. Copies engine-v1 into `tmp`, points every committable of `snapshot` at `tmp`/out and
// lays each pending file out there with its recorded size, so CKPT-A005 checks real files the
// test owns on every machine. Returns the directory to run ckpt-tool in.
std::string LayOutSinkOutput(const TempDir& tmp, const std::string& snapshot) {
  CopyTree(FixturePath("engine-v1"), tmp.Sub("engine-v1"));
  base::PosixFs fs;
  const std::string dir = tmp.Sub(snapshot);
  auto metadata = format::ReadMetadataFile(fs, dir + "/_metadata");
  EXPECT_TRUE(metadata.ok()) << metadata.status().ToString();
  if (!metadata.ok()) return tmp.path();
  const std::string out = tmp.Sub("out");
  EXPECT_TRUE(fs.CreateDirs(out).ok());
  for (auto& op : *metadata->mutable_operators()) {
    for (auto& st : *op.mutable_subtasks()) {
      for (auto& c : *st.mutable_committables()) {
        c.set_pending_path(out + "/" + base::BaseName(c.pending_path()));
        c.set_final_path(out + "/" + base::BaseName(c.final_path()));
        EXPECT_TRUE(
            base::WriteFileAtomic(fs, c.pending_path(), std::string(c.size_bytes(), 'x')).ok());
      }
    }
  }
  EXPECT_TRUE(fs.RemoveFile(dir + "/_metadata").ok());
  EXPECT_TRUE(format::WriteMetadataFile(fs, dir, *metadata).ok());
  return tmp.path();
}

TEST(EngineGoldenTest, ValidateDeepAgainstItsJobInEveryFormat) {
  TempDir tmp;
  const std::string cwd = LayOutSinkOutput(tmp, kSavepoint);
  for (const auto& f : kAllFormats) {
    SCOPED_TRACE(f);
    ToolRun run =
        RunTool({"--format", f, "validate", kSavepoint, "--deep", "--against", kSpec}, cwd);
    EXPECT_EQ(run.exit_code, 0) << "stderr: " << run.err;
    ExpectGolden("engine-validate-savepoint." + Ext(f), run.out);
    ExpectToolGolden("engine-validate-checkpoint." + Ext(f), {"--format", f, "validate", kChk5, "--deep"}, 0);
  }
}

TEST(EngineGoldenTest, ValidateAgainstReportsPendingSinkFilesThatAreGone) {
  TempDir tmp;
  const std::string cwd = LayOutSinkOutput(tmp, kSavepoint);
  base::PosixFs fs;
  auto entries = fs.ListDir(tmp.Sub("out"));
  ASSERT_TRUE(entries.ok());
  ASSERT_FALSE(entries->empty());
  ASSERT_TRUE(fs.RemoveFile(tmp.Sub("out/" + entries->front().name)).ok());
  ToolRun run = RunTool({"validate", kSavepoint, "--against", kSpec}, cwd);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("CKPT-A005"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(entries->front().name), std::string::npos) << run.out;
}

TEST(EngineGoldenTest, StatsInEveryFormat) {
  for (const auto& f : kAllFormats) {
    ExpectToolGolden("engine-stats-savepoint." + Ext(f), {"--format", f, "stats", kSavepoint}, 0);
  }
}

TEST(EngineGoldenTest, DiffOfConsecutiveCheckpointsShowsChangedSums) {
  ExpectToolGolden("engine-diff-chk4-chk5.text", {"diff", kChk4, kChk5}, 1);
  ExpectToolGolden("engine-diff-chk4-chk5-keys.json", {"--format", "json", "diff", kChk4, kChk5, "--keys"},
         1);
}

TEST(EngineGoldenTest, RemapDryRunPlansAUidChange) {
  ExpectToolGolden("engine-remap-dry-run.text",
         {"remap", kSavepoint, "--to", "/nonexistent/out", "--map", "sums=sums-v2", "--dry-run"},
         0);
}

}  // namespace
}  // namespace ckpt::testing
