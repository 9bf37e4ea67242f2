// Golden and exit-code tests of the ckpt-tool binary for ls, show, files, dump, validate, stats
// and completion, run with the fixtures directory as working directory so every path in the
// output is relative. CKPT_UPDATE_GOLDEN=1 rewrites tests/ckpt-tool/golden/*.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "ckpt/ops/validate.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

const std::string kChk2 = "v1/checkpoints/" + kFixtureV1Job + "/chk-2";
const std::string kUnaligned = "v1/unaligned/" + kFixtureV1Job + "/chk-5";

std::string Fixtures() { return FixturePath(""); }

const std::vector<std::string> kAllFormats = {"text", "json", "junit", "github-actions"};

std::string Ext(const std::string& format) { return format == "github-actions" ? "github" : format; }

TEST(CliGoldenTest, Ls) {
  for (const std::string f : {"text", "json"}) {
    ExpectToolGolden("ls-root." + f, {"ls", "v1/checkpoints", "--format", f}, 0);
    ExpectToolGolden("ls-savepoint." + f, {"ls", "v1/savepoint", "--format", f}, 0);
    ExpectToolGolden("ls-unaligned." + f, {"ls", kUnaligned + "/_metadata", "--format", f}, 0);
  }
}

TEST(CliGoldenTest, Show) {
  for (const std::string f : {"text", "json"}) {
    ExpectToolGolden("show-savepoint." + f, {"show", "v1/savepoint", "--format", f}, 0);
    ExpectToolGolden("show-checkpoint." + f, {"show", kChk2, "--format", f}, 0);
    ExpectToolGolden("show-unaligned." + f, {"show", kUnaligned, "--format", f}, 0);
  }
}

TEST(CliGoldenTest, Files) {
  for (const std::string f : {"text", "json"}) {
    ExpectToolGolden("files-checkpoint." + f, {"files", kChk2, "--format", f}, 0);
    ExpectToolGolden("files-unaligned." + f, {"files", kUnaligned, "--format", f}, 0);
    // A referenced file is missing: listed as missing, exit 1.
    ExpectToolGolden("files-missing." + f, {"files", "corrupt/missing-referenced-file", "--format", f}, 1);
  }
}

TEST(CliGoldenTest, Dump) {
  for (const std::string f : {"text", "json"}) {
    ExpectToolGolden("dump-aggregate." + f, {"dump", "v1/savepoint", "--operator", "per-user-aggregate", "--format", f}, 0);
    ExpectToolGolden("dump-key." + f, {"dump", "v1/savepoint", "--operator", "Per-user aggregate", "--state",
                             "spend-by-category", "--key", "user-07", "--format", f}, 0);
    ExpectToolGolden("dump-operator-state." + f, {"dump", "v1/savepoint", "--operator", "watermark-tracker", "--format", f}, 0);
    ExpectToolGolden("dump-changelog." + f, {"dump", kChk2, "--operator", "5b61d6019ab04da71a4e62533c1a8c40",
                                   "--key-group", "53", "--format", f}, 0);
  }
}

TEST(CliGoldenTest, ValidateCleanInEveryFormat) {
  for (const auto& f : kAllFormats) {
    ExpectToolGolden("validate-savepoint." + Ext(f), {"validate", "--deep", "v1/savepoint", "--format", f}, 0);
    ExpectToolGolden("validate-unaligned." + Ext(f), {"validate", kUnaligned, "--format", f}, 0);
  }
  // Text shows the capability table only when asked, and every finding with --verbose.
  ExpectToolGolden("validate-unaligned-capabilities.text",
                   {"validate", kUnaligned, "--capabilities", "--verbose"}, 0);
}

TEST(CliGoldenTest, ValidateCorruptFixturesInEveryFormat) {
  for (const std::string c : {"bad-magic", "block-checksum-mismatch", "escaping-reference",
                              "flipped-payload-byte", "future-version", "missing-referenced-file",
                              "truncated-metadata"}) {
    for (const auto& f : kAllFormats) {
      ExpectToolGolden("validate-corrupt-" + c + "." + Ext(f), {"validate", "corrupt/" + c, "--format", f}, 1);
    }
  }
}

