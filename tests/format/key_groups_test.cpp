#include "ckpt/format/key_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

TEST(KeyGroupsTest, RangesPartitionAllKeyGroupsForManyParallelisms) {
  for (uint32_t maxp : {1u, 2u, 7u, 128u, 129u, 1000u, 4096u, 32768u}) {
    for (uint32_t p = 1; p <= std::min<uint32_t>(maxp, 70); ++p) {
      uint32_t next = 0;
      for (uint32_t i = 0; i < p; ++i) {
        KeyGroupRange r = RangeForSubtask(maxp, p, i);
        ASSERT_EQ(r.start, next) << "maxP=" << maxp << " p=" << p << " i=" << i;
        ASSERT_FALSE(r.empty()) << "maxP=" << maxp << " p=" << p << " i=" << i;
        for (uint32_t g : {r.start, r.end}) {
          ASSERT_EQ(SubtaskForKeyGroup(maxp, p, g), i) << "maxP=" << maxp << " p=" << p;
        }
        next = r.end + 1;
      }
      ASSERT_EQ(next, maxp) << "maxP=" << maxp << " p=" << p;
    }
  }
}

TEST(KeyGroupsTest, RangeMatchesCeilFormula) {
  // [ceil(i*maxP/p), ceil((i+1)*maxP/p) - 1], as ARCHITECTURE §3 states.
  EXPECT_EQ(RangeForSubtask(128, 3, 0), (KeyGroupRange{0, 42}));
  EXPECT_EQ(RangeForSubtask(128, 3, 1), (KeyGroupRange{43, 85}));
  EXPECT_EQ(RangeForSubtask(128, 3, 2), (KeyGroupRange{86, 127}));
  EXPECT_EQ(RangeForSubtask(32768, 7, 6), (KeyGroupRange{28087, 32767}));
}

TEST(KeyGroupsTest, DefaultMaxParallelismFollowsFlink) {
  EXPECT_EQ(DefaultMaxParallelism(1), 128u);
  EXPECT_EQ(DefaultMaxParallelism(85), 128u);
  EXPECT_EQ(DefaultMaxParallelism(86), 256u);   // 86 * 1.5 = 129 -> 256
  EXPECT_EQ(DefaultMaxParallelism(1000), 2048u);
  EXPECT_EQ(DefaultMaxParallelism(30000), 32768u);
}

TEST(KeyGroupsTest, KeyGroupIsStableAndInRange) {
  for (uint32_t maxp : {1u, 128u, 32768u}) {
    for (int k = 0; k < 1000; ++k) {
      std::string key = "key-" + std::to_string(k);
      uint32_t g = KeyGroupForKey(key, maxp);
      ASSERT_LT(g, maxp);
      ASSERT_EQ(g, KeyGroupForKey(key, maxp));
    }
  }
}

TEST(KeyGroupsTest, KeysSpreadOverKeyGroups) {
  std::vector<int> counts(128, 0);
  for (int k = 0; k < 12800; ++k) ++counts[KeyGroupForKey(std::to_string(k), 128)];
  for (int c : counts) {
    EXPECT_GT(c, 50);
    EXPECT_LT(c, 160);
  }
}

TEST(KeyGroupsTest, CheckParallelismRejectsOutOfRange) {
  EXPECT_OK(CheckParallelism(4, 128));
  ASSERT_STATUS(CheckParallelism(200, 128), kInvalidArgument, "parallelism 200");
  ASSERT_STATUS(CheckParallelism(1, 40000), kInvalidArgument, "max parallelism 40000");
  ASSERT_STATUS(CheckParallelism(0, 128), kInvalidArgument, "parallelism 0");
}

}  // namespace
}  // namespace ckpt::format
