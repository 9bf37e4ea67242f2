// tumbling-window and sliding-window (engine/src/operators/window_operator.cpp): results equal
// their closed form, windows fire on the watermark only, late records are dropped, and window
// contents and timers survive a snapshot/restore (reducing and list state, maxP 4 and 32768).
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::HarnessOptions;
using testing::KV;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

// (key, start) -> result, from emitted (key, (start, end, result)) records.
std::map<std::pair<int64_t, int64_t>, int64_t> Results(const std::vector<Record>& records) {
  std::map<std::pair<int64_t, int64_t>, int64_t> out;
  for (const Record& r : records) {
    const auto& f = std::get<format::Tuple>(r.value.v).fields;
    auto [it, inserted] = out.emplace(
        std::make_pair(std::get<int64_t>(r.key.v), std::get<int64_t>(f[0].v)),
        std::get<int64_t>(f[2].v));
    EXPECT_TRUE(inserted) << "window fired twice";
    EXPECT_EQ(std::get<int64_t>(f[1].v) - 1, r.timestamp);
  }
  return out;
}

TEST(WindowOperatorTest, TumblingSumFiresOnWatermarkWithClosedFormResult) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("tumbling-window", R"({"size_ms": 10})",
                                                       {.keyed = true}));
  ASSERT_OK(h->Initialize());
  for (int64_t t = 0; t < 30; ++t) ASSERT_OK(h->Process(KV(Value(t % 2), Value(t), t)));
  ASSERT_OK(h->Watermark(8));
  EXPECT_TRUE(h->records().empty());
  ASSERT_OK(h->Watermark(9));  // window [0, 10) of both keys
  ASSERT_EQ(h->records().size(), 2u);
  ASSERT_OK(h->Watermark(kMaxWatermark));
  auto results = Results(h->records());
  ASSERT_EQ(results.size(), 6u);
  for (auto [kw, sum] : results) {
    int64_t expected = 0;
    for (int64_t t = kw.second; t < kw.second + 10; ++t) expected += t % 2 == kw.first ? t : 0;
    EXPECT_EQ(sum, expected);
  }
  EXPECT_EQ(h->output().watermarks.back(), kMaxWatermark);  // forwarded after the results
}

TEST(WindowOperatorTest, DropsLateRecords) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                   "tumbling-window", R"({"size_ms": 10, "aggregate": "count"})",
                                   {.keyed = true}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(KV(Value("k"), Value(int64_t{1}), 3)));
  ASSERT_OK(h->Watermark(15));
  ASSERT_OK(h->Process(KV(Value("k"), Value(int64_t{1}), 5)));   // late: [0,10) fired
  ASSERT_OK(h->Process(KV(Value("k"), Value(int64_t{1}), 16)));  // on time
  ASSERT_OK(h->Watermark(kMaxWatermark));
  ASSERT_EQ(h->records().size(), 2u);
  EXPECT_EQ(std::get<format::Tuple>(h->records()[0].value.v).fields[2], Value(int64_t{1}));
  EXPECT_EQ(std::get<format::Tuple>(h->records()[1].value.v).fields[2], Value(int64_t{1}));
}

TEST(WindowOperatorTest, SlidingMinMaxAndListStateAgreeWithBruteForce) {
  for (const char* agg : {"sum", "count", "min", "max"}) {
    for (const char* state : {"reducing", "list"}) {
      const std::string params = std::string(R"({"size_ms": 25, "slide_ms": 10, "aggregate": ")") +
                                 agg + R"(", "state": ")" + state + R"("})";
      ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sliding-window", params,
                                                           {.keyed = true}));
      ASSERT_OK(h->Initialize());
      std::vector<std::pair<int64_t, int64_t>> input;  // (ts, value)
      for (int64_t i = 0; i < 60; ++i) input.emplace_back((i * 7) % 53, (i * 31) % 17 - 8);
      for (auto [ts, v] : input) ASSERT_OK(h->Process(KV(Value(int64_t{7}), Value(v), ts)));
      ASSERT_OK(h->Watermark(kMaxWatermark));
      auto results = Results(h->records());
      for (auto [kw, result] : results) {
        std::vector<int64_t> in_window;
        for (auto [ts, v] : input) {
          if (ts >= kw.second && ts < kw.second + 25) in_window.push_back(v);
        }
        ASSERT_FALSE(in_window.empty());
        int64_t expected = 0;
        if (std::string(agg) == "sum") {
          for (int64_t v : in_window) expected += v;
        } else if (std::string(agg) == "count") {
          expected = static_cast<int64_t>(in_window.size());
        } else if (std::string(agg) == "min") {
          expected = *std::min_element(in_window.begin(), in_window.end());
        } else {
          expected = *std::max_element(in_window.begin(), in_window.end());
        }
        EXPECT_EQ(result, expected) << agg << "/" << state << " window " << kw.second;
      }
      // Windows starting at -20 .. 50 step 10 that contain any timestamp in [0, 52].
      EXPECT_EQ(results.size(), 8u) << agg << "/" << state;
    }
  }
}

