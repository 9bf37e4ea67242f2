// Tests of ops/src/model/mapping.cpp: the one OLD=NEW parser both faces use, and the
// mistyped-hash warning.
#include "ckpt/ops/mapping.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::ops {
namespace {

TEST(MappingTest, SplitsAtTheFirstEqualsAndTrims) {
  ASSERT_OK_AND_ASSIGN(OperatorMapping m, ParseMapping("  orders = uid:a=b ", "--map"));
  EXPECT_EQ(m.from, "orders");
  EXPECT_EQ(m.to, "uid:a=b");
}

TEST(MappingTest, RefusesMissingSidesNamingTheText) {
  for (const char* bad : {"orders", "=x", "x=", " = ", ""}) {
    ASSERT_STATUS(ParseMapping(bad, "--map"), kInvalidArgument, "--map '");
  }
}

TEST(MappingTest, UidRewritesMayHaveOneEmptySide) {
  ASSERT_OK_AND_ASSIGN(UidRewrite add, ParseUidRewrite("=v2-", "--uid-prefix"));
  EXPECT_EQ(add.from, "");
  EXPECT_EQ(add.to, "v2-");
  ASSERT_OK_AND_ASSIGN(UidRewrite remove, ParseUidRewrite("v1-=", "--uid-prefix"));
  EXPECT_EQ(remove.to, "");
  ASSERT_STATUS(ParseUidRewrite("=", "--uid-prefix"), kInvalidArgument, "--uid-prefix");
  ASSERT_STATUS(ParseUidRewrite("v1-", "--uid-suffix"), kInvalidArgument, "--uid-suffix");
}

TEST(MappingTest, LinesSkipBlanksAndCommentsAndNameTheBadLine) {
  ASSERT_OK_AND_ASSIGN(auto ms, ParseMappingLines("a=b\n\n# comment\n  c = d \n"));
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[1].from, "c");
  EXPECT_EQ(ms[1].to, "d");
  ASSERT_STATUS(ParseMappingLines("a=b\nbroken\n"), kInvalidArgument, "line 2");
}

TEST(MappingTest, WarnsOnSidesThatLookLikeMistypedHashes) {
  const std::string id32 = "ca88eee0095684d687a1b6495617f957";
  EXPECT_TRUE(MappingWarnings({"numbers", id32}).empty());
  EXPECT_TRUE(MappingWarnings({"numbers", "numbers-v2"}).empty());
  auto w31 = MappingWarnings({"numbers", id32.substr(1)});
  ASSERT_EQ(w31.size(), 1u);
  EXPECT_NE(w31[0].find("NEW '" + id32.substr(1) + "' has 31 hex digits"), std::string::npos)
      << w31[0];
  auto w33 = MappingWarnings({id32 + "0", "x"});
  ASSERT_EQ(w33.size(), 1u);
  EXPECT_NE(w33[0].find("OLD"), std::string::npos);
  std::string typo = id32;
  typo[5] = 'g';
  EXPECT_EQ(MappingWarnings({"numbers", typo}).size(), 1u);
  EXPECT_TRUE(MappingWarnings({"numbers", "uid:" + id32.substr(1)}).empty());
}

}  // namespace
}  // namespace ckpt::ops
