// interval-join (engine/src/operators/interval_join.cpp): exactly the pairs with
// lower <= s - t <= upper, across a snapshot/restore; buffers expire with the watermark.
#include <gtest/gtest.h>

#include <set>

#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::KV;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

using JoinedPair = std::tuple<int64_t, int64_t, int64_t, int64_t>;  // key, left, right, timestamp

TEST(IntervalJoinTest, JoinsWithinTheIntervalAcrossARestoreAndExpiresBuffers) {
  const std::string params = R"({"lower_ms": -5, "upper_ms": 10})";
  // Left: value 1000+t at t = 0, 3, 6, ...; right: value 2000+s at s = 0, 7, 14, ...; key t%2.
  std::vector<Record> left, right;
  for (int64_t t = 0; t < 120; t += 3) left.push_back(KV(Value(t % 2), Value(1000 + t), t));
  for (int64_t s = 0; s < 120; s += 7) right.push_back(KV(Value(s % 2), Value(2000 + s), s));

  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("interval-join", params, {.keyed = true}));
  ASSERT_OK(h->Initialize());
  // Interleave by timestamp, as two inputs with aligned event time would arrive; the watermark
  // trails by 20 ms.
  size_t li = 0, ri = 0;
  std::multiset<JoinedPair> got;
  std::unique_ptr<OperatorHarness> current = std::move(h);
  bool restored = false;
  while (li < left.size() || ri < right.size()) {
    const bool take_left =
        ri == right.size() || (li < left.size() && left[li].timestamp <= right[ri].timestamp);
    Record r = take_left ? left[li++] : right[ri++];
    const int64_t ts = r.timestamp;
    ASSERT_OK(current->Process(std::move(r), take_left ? 0 : 1));
    if (ts % 10 == 0 && ts >= 20) ASSERT_OK(current->Watermark(ts - 20));
    if (!restored && ts >= 60) {
      ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, current->Snapshot(1));
      for (const Record& o : current->records()) {
        const auto& f = std::get<format::Tuple>(o.value.v).fields;
        got.insert({std::get<int64_t>(o.key.v), std::get<int64_t>(f[0].v),
                    std::get<int64_t>(f[1].v), o.timestamp});
      }
      ASSERT_OK_AND_ASSIGN(current,
                           OperatorHarness::Create("interval-join", params, {.keyed = true}));
      ASSERT_OK(current->Initialize({snap}));
      ASSERT_OK(current->Watermark(ts - 20));
      restored = true;
    }
  }
  ASSERT_OK(current->Watermark(kMaxWatermark));
  for (const Record& o : current->records()) {
    const auto& f = std::get<format::Tuple>(o.value.v).fields;
    got.insert({std::get<int64_t>(o.key.v), std::get<int64_t>(f[0].v), std::get<int64_t>(f[1].v),
                o.timestamp});
  }
  std::multiset<JoinedPair> expected;
  for (int64_t t = 0; t < 120; t += 3) {
    for (int64_t s = 0; s < 120; s += 7) {
      if (t % 2 == s % 2 && s - t >= -5 && s - t <= 10) {
        expected.insert({t % 2, 1000 + t, 2000 + s, std::max(t, s)});
      }
    }
  }
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(got, expected);
  // After the final watermark every buffer has expired.
  EXPECT_EQ(current->keyed()->NumEntries(), 0u);
}

TEST(IntervalJoinTest, RejectsBadParamsNamingTheField) {
  ASSERT_STATUS(OperatorHarness::Create("interval-join", R"({"lower_ms": 0})"), kInvalidArgument,
                "params.upper_ms");
  ASSERT_STATUS(OperatorHarness::Create("interval-join", R"({"lower_ms": 5, "upper_ms": 1})"),
                kInvalidArgument, "params.upper_ms");
  ASSERT_STATUS(OperatorHarness::Create("interval-join",
                                        R"({"lower_ms": 0, "upper_ms": 1, "left_type": "x"})"),
                kInvalidArgument, "params.left_type");
}

}  // namespace
}  // namespace ckpt::engine
