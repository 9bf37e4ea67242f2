// ckpt-tool diagnose on damaged snapshots made here (no _metadata, a truncated one, a state file
// gone, an empty directory, a real Flink `_metadata` cut short) and a healthy one: text and JSON
// goldens (golden/diagnose-*), exit codes 0 / 1 / 2. The tool runs in the temporary directory
// with relative paths, so the output is the same on every machine.
// CKPT_UPDATE_GOLDEN=1 rewrites tests/ckpt-tool/golden/diagnose-*.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::testing {
namespace {

// Runs `diagnose ARGS` in `cwd` as text and as JSON, expects `exit_code` from both and compares
// each output with golden/diagnose-<name>.text / .json.
void DiagnoseGoldens(const std::string& name, const std::vector<std::string>& args,
                     const std::string& cwd, int exit_code) {
  SCOPED_TRACE(name);
  std::vector<std::string> text_args = {"diagnose"};
  text_args.insert(text_args.end(), args.begin(), args.end());
  ToolRun text = RunTool(text_args, cwd);
  EXPECT_EQ(text.exit_code, exit_code) << "stderr: " << text.err;
  EXPECT_EQ(text.err, "");
  ExpectGolden("diagnose-" + name + ".text", text.out);
  std::vector<std::string> json_args = text_args;
  json_args.insert(json_args.end(), {"--format", "json"});
  ToolRun json = RunTool(json_args, cwd);
  EXPECT_EQ(json.exit_code, exit_code) << "stderr: " << json.err;
  ExpectGolden("diagnose-" + name + ".json", json.out);
}

TEST(DiagnoseCliTest, AHealthySavepointOpens) {
  TempDir tmp;
  ASSERT_OK(WriteSampleSavepoint(tmp.Sub("sp")));
  DiagnoseGoldens("healthy", {"sp"}, tmp.path(), 0);
}

TEST(DiagnoseCliTest, TheMetadataFileAsPathDiagnosesItsDirectory) {
  TempDir tmp;
  ASSERT_OK(WriteSampleSavepoint(tmp.Sub("sp")));
  ToolRun run = RunTool({"diagnose", "sp/_metadata", "--format", "json"}, tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"dir\":\"sp\""), std::string::npos) << run.out;
}

TEST(DiagnoseCliTest, MissingMetadataCannotBeOpened) {
  TempDir tmp;
  ASSERT_OK(WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(base::Fs::Default().RemoveFile(tmp.Sub("sp/_metadata")));
  DiagnoseGoldens("missing-metadata", {"sp"}, tmp.path(), 1);
}

TEST(DiagnoseCliTest, TruncatedMetadataCannotBeOpened) {
  TempDir tmp;
  ASSERT_OK(WriteSampleSavepoint(tmp.Sub("sp")));
  TruncateFile(tmp.Sub("sp/_metadata"), 100);
  DiagnoseGoldens("truncated-metadata", {"sp"}, tmp.path(), 1);
}

TEST(DiagnoseCliTest, AMissingStateFileIsNamed) {
  TempDir tmp;
  ASSERT_OK(WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(base::Fs::Default().RemoveFile(tmp.Sub("sp/per-user-aggregate-1-keyed.state")));
  DiagnoseGoldens("missing-state-file", {"sp"}, tmp.path(), 1);
}

TEST(DiagnoseCliTest, AnEmptyDirectoryCannotBeOpened) {
  TempDir tmp;
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("chk-7")));
  DiagnoseGoldens("empty-directory", {"chk-7"}, tmp.path(), 1);
}

TEST(DiagnoseCliTest, AFlinkMetadataCutShortCannotBeOpened) {
  TempDir tmp;
  CopyTree(FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint"),
           tmp.Sub("savepoint"));
  TruncateFile(tmp.Sub("savepoint/_metadata"), 1000);
  DiagnoseGoldens("flink-truncated-metadata", {"savepoint"}, tmp.path(), 1);
}

TEST(DiagnoseCliTest, APathThatDoesNotExistIsAnErrorNamingIt) {
  TempDir tmp;
  ToolRun run = RunTool({"diagnose", "no-such-snapshot"}, tmp.path());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("no-such-snapshot"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

TEST(DiagnoseCliTest, FormatsOtherThanTextAndJsonAreUsageErrors) {
  TempDir tmp;
  ASSERT_OK(WriteSampleSavepoint(tmp.Sub("sp")));
  ToolRun run = RunTool({"diagnose", "sp", "--format", "junit"}, tmp.path());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("diagnose supports --format text, json"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace ckpt::testing
