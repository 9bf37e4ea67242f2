// keyed-sum and keyed-count (engine/src/operators/keyed_aggregates.cpp): running aggregates per
// key survive a snapshot/restore and a rescale by key group.
#include <gtest/gtest.h>

#include <map>

#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::KV;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

TEST(KeyedSumTest, EmitsRunningSumPerKey) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("keyed-sum", "{}", {.keyed = true}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(KV(Value("a"), Value(int64_t{3}))));
  ASSERT_OK(h->Process(KV(Value("b"), Value(int64_t{10}))));
  ASSERT_OK(h->Process(KV(Value("a"), Value(int64_t{-1}))));
  ASSERT_EQ(h->records().size(), 3u);
  EXPECT_EQ(h->records()[0], KV(Value("a"), Value(int64_t{3})));
  EXPECT_EQ(h->records()[1], KV(Value("b"), Value(int64_t{10})));
  EXPECT_EQ(h->records()[2], KV(Value("a"), Value(int64_t{2})));
}

TEST(KeyedSumTest, InputAndSumCarriesTheInput) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("keyed-sum", R"({"emit": "input-and-sum"})",
                                                       {.keyed = true}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(KV(Value(int64_t{1}), Value(int64_t{5}))));
  ASSERT_OK(h->Process(KV(Value(int64_t{1}), Value(int64_t{7}))));
  EXPECT_EQ(h->records()[1].value, Value(format::Tuple{{Value(int64_t{7}), Value(int64_t{12})}}));
}

TEST(KeyedSumTest, RejectsNonIntegerValuesNamingTheOperator) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("keyed-sum", "{}", {.keyed = true}));
  ASSERT_OK(h->Initialize());
  ASSERT_STATUS(h->Process(KV(Value("a"), Value("x"))), kInvalidArgument, "op (1/1)");
}

TEST(KeyedSumTest, RejectsUnknownEmitModeNamingTheField) {
  ASSERT_STATUS(OperatorHarness::Create("keyed-sum", R"({"emit": "avg"})"), kInvalidArgument,
                "params.emit");
  ASSERT_STATUS(OperatorHarness::Create("keyed-count", R"({"window": 3})"), kInvalidArgument,
                "params.window");
}

TEST(KeyedSumTest, SumsSurviveRestoreAtAnotherParallelism) {
  // Run at p=2 over keys 0..49, snapshot, restore at p=3, continue: every key's final sum is
  // the closed form over both halves.
  constexpr uint32_t kMaxP = 16;
  std::vector<SubtaskSnapshot> snaps;
  for (uint32_t i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("keyed-sum", "{}",
                                                         {.subtask = i, .parallelism = 2,
                                                          .max_parallelism = kMaxP,
                                                          .keyed = true}));
    ASSERT_OK(h->Initialize());
    for (int64_t v = 1; v <= 1000; ++v) {
      const Value key(v % 50);
      std::string enc;
      ASSERT_OK(EncodeRecordKey(key, &enc));
      if (format::SubtaskForKeyGroup(kMaxP, 2, KeyGroupOfEncodedKey(enc, kMaxP)) != i) continue;
      ASSERT_OK(h->Process(KV(key, Value(v))));
    }
    ASSERT_OK_AND_ASSIGN(SubtaskSnapshot s, h->Snapshot(1));
    snaps.push_back(std::move(s));
  }
  std::map<int64_t, int64_t> final_sum;
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("keyed-sum", "{}",
                                                         {.subtask = i, .parallelism = 3,
                                                          .max_parallelism = kMaxP,
                                                          .keyed = true}));
    ASSERT_OK(h->Initialize(snaps));
    for (int64_t v = 1001; v <= 2000; ++v) {
      const Value key(v % 50);
      std::string enc;
      ASSERT_OK(EncodeRecordKey(key, &enc));
      if (format::SubtaskForKeyGroup(kMaxP, 3, KeyGroupOfEncodedKey(enc, kMaxP)) != i) continue;
      ASSERT_OK(h->Process(KV(key, Value(v))));
    }
    for (const Record& r : h->records()) {
      final_sum[std::get<int64_t>(r.key.v)] = std::get<int64_t>(r.value.v);
    }
  }
  ASSERT_EQ(final_sum.size(), 50u);
  for (int64_t k = 0; k < 50; ++k) {
    int64_t expected = 0;
    for (int64_t v = 1; v <= 2000; ++v) expected += v % 50 == k ? v : 0;
    EXPECT_EQ(final_sum[k], expected) << "key " << k;
  }
}

TEST(KeyedCountTest, CountsPerKey) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("keyed-count", "{}", {.keyed = true}));
  ASSERT_OK(h->Initialize());
  for (const char* w : {"x", "y", "x", "x"}) ASSERT_OK(h->Process(KV(Value(w), Value("ignored"))));
  EXPECT_EQ(h->records().back(), KV(Value("x"), Value(int64_t{3})));
}

}  // namespace
}  // namespace ckpt::engine
