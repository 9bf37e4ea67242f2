// Tests of ops::ComputeStats (ops/src/read/stats.cpp).
#include "ckpt/ops/stats.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

TEST(StatsTest, SizesByOperatorStateAndKeyGroup) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s));
  ASSERT_EQ(r.operators.size(), 4u);
  const OperatorStats& agg = r.operators[1];
  EXPECT_EQ(agg.uid, "per-user-aggregate");
  ASSERT_EQ(agg.states.size(), 4u);
  EXPECT_EQ(agg.states[0].entries, 24u);   // order-count
  EXPECT_EQ(agg.states[2].entries, 48u);   // spend-by-category map entries
  uint64_t groups_records = 0, group_bytes = 0;
  for (const auto& g : agg.key_groups) {
    groups_records += g.records;
    group_bytes += g.bytes;
  }
  EXPECT_EQ(groups_records, 24u * 5);
  EXPECT_EQ(group_bytes, agg.keyed_logical_bytes);
  ASSERT_FALSE(agg.largest_key_groups.empty());
  EXPECT_LE(agg.largest_key_groups.size(), 5u);
  for (size_t i = 1; i < agg.largest_key_groups.size(); ++i) {
    EXPECT_GE(agg.largest_key_groups[i - 1].bytes, agg.largest_key_groups[i].bytes);
  }
  EXPECT_GT(agg.skew, 1.0);
  EXPECT_EQ(r.operators[2].states[0].kind, StateKind::kOperatorUnion);
  EXPECT_EQ(r.operators[2].states[0].entries, 2u);
  EXPECT_TRUE(r.findings.empty());
}

// v1/unaligned: the source (p2) persisted its output subpartitions to the 6 window subtasks,
// and each window subtask its 2 input channels; stats attributes both sides to the one edge.
TEST(StatsTest, InFlightDataByEdge) {
  ASSERT_OK_AND_ASSIGN(
      Snapshot s, LoadSnapshot(base::Fs::Default(),
                               FixturePath("v1/unaligned/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-5")));
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s));
  ASSERT_EQ(r.in_flight.size(), 1u);
  const EdgeInFlightStats& e = r.in_flight[0];
  EXPECT_EQ(e.source, "source");
  EXPECT_EQ(e.target, "window");
  EXPECT_EQ(e.partitioning, Partitioning::kRebalance);
  EXPECT_EQ(e.output_bytes, 2u * (36 + 84 + 36 + 84 + 36 + 84));
  EXPECT_EQ(e.output_buffers, 2u * 9);
  EXPECT_EQ(e.input_bytes, 6u * 110);
  EXPECT_EQ(e.input_buffers, 6u * 3);
  EXPECT_EQ(r.unattributed_in_flight_bytes, 0u);
  // An aligned snapshot has none.
  ASSERT_OK_AND_ASSIGN(Snapshot a, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  ASSERT_OK_AND_ASSIGN(StatsReport ra, ComputeStats(base::Fs::Default(), a));
  EXPECT_TRUE(ra.in_flight.empty());
}

TEST(StatsTest, SkewAndUnionFindingsFollowThresholds) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  StatsOptions o;
  o.skew_factor = 1.5;
  o.union_factor = 0.1;  // 2 entries at parallelism 2 is "far above" with this factor
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].rule_id, "CKPT-S001");
  EXPECT_EQ(r.findings[0].location.operator_name, "Per-user aggregate");
  EXPECT_TRUE(r.findings[0].location.key_group.has_value());
  EXPECT_EQ(r.findings[1].rule_id, "CKPT-S002");
  EXPECT_EQ(r.findings[1].location.operator_name, "Watermark tracker");
}

TEST(StatsTest, WithoutPerStateScanOnlyFootersAreRead) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  StatsOptions o;
  o.per_state = false;
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  EXPECT_EQ(r.operators[1].states[0].bytes, 0u);
  EXPECT_FALSE(r.operators[1].key_groups.empty());
}

TEST(StatsTest, MissingStateFileIsAnErrorNamingIt) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(),
                                                FixturePath("corrupt/missing-referenced-file")));
  ASSERT_STATUS(ComputeStats(base::Fs::Default(), s), kNotFound, "tiny-count-0-keyed.state");
}

}  // namespace
}  // namespace ckpt::ops
