// The validate CLI's machine-readable reports (issue 9, defect 9): a usage or I/O error still
// yields a well-formed report in every format; JSON lines carry a "type"; GitHub annotations
// name files relative to the working directory; SARIF 2.1.0 output; checked_rules everywhere.
#include <gtest/gtest.h>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::testing {
namespace {

std::string Fixtures() { return FixturePath(""); }

bool ParsesAsJson(const std::string& text, google::protobuf::Value* value) {
  return google::protobuf::util::JsonStringToMessage(text, value).ok();
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

TEST(ValidateCliTest, IoAndUsageErrorsYieldAWellFormedReportInEveryFormat) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"validate", "no-such-snapshot"},
        std::vector<std::string>{"validate", "v1/savepoint", "--no-such-flag"}}) {
    SCOPED_TRACE(args.back());
    std::vector<std::string> json = args;
    json.insert(json.end(), {"--format", "json"});
    ToolRun j = RunTool(json, Fixtures());
    EXPECT_EQ(j.exit_code, 2);
    ASSERT_EQ(Lines(j.out).size(), 1u) << j.out;
    google::protobuf::Value v;
    ASSERT_TRUE(ParsesAsJson(j.out, &v)) << j.out;
    EXPECT_EQ(v.struct_value().fields().at("type").string_value(), "error");
    EXPECT_FALSE(v.struct_value().fields().at("message").string_value().empty());
    EXPECT_FALSE(j.err.empty());  // the stderr line stays

    std::vector<std::string> junit = args;
    junit.insert(junit.end(), {"--format", "junit"});
    ToolRun x = RunTool(junit, Fixtures());
    EXPECT_EQ(x.exit_code, 2);
    EXPECT_EQ(x.out.rfind("<?xml", 0), 0u) << x.out;
    EXPECT_NE(x.out.find("errors=\"1\""), std::string::npos) << x.out;
    EXPECT_NE(x.out.find("<error "), std::string::npos) << x.out;
    EXPECT_NE(x.out.find("</testsuites>"), std::string::npos) << x.out;

    std::vector<std::string> gh = args;
    gh.insert(gh.end(), {"--format", "github-actions"});
    ToolRun g = RunTool(gh, Fixtures());
    EXPECT_EQ(g.exit_code, 2);
    EXPECT_EQ(g.out.rfind("::error title=ckpt-tool validate::", 0), 0u) << g.out;

    std::vector<std::string> sarif = args;
    sarif.insert(sarif.end(), {"--format", "sarif"});
    ToolRun s = RunTool(sarif, Fixtures());
    EXPECT_EQ(s.exit_code, 2);
    google::protobuf::Value doc;
    ASSERT_TRUE(ParsesAsJson(s.out, &doc)) << s.out;
    const auto& run = doc.struct_value().fields().at("runs").list_value().values(0).struct_value();
    const auto& inv = run.fields().at("invocations").list_value().values(0).struct_value();
    EXPECT_FALSE(inv.fields().at("executionSuccessful").bool_value());
  }
}

TEST(ValidateCliTest, EveryJsonLineHasAType) {
  ToolRun run = RunTool({"validate", "corrupt/missing-referenced-file", "--format", "json"},
                        Fixtures());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  std::set<std::string> types;
  for (const std::string& line : Lines(run.out)) {
    google::protobuf::Value v;
    ASSERT_TRUE(ParsesAsJson(line, &v)) << line;
    ASSERT_TRUE(v.struct_value().fields().count("type")) << line;
    types.insert(v.struct_value().fields().at("type").string_value());
  }
  EXPECT_EQ(types, (std::set<std::string>{"finding", "capability", "checked_rules", "summary"}));
}

TEST(ValidateCliTest, GithubAnnotationsNameFilesRelativeToTheWorkingDirectory) {
  ToolRun run = RunTool(
      {"validate", "corrupt/missing-referenced-file", "--format", "github-actions"}, Fixtures());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("::error file=corrupt/missing-referenced-file/tiny-count-0-keyed.state,"),
            std::string::npos)
      << run.out;
  ToolRun meta = RunTool({"validate", "corrupt/missing-referenced-file/_metadata", "--format",
                          "github-actions"},
                         Fixtures());
  EXPECT_NE(meta.out.find("file=corrupt/missing-referenced-file/tiny-count-0-keyed.state,"),
            std::string::npos)
      << meta.out;
}

