// Built-in text functions of the catalog (engine/src/operators/text_functions.cpp).
#include "ckpt/engine/operators/text_functions.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine::operators {
namespace {

TEST(TextFunctionsTest, ParsesKeyValueWithSpacesAndNegativeValues) {
  ASSERT_OK_AND_ASSIGN(KeyValue kv, ParseKeyValue("apple,42"));
  EXPECT_EQ(kv, (KeyValue{"apple", 42}));
  ASSERT_OK_AND_ASSIGN(kv, ParseKeyValue("  a b , -7\r"));
  EXPECT_EQ(kv, (KeyValue{"a b", -7}));
  // The value follows the last comma, so keys may contain commas.
  ASSERT_OK_AND_ASSIGN(kv, ParseKeyValue("x,y,3"));
  EXPECT_EQ(kv, (KeyValue{"x,y", 3}));
}

TEST(TextFunctionsTest, RejectsMalformedKeyValueQuotingTheText) {
  ASSERT_STATUS(ParseKeyValue("novalue"), kInvalidArgument, "\"novalue\"");
  ASSERT_STATUS(ParseKeyValue(",5"), kInvalidArgument, "empty key");
  ASSERT_STATUS(ParseKeyValue("k,5x"), kInvalidArgument, "\"k,5x\"");
  ASSERT_STATUS(ParseKeyValue("k,99999999999999999999"), kInvalidArgument, "integer");
  ASSERT_STATUS(ParseKeyValue("k,"), kInvalidArgument, "integer");
}

TEST(TextFunctionsTest, QuotesOnlyAPrefixOfHugeInput) {
  const std::string huge(10000, 'x');
  base::Result<KeyValue> r = ParseKeyValue(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 200u);
}

TEST(TextFunctionsTest, SplitsWordsLowerCasedKeepingInnerApostrophes) {
  std::vector<std::string> words;
  SplitWords("The source's state -- 'quoted' DON'T, x2; ''", &words);
  EXPECT_EQ(words,
            (std::vector<std::string>{"the", "source's", "state", "quoted", "don't", "x2"}));
  words.clear();
  SplitWords("", &words);
  EXPECT_TRUE(words.empty());
}

TEST(TextFunctionsTest, ParsesInt64Bounds) {
  ASSERT_OK_AND_ASSIGN(int64_t v, ParseInt64("-9223372036854775808"));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_STATUS(ParseInt64("9223372036854775808"), kInvalidArgument, "9223372036854775808");
  ASSERT_STATUS(ParseInt64(""), kInvalidArgument, "integer");
}

}  // namespace
}  // namespace ckpt::engine::operators
