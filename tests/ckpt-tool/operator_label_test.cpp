#include "ckpt/ops/operator_label.h"

#include <gtest/gtest.h>

#include "ckpt/format/operator_id.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/uids.h"

namespace ckpt::ops {
namespace {

constexpr char kOperatorLabelTestId[] = "a2469328b540934507249cbf9b294c51";

TEST(OperatorLabelTest, NameComesFirstThenUidThenId) {
  EXPECT_EQ(OperatorLabel("Per-user aggregate", "per-user-aggregate", kOperatorLabelTestId),
            "Per-user aggregate");
  EXPECT_EQ(OperatorLabel("", "per-user-aggregate", kOperatorLabelTestId), "per-user-aggregate");
  EXPECT_EQ(OperatorLabel("", "", kOperatorLabelTestId), kOperatorLabelTestId);
}

TEST(OperatorLabelTest, DashWhenAllAreEmpty) { EXPECT_EQ(OperatorLabel("", "", ""), "-"); }

TEST(OperatorLabelTest, FindingLocationFollowsTheRuleAndLeavesTheIdToReaders) {
  Location named =
      OperatorLocationOf("Per-user aggregate", "per-user-aggregate", kOperatorLabelTestId);
  EXPECT_EQ(named.operator_id, kOperatorLabelTestId);
  EXPECT_EQ(named.operator_name, "Per-user aggregate");
  EXPECT_EQ(OperatorLocationOf("", "per-user-aggregate", kOperatorLabelTestId).operator_name,
            "per-user-aggregate");
  // Neither name nor uid: the name stays empty so renderers do not print the ID twice.
  Location bare = OperatorLocationOf("", "", kOperatorLabelTestId);
  EXPECT_EQ(bare.operator_id, kOperatorLabelTestId);
  EXPECT_TRUE(bare.operator_name.empty());
}

TEST(OperatorLabelTest, UidsNameOnlyFindingsWithoutAName) {
  const std::string id = format::OperatorId::FromUid("sum").ToHex();
  std::vector<Finding> findings(2);
  findings[0].location = OperatorLocationOf("", "", id);
  findings[1].location = OperatorLocationOf("Sum", "", id);
  NameFindingsByUids({"sum"}, &findings);
  EXPECT_EQ(findings[0].location.operator_name, "sum");
  EXPECT_EQ(findings[1].location.operator_name, "Sum");
}

}  // namespace
}  // namespace ckpt::ops