// CKPT-A004 is the engine's restore rule (restore_plan.cpp, CheckChannelStateParallelism): the
// fixture's in-flight data was written over a REBALANCE edge at 2 -> 6. Rescaled over the same
// REBALANCE edge it is redistributed; a changed partitioner (HASH, even at the same parallelism)
// or a BROADCAST edge is refused by the restore, so validate must fail it too.
TEST(CliValidateTest, InFlightDataRuleMatchesTheEngineRestore) {
  struct Case {
    const char* spec;
    bool refused;
  };
  for (const Case& c : {Case{"unaligned-rebalance-rescaled", false},
                        Case{"unaligned-hash-repartitioned", true},
                        Case{"unaligned-broadcast-rescaled", true}}) {
    SCOPED_TRACE(c.spec);
    ToolRun run = RunTool({"validate", kUnaligned, "--against",
                           std::string("../tests/ckpt-tool/data/") + c.spec + ".job.json",
                           "--no-capabilities", "--format", "json"},
                          Fixtures());
    const bool a004 = run.out.find("\"rule\":\"CKPT-A004\"") != std::string::npos;
    EXPECT_EQ(a004, c.refused) << run.out;
    if (c.refused) {
      EXPECT_EQ(run.exit_code, 1) << run.err;
    }
  }
}

TEST(CliGoldenTest, ValidateAgainstInEveryFormat) {
  for (const auto& f : kAllFormats) {
    ExpectToolGolden("validate-against-changed." + Ext(f),
           {"validate", kChk2, "--against", "../tests/ckpt-tool/data/counts-changed.job.json",
            "--no-capabilities", "--format", f}, 1);
    ExpectToolGolden("validate-against-unaligned-rescaled." + Ext(f),
           {"validate", kUnaligned, "--against",
            "../tests/ckpt-tool/data/unaligned-rescaled.job.json", "--no-capabilities", "--format", f}, 1);
  }
  ExpectToolGolden("validate-against-allowed.text",
         {"validate", kChk2, "--against", "../tests/ckpt-tool/data/counts-changed.job.json", "-n",
          "--no-capabilities"}, 1);  // A002 (max parallelism) still fails
}

TEST(CliGoldenTest, Stats) {
  for (const auto& f : kAllFormats) {
    ExpectToolGolden("stats-savepoint." + Ext(f), {"stats", "v1/savepoint", "--format", f}, 0);
  }
  ExpectToolGolden("stats-checkpoint.text", {"stats", kChk2, "--top", "3"}, 0);
  // A tiny skew factor turns the savepoint's key-group spread into a warning.
  ExpectToolGolden("stats-skew.text", {"stats", "v1/savepoint", "--skew-factor", "1.5"}, 0);
  ExpectToolGolden("stats-skew-strict.github", {"stats", "v1/savepoint", "--skew-factor", "1.5", "--strict",
                                      "--format", "github-actions"}, 1);
}

TEST(CliGoldenTest, Completion) {
  for (const std::string shell : {"bash", "zsh", "fish"}) {
    ExpectToolGolden("completion-" + shell + ".txt", {"completion", shell}, 0);
  }
}

TEST(CliGoldenTest, CompletionCoversEveryVerbAndFlag) {
  ToolRun bash = RunTool({"completion", "bash"}, Fixtures());
  for (const std::string word : {"ls", "show", "files", "dump", "validate", "stats", "completion",
                                 "--deep", "--against", "--allow-non-restored-state", "--key-group",
                                 "--operator", "--format", "junit"}) {
    EXPECT_NE(bash.out.find(word), std::string::npos) << word;
  }
}

