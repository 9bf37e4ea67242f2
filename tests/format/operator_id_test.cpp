#include "ckpt/format/operator_id.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

TEST(OperatorIdTest, MatchesFlinkUidHashTestVector) {
  // Flink writes this operator ID for uid "datagen-source-uid" (fixtures from Flink 2.0).
  EXPECT_EQ(OperatorId::FromUid("datagen-source-uid").ToHex(), "47aee94394d6ea26e2d544bef0a37bb5");
}

TEST(OperatorIdTest, HexRoundTrips) {
  OperatorId id = OperatorId::FromUid("my-operator");
  ASSERT_OK_AND_ASSIGN(OperatorId back, OperatorId::FromHex(id.ToHex()));
  EXPECT_EQ(back, id);
  ASSERT_OK_AND_ASSIGN(OperatorId upper, OperatorId::FromHex("47AEE94394D6EA26E2D544BEF0A37BB5"));
  EXPECT_EQ(upper, OperatorId::FromUid("datagen-source-uid"));
}

TEST(OperatorIdTest, BytesRoundTrips) {
  OperatorId id = OperatorId::FromUid("x");
  ASSERT_OK_AND_ASSIGN(OperatorId back, OperatorId::FromBytes(id.ToBytes()));
  EXPECT_EQ(back, id);
}

TEST(OperatorIdTest, RejectsMalformedHex) {
  ASSERT_STATUS(OperatorId::FromHex("abc"), kInvalidArgument, "32 hex digits");
  ASSERT_STATUS(OperatorId::FromHex(std::string(31, '0') + "g"), kInvalidArgument, "non-hex");
}

TEST(OperatorIdTest, RejectsWrongByteCount) {
  ASSERT_STATUS(OperatorId::FromBytes("short"), kCorruption, "expected 16");
}

TEST(OperatorIdTest, DifferentUidsGiveDifferentIds) {
  EXPECT_NE(OperatorId::FromUid("a"), OperatorId::FromUid("b"));
  EXPECT_NE(OperatorId::FromUid(""), OperatorId::FromUid(" "));
}

}  // namespace
}  // namespace ckpt::format
