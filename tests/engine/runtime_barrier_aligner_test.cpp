#include "runtime/barrier_aligner.h"

#include <gtest/gtest.h>

namespace ckpt::engine::runtime {
namespace {

std::shared_ptr<const CheckpointOptions> Barrier(int64_t id) {
  auto o = std::make_shared<CheckpointOptions>();
  o->checkpoint_id = id;
  return o;
}

TEST(BarrierAlignerTest, AlignedBlocksEachChannelUntilAllDeliveredTheBarrier) {
  BarrierAligner a(3, /*aligned=*/true);
  auto d = a.OnBarrier(1, Barrier(7), 100);
  EXPECT_EQ(d.block, std::vector<uint32_t>{1});
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(0, Barrier(7), 105);
  EXPECT_EQ(d.block, std::vector<uint32_t>{0});
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(2, Barrier(7), 130);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 7);
  EXPECT_TRUE(d.unblock_all);
  EXPECT_EQ(d.alignment_ms, 30);
  EXPECT_EQ(d.first_barrier_ms, 100);
  EXPECT_FALSE(a.aligning());
}

TEST(BarrierAlignerTest, SingleChannelTriggersAtOnce) {
  BarrierAligner a(1, true);
  auto d = a.OnBarrier(0, Barrier(1), 0);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.block.empty());
}

TEST(BarrierAlignerTest, NewerBarrierAbandonsTheOlderAlignment) {
  BarrierAligner a(2, true);
  (void)a.OnBarrier(0, Barrier(3), 0);
  auto d = a.OnBarrier(1, Barrier(4), 1);
  ASSERT_TRUE(d.aborted.has_value());
  EXPECT_EQ(*d.aborted, 3);
  EXPECT_TRUE(d.unblock_all);
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(0, Barrier(4), 2);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 4);
  // A late barrier of the abandoned checkpoint is ignored.
  d = a.OnBarrier(1, Barrier(3), 3);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.block.empty());
}

TEST(BarrierAlignerTest, EndedChannelIsNoLongerWaitedFor) {
  BarrierAligner a(2, true);
  (void)a.OnBarrier(0, Barrier(5), 0);
  auto d = a.OnEndOfPartition(1, 9);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 5);
  // Afterwards one live channel: the next barrier triggers immediately.
  d = a.OnBarrier(0, Barrier(6), 10);
  ASSERT_TRUE(d.trigger);
}

TEST(BarrierAlignerTest, AtLeastOnceNeverBlocks) {
  BarrierAligner a(2, /*aligned=*/false);
  auto d = a.OnBarrier(0, Barrier(1), 0);
  EXPECT_TRUE(d.block.empty());
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(1, Barrier(1), 4);
  ASSERT_TRUE(d.trigger);
  EXPECT_FALSE(d.unblock_all);
}

}  // namespace
}  // namespace ckpt::engine::runtime
