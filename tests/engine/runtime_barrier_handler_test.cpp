#include "runtime/barrier_handler.h"

#include <gtest/gtest.h>

namespace ckpt::engine::runtime {
namespace {

std::shared_ptr<const CheckpointOptions> BarrierOptions(int64_t id,
                                                        pb::SnapshotKind kind = pb::CHECKPOINT) {
  auto o = std::make_shared<CheckpointOptions>();
  o->checkpoint_id = id;
  o->kind = kind;
  return o;
}

TEST(BarrierHandlerTest, AlignedBlocksEachChannelUntilAllDeliveredTheBarrier) {
  BarrierHandler a(3, BarrierHandler::Mode::kAligned);
  auto d = a.OnBarrier(1, BarrierOptions(7), 100);
  EXPECT_EQ(d.block, std::vector<uint32_t>{1});
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(0, BarrierOptions(7), 105);
  EXPECT_EQ(d.block, std::vector<uint32_t>{0});
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(2, BarrierOptions(7), 130);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 7);
  EXPECT_TRUE(d.unblock_all);
  EXPECT_EQ(d.alignment_ms, 30);
  EXPECT_EQ(d.first_barrier_ms, 100);
  EXPECT_FALSE(a.pending());
}

TEST(BarrierHandlerTest, SingleChannelTriggersAtOnce) {
  BarrierHandler a(1, BarrierHandler::Mode::kAligned);
  auto d = a.OnBarrier(0, BarrierOptions(1), 0);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.block.empty());
}

TEST(BarrierHandlerTest, NewerBarrierAbandonsTheOlderAlignment) {
  BarrierHandler a(2, BarrierHandler::Mode::kAligned);
  (void)a.OnBarrier(0, BarrierOptions(3), 0);
  auto d = a.OnBarrier(1, BarrierOptions(4), 1);
  ASSERT_TRUE(d.aborted.has_value());
  EXPECT_EQ(*d.aborted, 3);
  EXPECT_TRUE(d.unblock_all);
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(0, BarrierOptions(4), 2);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 4);
  // A late barrier of the abandoned checkpoint is ignored.
  d = a.OnBarrier(1, BarrierOptions(3), 3);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.block.empty());
}

TEST(BarrierHandlerTest, EndedChannelIsNoLongerWaitedFor) {
  BarrierHandler a(2, BarrierHandler::Mode::kAligned);
  (void)a.OnBarrier(0, BarrierOptions(5), 0);
  auto d = a.OnEndOfPartition(1, 9);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 5);
  // Afterwards one live channel: the next barrier triggers immediately.
  d = a.OnBarrier(0, BarrierOptions(6), 10);
  ASSERT_TRUE(d.trigger);
}

TEST(BarrierHandlerTest, AtLeastOnceNeverBlocks) {
  BarrierHandler a(2, BarrierHandler::Mode::kAtLeastOnce);
  auto d = a.OnBarrier(0, BarrierOptions(1), 0);
  EXPECT_TRUE(d.block.empty());
  EXPECT_FALSE(d.trigger);
  d = a.OnBarrier(1, BarrierOptions(1), 4);
  ASSERT_TRUE(d.trigger);
  EXPECT_FALSE(d.unblock_all);
}

TEST(BarrierHandlerTest, UnalignedTriggersOnTheFirstBarrierAndTracksTheRest) {
  BarrierHandler a(3, BarrierHandler::Mode::kUnaligned);
  auto d = a.OnBarrier(2, BarrierOptions(4), 100);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.unaligned);
  EXPECT_TRUE(d.block.empty());
  ASSERT_TRUE(d.barrier_channel.has_value());
  EXPECT_EQ(*d.barrier_channel, 2u);
  EXPECT_FALSE(d.all_received);
  d = a.OnBarrier(0, BarrierOptions(4), 110);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.block.empty());
  ASSERT_TRUE(d.barrier_channel.has_value());
  EXPECT_EQ(*d.barrier_channel, 0u);
  EXPECT_FALSE(d.all_received);
  d = a.OnBarrier(1, BarrierOptions(4), 125);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.all_received);
  EXPECT_EQ(d.alignment_ms, 25);
  EXPECT_FALSE(a.pending());
}

TEST(BarrierHandlerTest, UnalignedSingleChannelTriggersAndCompletesAtOnce) {
  BarrierHandler a(1, BarrierHandler::Mode::kUnaligned);
  auto d = a.OnBarrier(0, BarrierOptions(1), 0);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.unaligned);
  EXPECT_TRUE(d.all_received);
}

TEST(BarrierHandlerTest, SavepointBarriersAreAlignedInUnalignedMode) {
  BarrierHandler a(2, BarrierHandler::Mode::kUnaligned);
  auto d = a.OnBarrier(0, BarrierOptions(9, pb::SAVEPOINT), 0);
  EXPECT_FALSE(d.trigger);
  EXPECT_EQ(d.block, std::vector<uint32_t>{0});
  d = a.OnBarrier(1, BarrierOptions(9, pb::SAVEPOINT), 1);
  ASSERT_TRUE(d.trigger);
  EXPECT_FALSE(d.unaligned);
  EXPECT_TRUE(d.unblock_all);
}

