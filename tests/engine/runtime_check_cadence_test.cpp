#include "runtime/check_cadence.h"

#include <gtest/gtest.h>

namespace ckpt::engine::runtime {
namespace {

// Counts Tick calls until one says "check now".
uint32_t TicksToCheck(CheckCadence& c) {
  uint32_t n = 1;
  while (!c.Tick()) ++n;
  return n;
}

TEST(CheckCadenceTest, CheapElementsStretchTheStrideUpToItsBound) {
  CheckCadence c;
  int64_t now_us = 1'000'000;
  c.Checked(now_us);
  for (int i = 0; i < 40; ++i) {
    const uint32_t n = TicksToCheck(c);
    EXPECT_EQ(n, c.stride());
    now_us += 10;  // far under a quarter of the target between two checks
    c.Checked(now_us);
  }
  EXPECT_EQ(c.stride(), CheckCadence::kMaxStride);
}

TEST(CheckCadenceTest, SlowElementsBringTheStrideDownToOne) {
  CheckCadence c;
  int64_t now_us = 1'000'000;
  c.Checked(now_us);
  for (int i = 0; i < 20; ++i) {
    TicksToCheck(c);
    now_us += 10;
    c.Checked(now_us);
  }
  ASSERT_EQ(c.stride(), CheckCadence::kMaxStride);
  // Each element now takes 5 ms: within a few checks the task checks after every element, so
  // a timer or the buffer timeout waits for at most one element.
  for (int i = 0; i < 20; ++i) {
    now_us += static_cast<int64_t>(TicksToCheck(c)) * 5000;
    c.Checked(now_us);
  }
  EXPECT_EQ(c.stride(), 1u);
  EXPECT_EQ(TicksToCheck(c), 1u);
}

TEST(CheckCadenceTest, StrideSettlesWhereChecksFallAboutEveryTargetInterval) {
  CheckCadence c;
  int64_t now_us = 1'000'000;
  c.Checked(now_us);
  // 2 microseconds an element: strides of 128..512 keep a check within 250..1000 us.
  for (int i = 0; i < 50; ++i) {
    now_us += static_cast<int64_t>(TicksToCheck(c)) * 2;
    c.Checked(now_us);
  }
  const int64_t interval_us = static_cast<int64_t>(c.stride()) * 2;
  EXPECT_GE(interval_us, CheckCadence::kTargetMicros / 8);
  EXPECT_LE(interval_us, CheckCadence::kTargetMicros * 2);
}

}  // namespace
}  // namespace ckpt::engine::runtime
