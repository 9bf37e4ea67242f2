// Window math of the catalog's event-time window operators (engine/src/operators/window_assigner.cpp).
#include "ckpt/engine/operators/window_assigner.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine::operators {
namespace {

TEST(WindowAssignerTest, WindowStartMatchesFlinkForPositiveAndNegativeTimestamps) {
  EXPECT_EQ(WindowStart(0, 0, 10), 0);
  EXPECT_EQ(WindowStart(9, 0, 10), 0);
  EXPECT_EQ(WindowStart(10, 0, 10), 10);
  EXPECT_EQ(WindowStart(-1, 0, 10), -10);
  EXPECT_EQ(WindowStart(-10, 0, 10), -10);
  EXPECT_EQ(WindowStart(-11, 0, 10), -20);
  EXPECT_EQ(WindowStart(7, 3, 10), 3);
  EXPECT_EQ(WindowStart(2, 3, 10), -7);
}

TEST(WindowAssignerTest, TumblingAssignsExactlyOneWindowContainingTheTimestamp) {
  ASSERT_OK_AND_ASSIGN(WindowAssigner a, WindowAssigner::Tumbling(100));
  for (int64_t ts : {-250, -1, 0, 1, 99, 100, 12345}) {
    std::vector<TimeWindow> w = a.Assign(ts);
    ASSERT_EQ(w.size(), 1u) << ts;
    EXPECT_LE(w[0].start, ts);
    EXPECT_GT(w[0].end, ts);
    EXPECT_EQ(w[0].end - w[0].start, 100);
    EXPECT_EQ(w[0].MaxTimestamp(), w[0].end - 1);
  }
  EXPECT_EQ(a.Assign(12345)[0], (TimeWindow{12300, 12400}));
}

TEST(WindowAssignerTest, SlidingAssignsSizeOverSlideWindowsLatestFirst) {
  ASSERT_OK_AND_ASSIGN(WindowAssigner a, WindowAssigner::Sliding(30, 10));
  EXPECT_EQ(a.WindowsPerElement(), 3);
  std::vector<TimeWindow> w = a.Assign(25);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], (TimeWindow{20, 50}));
  EXPECT_EQ(w[1], (TimeWindow{10, 40}));
  EXPECT_EQ(w[2], (TimeWindow{0, 30}));
}

TEST(WindowAssignerTest, SlidingWithSizeNotAMultipleOfSlideCoversEveryContainingWindow) {
  ASSERT_OK_AND_ASSIGN(WindowAssigner a, WindowAssigner::Sliding(25, 10));
  // Brute force: every window start s (a multiple of 10) with s <= ts < s + 25.
  for (int64_t ts = -60; ts <= 60; ++ts) {
    std::vector<TimeWindow> expected;
    for (int64_t s = 100; s >= -200; s -= 10) {
      if (s <= ts && ts < s + 25) expected.push_back({s, s + 25});
    }
    EXPECT_EQ(a.Assign(ts), expected) << "ts=" << ts;
  }
}

TEST(WindowAssignerTest, RejectsBadParametersNamingTheField) {
  ASSERT_STATUS(WindowAssigner::Tumbling(0), kInvalidArgument, "size_ms");
  ASSERT_STATUS(WindowAssigner::Tumbling(10, 10), kInvalidArgument, "offset_ms");
  ASSERT_STATUS(WindowAssigner::Sliding(10, 0), kInvalidArgument, "slide_ms");
  ASSERT_STATUS(WindowAssigner::Sliding(10, 20), kInvalidArgument, "slide_ms");
  ASSERT_STATUS(WindowAssigner::Sliding(-5, 1), kInvalidArgument, "size_ms");
}

}  // namespace
}  // namespace ckpt::engine::operators