TEST(BarrierHandlerTest, NewerUnalignedBarrierAbandonsTheTrackedOne) {
  BarrierHandler a(2, BarrierHandler::Mode::kUnaligned);
  ASSERT_TRUE(a.OnBarrier(0, BarrierOptions(3), 0).trigger);
  auto d = a.OnBarrier(0, BarrierOptions(4), 1);
  ASSERT_TRUE(d.aborted.has_value());
  EXPECT_EQ(*d.aborted, 3);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 4);
  // The late barrier 3 on channel 1 is stale.
  d = a.OnBarrier(1, BarrierOptions(3), 2);
  EXPECT_FALSE(d.trigger);
  EXPECT_FALSE(d.barrier_channel.has_value());
  d = a.OnBarrier(1, BarrierOptions(4), 3);
  EXPECT_TRUE(d.all_received);
}

TEST(BarrierHandlerTest, UnalignedEndedChannelCompletesTheTracking) {
  BarrierHandler a(2, BarrierHandler::Mode::kUnaligned);
  ASSERT_TRUE(a.OnBarrier(1, BarrierOptions(2), 0).trigger);
  auto d = a.OnEndOfPartition(0, 5);
  EXPECT_TRUE(d.all_received);
  EXPECT_FALSE(d.trigger);
}

std::shared_ptr<const CheckpointOptions> TimedBarrier(int64_t id, int64_t trigger_ms) {
  auto o = std::make_shared<CheckpointOptions>();
  o->checkpoint_id = id;
  o->trigger_timestamp_ms = trigger_ms;
  return o;
}

TEST(BarrierHandlerTest, AlignedWithTimeoutAlignsAndSetsATimerFromTheTriggerTime) {
  BarrierHandler a(3, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  auto d = a.OnBarrier(1, TimedBarrier(5, 1000), 1010);
  EXPECT_FALSE(d.trigger);
  EXPECT_EQ(d.block, std::vector<uint32_t>{1});
  ASSERT_TRUE(d.timer_at_ms.has_value());
  EXPECT_EQ(*d.timer_at_ms, 1050);  // trigger + timeout, not first barrier + timeout
  d = a.OnBarrier(0, TimedBarrier(5, 1000), 1020);
  EXPECT_EQ(d.block, std::vector<uint32_t>{0});
  EXPECT_FALSE(d.timer_at_ms.has_value());
  d = a.OnBarrier(2, TimedBarrier(5, 1000), 1030);
  ASSERT_TRUE(d.trigger);
  EXPECT_FALSE(d.unaligned);  // aligned within the timeout
  EXPECT_TRUE(d.unblock_all);
  // The timer of an alignment that ended does nothing.
  d = a.OnAlignmentTimer(5, 1050);
  EXPECT_FALSE(d.trigger);
}

TEST(BarrierHandlerTest, AlignedWithTimeoutSwitchesToUnalignedWhenTheTimerFires) {
  BarrierHandler a(3, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  a.OnBarrier(2, TimedBarrier(6, 1000), 1010);
  auto d = a.OnAlignmentTimer(6, 1050);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.unaligned);
  EXPECT_TRUE(d.switched);
  EXPECT_TRUE(d.unblock_all);
  EXPECT_EQ(d.received, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(d.first_barrier_ms, 1010);
  // The remaining barriers are tracked as unaligned ones: nothing blocks.
  d = a.OnBarrier(0, TimedBarrier(6, 1000), 1060);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.block.empty());
  ASSERT_TRUE(d.barrier_channel.has_value());
  EXPECT_EQ(*d.barrier_channel, 0u);
  d = a.OnBarrier(1, TimedBarrier(6, 1000), 1070);
  EXPECT_TRUE(d.all_received);
  EXPECT_EQ(d.alignment_ms, 60);
  EXPECT_FALSE(a.pending());
}

TEST(BarrierHandlerTest, AlignedWithTimeoutBarrierOlderThanTheTimeoutIsUnalignedAtOnce) {
  BarrierHandler a(2, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  auto d = a.OnBarrier(0, TimedBarrier(7, 1000), 1080);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.unaligned);
  EXPECT_FALSE(d.switched);
  EXPECT_TRUE(d.block.empty());
  EXPECT_FALSE(d.timer_at_ms.has_value());
}

TEST(BarrierHandlerTest, AlignedWithTimeoutPriorityBarrierSwitchesThePendingAlignment) {
  BarrierHandler a(3, BarrierHandler::Mode::kAlignedWithTimeout, 1000000);
  a.OnBarrier(0, TimedBarrier(8, 1000), 1001);
  // An upstream already switched: its barrier overtook buffers, so it cannot be aligned on.
  auto d = a.OnBarrier(1, TimedBarrier(8, 1000), 1002, /*priority=*/true);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.unaligned);
  EXPECT_TRUE(d.unblock_all);
  ASSERT_TRUE(d.barrier_channel.has_value());
  EXPECT_EQ(*d.barrier_channel, 1u);
  EXPECT_EQ(d.received, (std::vector<bool>{true, true, false}));
  EXPECT_FALSE(d.all_received);
}

