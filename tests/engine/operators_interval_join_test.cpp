// interval-join (engine/src/operators/interval_join.cpp): exactly the pairs with
// lower <= s - t <= upper, across a snapshot/restore; buffers expire with the watermark.
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(IntervalJoinTest, BuffersStayBoundedWhileOneInputRunsAhead) {
  // A positive lower bound (s - t in [2, 7]) and the right input 300 ms ahead of the left, the
  // watermark held back by the left: every millisecond one record per side, key ts % 3. What is
  // buffered (map entries plus one cleanup timer per bucket) must stay within what the
  // watermark lag and the interval allow, however long the stream runs, and drain to nothing.
  constexpr int64_t kLag = 300;
  constexpr int64_t kEnd = 3000;
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                   "interval-join", R"({"lower_ms": 2, "upper_ms": 7})",
                                   {.keyed = true}));
  ASSERT_OK(h->Initialize());
  uint64_t max_entries = 0;
  for (int64_t i = 0; i < kEnd + kLag; ++i) {
    const int64_t s = i;         // right
    const int64_t t = i - kLag;  // left, behind
    if (s < kEnd) ASSERT_OK(h->Process(KV(Value(s % 3), Value(2000 + s), s), 1));
    if (t >= 0) ASSERT_OK(h->Process(KV(Value(t % 3), Value(1000 + t), t), 0));
    if (t >= 1) ASSERT_OK(h->Watermark(t - 1));
    max_entries = std::max(max_entries, h->keyed()->NumEntries());
  }
  // Right buckets live until s - 2 <= watermark: those from about watermark - 2 to the right's
  // front; left ones until t + 7 <= watermark. Each bucket has one timer. Without cleanup the
  // count would reach 2 * (kEnd + kEnd) entries.
  EXPECT_LE(max_entries, 2u * (kLag + 2 + 7 + 4));
  EXPECT_GE(max_entries, uint64_t{kLag});
  ASSERT_OK(h->Watermark(kMaxWatermark));
  EXPECT_EQ(h->keyed()->NumEntries(), 0u);
  // Exactly the pairs s - t in [2, 7] with equal keys (s % 3 == t % 3, so s - t is 3 or 6).
  std::multiset<JoinedPair> got, expected;
  for (const Record& o : h->records()) {
    const auto& f = std::get<format::Tuple>(o.value.v).fields;
    got.insert({std::get<int64_t>(o.key.v), std::get<int64_t>(f[0].v), std::get<int64_t>(f[1].v),
                o.timestamp});
  }
  for (int64_t t = 0; t < kEnd; ++t) {
    for (int64_t s : {t + 3, t + 6}) {
      if (s < kEnd) expected.insert({t % 3, 1000 + t, 2000 + s, s});
    }
  }
  EXPECT_EQ(got, expected);
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