TEST(ValidateCliTest, SarifIsSarif210WithTheRuleCatalogueAndOneResultPerFinding) {
  ToolRun run = RunTool({"validate", "corrupt/missing-referenced-file", "--format", "sarif"},
                        Fixtures());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  google::protobuf::Value doc;
  ASSERT_TRUE(ParsesAsJson(run.out, &doc)) << run.out;
  const auto& top = doc.struct_value().fields();
  EXPECT_EQ(top.at("version").string_value(), "2.1.0");
  EXPECT_NE(top.at("$schema").string_value().find("sarif-2.1.0"), std::string::npos);
  const auto& run0 = top.at("runs").list_value().values(0).struct_value().fields();
  const auto& driver = run0.at("tool").struct_value().fields().at("driver").struct_value().fields();
  EXPECT_EQ(driver.at("name").string_value(), "ckpt-tool");
  EXPECT_GT(driver.at("rules").list_value().values_size(), 30);
  const auto& results = run0.at("results").list_value();
  ASSERT_EQ(results.values_size(), 1);
  const auto& r = results.values(0).struct_value().fields();
  EXPECT_EQ(r.at("ruleId").string_value(), "CKPT-F001");
  EXPECT_EQ(r.at("level").string_value(), "error");
  const auto& loc = r.at("locations").list_value().values(0).struct_value().fields();
  EXPECT_EQ(loc.at("physicalLocation")
                .struct_value()
                .fields()
                .at("artifactLocation")
                .struct_value()
                .fields()
                .at("uri")
                .string_value(),
            "corrupt/missing-referenced-file/tiny-count-0-keyed.state");
  // sarif is validate's alone.
  EXPECT_EQ(RunTool({"ls", "v1/savepoint", "--format", "sarif"}, Fixtures()).exit_code, 2);
}

TEST(ValidateCliTest, NotCheckedIsReportedInEveryFormat) {
  TempDir tmp;
  // The committables name a sink directory that does not exist on this host (as when the
  // savepoint was taken on another machine), so CKPT-A005 cannot be checked.
  const std::string sp = tmp.Sub("sp");
  std::filesystem::copy(FixturePath("engine-v1/savepoint-e0e1e2-30e19071c9cd"), sp,
                        std::filesystem::copy_options::recursive);
  const std::string elsewhere = tmp.Sub("other-host/out");
  ASSERT_OK(RewriteMetadata(sp, [&elsewhere](pb::CheckpointMetadata& m) {
    for (auto& op : *m.mutable_operators()) {
      for (auto& st : *op.mutable_subtasks()) {
        for (auto& c : *st.mutable_committables()) {
          c.set_pending_path(elsewhere + "/" + base::BaseName(c.pending_path()));
          c.set_final_path(elsewhere + "/" + base::BaseName(c.final_path()));
        }
      }
    }
  }));
  const std::string job = FixturePath("engine-v1/keyed_sum.job.json");
  ToolRun text = RunTool({"validate", sp, "--against", job}, tmp.path());
  ToolRun json = RunTool({"validate", sp, "--against", job, "--format", "json"}, tmp.path());
  ToolRun junit = RunTool({"validate", sp, "--against", job, "--format", "junit"}, tmp.path());
  ToolRun gh = RunTool({"validate", sp, "--against", job, "--format", "github-actions"}, tmp.path());
  ToolRun strict = RunTool({"validate", sp, "--against", job, "--strict"}, tmp.path());
  EXPECT_NE(text.out.find("not checked CKPT-A005"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("error CKPT-A005"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("warning CKPT-A005"), std::string::npos) << text.out;
  EXPECT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(json.out.find("{\"type\":\"not_checked\",\"rule\":\"CKPT-A005\""), std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"not_checked\":[\"CKPT-A005\"]"), std::string::npos) << json.out;
  EXPECT_NE(junit.out.find("<skipped message=\"not checked: "), std::string::npos) << junit.out;
  EXPECT_NE(gh.out.find("::notice "), std::string::npos) << gh.out;
  EXPECT_NE(gh.out.find("CKPT-A005 not checked"), std::string::npos) << gh.out;
  EXPECT_NE(text.out.find("verdict: restore undetermined: CKPT-A005 could not be checked"),
            std::string::npos)
      << text.out;
  ToolRun table = RunTool({"validate", sp, "--against", job, "--capabilities"}, tmp.path());
  const size_t row = table.out.find("\nrestore ");
  ASSERT_NE(row, std::string::npos) << table.out;
  const std::string restore_row = table.out.substr(row + 1, table.out.find('\n', row + 1) - row - 1);
  EXPECT_NE(restore_row.find(" unknown "), std::string::npos) << table.out;
  EXPECT_EQ(text.out.find("Supported operations"), std::string::npos) << text.out;
  EXPECT_EQ(strict.exit_code, 1) << strict.out;
}

}  // namespace
}  // namespace ckpt::testing