TEST(BarrierHandlerTest, AlignedWithTimeoutSavepointsStayAligned) {
  BarrierHandler a(2, BarrierHandler::Mode::kAlignedWithTimeout, 0);
  auto d = a.OnBarrier(0, BarrierOptions(9, pb::SAVEPOINT), 5000);
  EXPECT_FALSE(d.trigger);
  EXPECT_EQ(d.block, std::vector<uint32_t>{0});
  EXPECT_FALSE(d.timer_at_ms.has_value());
  EXPECT_FALSE(a.OnAlignmentTimer(9, 6000).trigger);
}

TEST(BarrierHandlerTest, AnnouncedBarrierStartsTheTimerBeforeAnyBarrierIsTaken) {
  BarrierHandler a(2, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  // Queued behind buffers on channel 1: the task has not taken it.
  auto d = a.OnAnnouncement(1, TimedBarrier(4, 1000), 1005);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.block.empty());
  ASSERT_TRUE(d.timer_at_ms.has_value());
  EXPECT_EQ(*d.timer_at_ms, 1050);
  EXPECT_EQ(d.timer_checkpoint, 4);
  EXPECT_FALSE(a.pending());
  // The timer fires before the task got to the barrier: unaligned, nothing received yet.
  d = a.OnAlignmentTimer(4, 1050);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 4);
  EXPECT_TRUE(d.unaligned);
  EXPECT_EQ(d.received, (std::vector<bool>{false, false}));
  EXPECT_EQ(d.first_barrier_ms, 1005);
  EXPECT_TRUE(a.pending());
  // The barriers, when the task gets to them, are tracked as unaligned ones.
  d = a.OnBarrier(1, TimedBarrier(4, 1000), 1200);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.block.empty());
  d = a.OnBarrier(0, TimedBarrier(4, 1000), 1300);
  EXPECT_FALSE(d.trigger);
  EXPECT_TRUE(d.all_received);
  EXPECT_FALSE(a.pending());
}

TEST(BarrierHandlerTest, AnnouncementOfATimedOutCheckpointSwitchesAtOnce) {
  BarrierHandler a(1, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  auto d = a.OnAnnouncement(0, TimedBarrier(3, 1000), 1060);
  ASSERT_TRUE(d.trigger);
  EXPECT_TRUE(d.unaligned);
  EXPECT_EQ(d.received, std::vector<bool>{false});
  d = a.OnBarrier(0, TimedBarrier(3, 1000), 1500);
  EXPECT_TRUE(d.all_received);
  EXPECT_FALSE(d.trigger);
}

TEST(BarrierHandlerTest, AnnouncementIsIgnoredOnceItsBarrierWasTakenAndInOtherModes) {
  BarrierHandler a(1, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  auto d = a.OnAnnouncement(0, TimedBarrier(2, 1000), 1001);
  ASSERT_TRUE(d.timer_at_ms.has_value());
  // The task took the barrier in time (single channel: aligned at once).
  d = a.OnBarrier(0, TimedBarrier(2, 1000), 1010);
  ASSERT_TRUE(d.trigger);
  EXPECT_FALSE(d.unaligned);
  // Its timer then does nothing, nor does a late announcement.
  EXPECT_FALSE(a.OnAlignmentTimer(2, 1050).trigger);
  EXPECT_FALSE(a.OnAnnouncement(0, TimedBarrier(2, 1000), 1060).trigger);
  // Savepoints are never announced into a switch; other modes ignore announcements.
  EXPECT_FALSE(a.OnAnnouncement(0, BarrierOptions(5, pb::SAVEPOINT), 9000).timer_at_ms.has_value());
  BarrierHandler aligned(1, BarrierHandler::Mode::kAligned);
  d = aligned.OnAnnouncement(0, TimedBarrier(1, 0), 100000);
  EXPECT_FALSE(d.trigger);
  EXPECT_FALSE(d.timer_at_ms.has_value());
}

TEST(BarrierHandlerTest, AnnouncedNewerCheckpointAbandonsThePendingAlignmentOnItsTimer) {
  BarrierHandler a(2, BarrierHandler::Mode::kAlignedWithTimeout, 50);
  a.OnBarrier(0, TimedBarrier(5, 1000), 1010);  // aligning 5, channel 1 still behind
  auto d = a.OnAnnouncement(0, TimedBarrier(6, 1100), 1110);
  ASSERT_TRUE(d.timer_at_ms.has_value());
  EXPECT_EQ(d.timer_checkpoint, 6);
  d = a.OnAlignmentTimer(6, 1150);
  ASSERT_TRUE(d.trigger);
  EXPECT_EQ(d.trigger->checkpoint_id, 6);
  ASSERT_TRUE(d.aborted.has_value());
  EXPECT_EQ(*d.aborted, 5);
  EXPECT_TRUE(d.unblock_all);
  // Checkpoint 5's late barrier is stale now.
  d = a.OnBarrier(1, TimedBarrier(5, 1000), 1160);
  EXPECT_FALSE(d.trigger);
  EXPECT_FALSE(d.all_received);
}

}  // namespace
}  // namespace ckpt::engine::runtime