TEST(CliExitCodeTest, UsageErrorsAreTwo) {
  EXPECT_EQ(RunTool({}, Fixtures()).exit_code, 2);
  EXPECT_EQ(RunTool({"frobnicate"}, Fixtures()).exit_code, 2);
  EXPECT_EQ(RunTool({"validate", "v1/savepoint", "--no-such-flag"}, Fixtures()).exit_code, 2);
  EXPECT_EQ(RunTool({"ls", "v1/savepoint", "--format", "xml"}, Fixtures()).exit_code, 2);
  // ls output is not findings: junit is refused as a usage error.
  ToolRun junit = RunTool({"ls", "v1/savepoint", "--format", "junit"}, Fixtures());
  EXPECT_EQ(junit.exit_code, 2);
  EXPECT_NE(junit.err.find("ls supports --format text, json"), std::string::npos) << junit.err;
  // Without --operator dump prints everything; its filters still need one.
  EXPECT_EQ(RunTool({"dump", "v1/savepoint", "--key-group", "1"}, Fixtures()).exit_code, 2);
  EXPECT_EQ(RunTool({"dump", "v1/savepoint", "--operator", "per-user-aggregate", "--key-group", "128"},
                    Fixtures()).exit_code, 2);
}

TEST(CliExitCodeTest, MissingPathIsTwoWithMessageOnStderr) {
  for (const std::string verb : {"ls", "show", "files", "validate", "stats"}) {
    ToolRun run = RunTool({verb, "no/such/snapshot"}, Fixtures());
    EXPECT_EQ(run.exit_code, 2) << verb;
    EXPECT_TRUE(run.out.empty()) << verb << ": " << run.out;
    EXPECT_NE(run.err.find("no/such/snapshot"), std::string::npos) << verb << ": " << run.err;
  }
  EXPECT_EQ(RunTool({"dump", "no/such", "--operator", "x"}, Fixtures()).exit_code, 2);
}

TEST(CliExitCodeTest, FindingsAreOneCleanIsZero) {
  EXPECT_EQ(RunTool({"validate", "v1/savepoint"}, Fixtures()).exit_code, 0);
  EXPECT_EQ(RunTool({"validate", "corrupt/bad-magic"}, Fixtures()).exit_code, 1);
  EXPECT_EQ(RunTool({"--quiet", "validate", "--deep", kChk2}, Fixtures()).exit_code, 0);
}

TEST(CliExitCodeTest, HelpHasExamplesAndExitsZero) {
  for (const std::string verb : {"ls", "show", "files", "dump", "validate", "stats", "completion"}) {
    ToolRun run = RunTool({verb, "--help"}, Fixtures());
    EXPECT_EQ(run.exit_code, 0) << verb;
    EXPECT_NE(run.out.find("Examples:"), std::string::npos) << verb;
  }
}

TEST(CliOutputTest, OutputFileReceivesReportAndStdoutStaysEmpty) {
  TempDir tmp;
  ToolRun run = RunTool({"validate", "corrupt/bad-magic", "--format", "junit", "-o", tmp.Sub("v.xml")},
                        Fixtures());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(run.out.empty());
  std::ifstream in(tmp.Sub("v.xml"));
  const std::string xml((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(xml.find("<failure type=\"CKPT-M002\""), std::string::npos) << xml;
}

TEST(CliOutputTest, OutputIsDeterministic) {
  ToolRun a = RunTool({"show", "--format", "json", "v1/savepoint"}, Fixtures());
  ToolRun b = RunTool({"show", "--format", "json", "v1/savepoint"}, Fixtures());
  EXPECT_EQ(a.out, b.out);
  ToolRun c = RunTool({"validate", "--deep", "--format", "json", "corrupt/block-checksum-mismatch"}, Fixtures());
  ToolRun d = RunTool({"validate", "--deep", "--format", "json", "corrupt/block-checksum-mismatch"}, Fixtures());
  EXPECT_EQ(c.out, d.out);
}

// docs/validate-rules.md must list every rule with its severity (it is generated from the table).
TEST(ValidateRulesDocTest, DocumentsEveryRule) {
  std::ifstream in(std::string(CKPT_SOURCE_DIR) + "/docs/validate-rules.md");
  ASSERT_TRUE(in.good());
  const std::string doc((std::istreambuf_iterator<char>(in)), {});
  std::set<std::string> ids;
  for (const auto& r : ops::AllRules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate rule " << r.id;
    const std::string row = "| " + r.id + " | " + std::string(ops::SeverityName(r.severity)) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/validate-rules.md lacks " << row;
    EXPECT_FALSE(r.hint.empty()) << r.id;
  }
}

}  // namespace
}  // namespace ckpt::testing