class WindowRestoreTest : public ::testing::TestWithParam<std::tuple<uint32_t, const char*>> {};

TEST_P(WindowRestoreTest, ContentsAndTimersSurviveRescaledRestore) {
  // Not a structured binding: clang 14 (the tsan preset) cannot capture one in a lambda.
  const uint32_t max_p = std::get<0>(GetParam());
  const char* state = std::get<1>(GetParam());
  const std::string params = std::string(R"({"size_ms": 100, "slide_ms": 50, "state": ")") +
                             state + R"("})";
  auto route = [&](int64_t key, uint32_t p) {
    std::string enc;
    EXPECT_OK(EncodeRecordKey(Value(key), &enc));
    return format::SubtaskForKeyGroup(max_p, p, KeyGroupOfEncodedKey(enc, max_p));
  };
  constexpr int64_t kKeys = 16, kN = 2000;
  std::map<std::pair<int64_t, int64_t>, int64_t> results;
  // Phase 1 at p=2: timestamps [0, 1000), watermark 499 (windows ending <= 500 fire).
  std::vector<SubtaskSnapshot> snaps;
  for (uint32_t i = 0; i < 2; ++i) {
    HarnessOptions o{.subtask = i, .parallelism = 2, .max_parallelism = max_p, .keyed = true};
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sliding-window", params, o));
    ASSERT_OK(h->Initialize());
    for (int64_t v = 0; v < kN / 2; ++v) {
      if (route(v % kKeys, 2) == i) ASSERT_OK(h->Process(KV(Value(v % kKeys), Value(v), v)));
    }
    ASSERT_OK(h->Watermark(499));
    ASSERT_OK_AND_ASSIGN(SubtaskSnapshot s, h->Snapshot(1));
    snaps.push_back(std::move(s));
    for (auto [k, r] : Results(h->records())) results[k] = r;
  }
  // Phase 2 at p=3 from the snapshot: timestamps [1000, 2000), then end of input.
  for (uint32_t i = 0; i < 3; ++i) {
    HarnessOptions o{.subtask = i, .parallelism = 3, .max_parallelism = max_p, .keyed = true};
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sliding-window", params, o));
    ASSERT_OK(h->Initialize(snaps));
    ASSERT_OK(h->Watermark(499));
    for (int64_t v = kN / 2; v < kN; ++v) {
      if (route(v % kKeys, 3) == i) ASSERT_OK(h->Process(KV(Value(v % kKeys), Value(v), v)));
    }
    ASSERT_OK(h->Watermark(kMaxWatermark));
    for (auto [k, r] : Results(h->records())) {
      EXPECT_EQ(results.count(k), 0u) << "window fired before and after the restore";
      results[k] = r;
    }
  }
  // Every window [s, s+100), s = -50, 0, 50, ..., 1950, of every key: sum of v in it, v%16==key.
  EXPECT_EQ(results.size(), static_cast<size_t>(kKeys * (kN / 50 + 1)));
  for (auto [kw, sum] : results) {
    int64_t expected = 0;
    for (int64_t v = std::max<int64_t>(0, kw.second); v < std::min(kN, kw.second + 100); ++v) {
      expected += v % kKeys == kw.first ? v : 0;
    }
    EXPECT_EQ(sum, expected) << "key " << kw.first << " window " << kw.second;
  }
}

INSTANTIATE_TEST_SUITE_P(MaxParallelismAndState, WindowRestoreTest,
                         ::testing::Combine(::testing::Values(4u, 32768u),
                                            ::testing::Values("reducing", "list")));

TEST(WindowOperatorTest, RejectsBadParamsNamingTheField) {
  ASSERT_STATUS(OperatorHarness::Create("tumbling-window", "{}"), kInvalidArgument,
                "params.size_ms");
  ASSERT_STATUS(OperatorHarness::Create("tumbling-window", R"({"size_ms": -1})"),
                kInvalidArgument, "params.size_ms");
  ASSERT_STATUS(OperatorHarness::Create("sliding-window", R"({"size_ms": 10, "slide_ms": 20})"),
                kInvalidArgument, "params.slide_ms");
  ASSERT_STATUS(OperatorHarness::Create("tumbling-window", R"({"size_ms": 10, "aggregate": "avg"})"),
                kInvalidArgument, "params.aggregate");
  ASSERT_STATUS(OperatorHarness::Create("tumbling-window", R"({"size_ms": 10, "slide_ms": 5})"),
                kInvalidArgument, "params.slide_ms");
}

TEST(WindowOperatorTest, RequiresTimestamps) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("tumbling-window", R"({"size_ms": 10})",
                                                       {.keyed = true}));
  ASSERT_OK(h->Initialize());
  ASSERT_STATUS(h->Process(KV(Value("k"), Value(int64_t{1}))), kInvalidArgument, "timestamps");
}

}  // namespace
}  // namespace ckpt::engine
