// Tests of the timer service (engine/src/state/timer_service.cpp): dedupe, order, deletion,
// firing sets the key and namespace, timers registered while firing.
#include "ckpt/engine/state/timer_service.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine {
namespace {

using format::Value;

TEST(TimerServiceTest, FiresDueTimersInOrderOnceEach) {
  HeapKeyedStateBackend b(128, {0, 127}, "t");
  TimerService* ts = b.timer_service();
  for (int64_t k : {3, 1, 2}) {
    ASSERT_OK(b.SetCurrentKey(Value(k)));
    ASSERT_OK(ts->RegisterEventTimeTimer(100 * k));
    ASSERT_OK(ts->RegisterEventTimeTimer(100 * k));  // deduplicated
  }
  EXPECT_EQ(ts->NumEventTimers(), 3u);
  EXPECT_EQ(ts->NextEventTimerMs(), 100);
  std::vector<std::pair<int64_t, int64_t>> fired;  // (timestamp, key)
  ASSERT_OK(ts->AdvanceWatermark(250, [&](const Timer& t) {
    EXPECT_EQ(t.domain, TimeDomain::kEventTime);
    fired.emplace_back(t.timestamp, std::get<int64_t>(b.current_key().v));
    return base::Status::OK();
  }));
  EXPECT_EQ(fired, (std::vector<std::pair<int64_t, int64_t>>{{100, 1}, {200, 2}}));
  EXPECT_EQ(ts->current_watermark(), 250);
  EXPECT_EQ(ts->NumEventTimers(), 1u);
}

TEST(TimerServiceTest, DeleteAndProcessingTime) {
  HeapKeyedStateBackend b(128, {0, 127}, "t");
  TimerService* ts = b.timer_service();
  ASSERT_OK(b.SetCurrentKey(Value("a")));
  ASSERT_OK(ts->RegisterProcessingTimeTimer(5));
  ASSERT_OK(ts->RegisterProcessingTimeTimer(7));
  ASSERT_OK(ts->DeleteProcessingTimeTimer(5));
  ASSERT_OK(ts->DeleteProcessingTimeTimer(99));
  EXPECT_EQ(ts->NextProcessingTimerMs(), 7);
  int fired = 0;
  ASSERT_OK(ts->FireProcessingTimers(6, [&](const Timer&) {
    ++fired;
    return base::Status::OK();
  }));
  EXPECT_EQ(fired, 0);
  ASSERT_OK(ts->FireProcessingTimers(7, [&](const Timer& t) {
    ++fired;
    EXPECT_EQ(t.domain, TimeDomain::kProcessingTime);
    EXPECT_EQ(std::get<std::string>(b.current_key().v), "a");
    return base::Status::OK();
  }));
  EXPECT_EQ(fired, 1);
  EXPECT_FALSE(ts->NextProcessingTimerMs().has_value());
}

TEST(TimerServiceTest, NamespaceIsPartOfTheTimerAndRestoredOnFire) {
  HeapKeyedStateBackend b(128, {0, 127}, "t");
  TimerService* ts = b.timer_service();
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{1})));
  b.SetCurrentNamespace("w1");
  ASSERT_OK(ts->RegisterEventTimeTimer(10));
  b.SetCurrentNamespace("w2");
  ASSERT_OK(ts->RegisterEventTimeTimer(10));
  b.SetCurrentNamespace("");
  std::vector<std::string> namespaces;
  ASSERT_OK(ts->AdvanceWatermark(10, [&](const Timer& t) {
    namespaces.push_back(t.ns);
    EXPECT_EQ(std::string(b.current_namespace()), t.ns);
    return base::Status::OK();
  }));
  EXPECT_EQ(namespaces, (std::vector<std::string>{"w1", "w2"}));
}

TEST(TimerServiceTest, TimersRegisteredWhileFiringFireIfDue) {
  HeapKeyedStateBackend b(128, {0, 127}, "t");
  TimerService* ts = b.timer_service();
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{1})));
  ASSERT_OK(ts->RegisterEventTimeTimer(1));
  std::vector<int64_t> fired;
  ASSERT_OK(ts->AdvanceWatermark(5, [&](const Timer& t) {
    fired.push_back(t.timestamp);
    if (t.timestamp < 4) return ts->RegisterEventTimeTimer(t.timestamp + 2);
    return base::Status::OK();
  }));
  EXPECT_EQ(fired, (std::vector<int64_t>{1, 3, 5}));
}

TEST(TimerServiceTest, CallbackErrorStopsFiring) {
  HeapKeyedStateBackend b(128, {0, 127}, "t");
  TimerService* ts = b.timer_service();
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{1})));
  ASSERT_OK(ts->RegisterEventTimeTimer(1));
  ASSERT_OK(ts->RegisterEventTimeTimer(2));
  ASSERT_STATUS(ts->AdvanceWatermark(
                    9, [](const Timer&) { return base::Status::Internal("boom"); }),
                kInternal, "boom");
  EXPECT_EQ(ts->NumEventTimers(), 1u);
}

}  // namespace
}  // namespace ckpt::engine
