// ckpt-tool answers that must never mislead (issue 9): ls finds every snapshot set and exits 1
// on corrupt ones, dump says "no entries match" with exit 1, diff never says "same" without
// comparing values, show --format json speaks the shared vocabulary.
#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

TEST(CliAnswersTest, LsFindsTheThreeSnapshotSetsOfFixturesV1) {
  ToolRun run = RunTool({"ls", "v1", "--format", "json"}, FixturePath(""));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  for (const std::string& path : std::vector<std::string>{
           "checkpoints/" + kFixtureV1Job + "/chk-1", "checkpoints/" + kFixtureV1Job + "/chk-2",
           std::string("savepoint"), "unaligned/" + kFixtureV1Job + "/chk-5"}) {
    EXPECT_NE(run.out.find("\"path\":\"" + path + "\""), std::string::npos) << path << "\n"
                                                                          << run.out;
  }
}

TEST(CliAnswersTest, LsExitsOneOnARootWithCorruptSnapshots) {
  ToolRun run = RunTool({"ls", "corrupt"}, FixturePath(""));
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("corrupt"), std::string::npos);
  ToolRun clean = RunTool({"ls", "v1/checkpoints"}, FixturePath(""));
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
}

TEST(CliAnswersTest, DumpSaysNoEntriesMatchAndExitsOne) {
  for (const std::vector<std::string>& filter :
       std::vector<std::vector<std::string>>{{"--key-group", "1"}, {"--key", "42"},
        {"--state", "order-count", "--key", "user-99"}}) {
    std::vector<std::string> args = {"dump", "v1/savepoint", "--operator", "per-user-aggregate"};
    args.insert(args.end(), filter.begin(), filter.end());
    ToolRun run = RunTool(args, FixturePath(""));
    EXPECT_EQ(run.exit_code, 1) << filter[0];
    EXPECT_EQ(run.out, "");
    EXPECT_NE(run.err.find("no entries match"), std::string::npos) << run.err;
  }
  ToolRun all = RunTool({"dump", "v1/savepoint", "--format", "json"}, FixturePath(""));
  EXPECT_EQ(all.exit_code, 0) << all.err;
  for (const char* source : {"\"source\":\"committable\"", "\"source\":\"coordinator\"",
                             "\"timestamp\":"}) {
    EXPECT_NE(all.out.find(source), std::string::npos) << source;
  }
}

TEST(CliAnswersTest, DiffNeverSaysSameWithoutComparingValues) {
  const std::string a = "v1/checkpoints/" + kFixtureV1Job + "/chk-1";
  const std::string b = "v1/checkpoints/" + kFixtureV1Job + "/chk-2";
  ToolRun sizes = RunTool({"diff", a, a}, FixturePath(""));
  EXPECT_EQ(sizes.exit_code, 0) << sizes.err;
  EXPECT_EQ(sizes.out.find("\nsame "), std::string::npos) << sizes.out;
  EXPECT_NE(sizes.out.find("size-unchanged"), std::string::npos) << sizes.out;
  EXPECT_NE(sizes.out.find("values not compared"), std::string::npos) << sizes.out;
  // Changelog checkpoints: replayed values are compared, never "not compared ... 0 same".
  ToolRun keys = RunTool({"diff", a, b, "--keys"}, FixturePath(""));
  EXPECT_EQ(keys.exit_code, 1) << keys.err;
  EXPECT_EQ(keys.out.find("not compared key by key"), std::string::npos) << keys.out;
  EXPECT_NE(keys.out.find("values count/count: changed"), std::string::npos) << keys.out;
  ToolRun self = RunTool({"diff", b, b, "--keys"}, FixturePath(""));
  EXPECT_EQ(self.exit_code, 0) << self.err;
  EXPECT_NE(self.out.find("values count/count: same"), std::string::npos) << self.out;
  EXPECT_NE(self.out.find("no differences in state"), std::string::npos) << self.out;
}

TEST(CliAnswersTest, ShowJsonUsesHexIdsNumbersAndLowercaseEnums) {
  ToolRun run = RunTool({"show", "v1/savepoint", "--format", "json"}, FixturePath(""));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"operator_id\":\"a2469328b540934507249cbf9b294c51\""),
            std::string::npos);
  EXPECT_NE(run.out.find("\"checkpoint_id\":42,"), std::string::npos);
  EXPECT_NE(run.out.find("\"kind\":\"savepoint\""), std::string::npos);
  EXPECT_EQ(run.out.find("SAVEPOINT"), std::string::npos);   // no protobuf enum names
  EXPECT_EQ(run.out.find("\"operatorId\""), std::string::npos);  // no protobuf JSON names
}

}  // namespace
}  // namespace ckpt::testing
