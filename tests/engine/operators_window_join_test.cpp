// window-join (engine/src/operators/window_join.cpp): pairs of the same key and window, across
// a snapshot/restore; late records dropped; both inputs buffered in list state.
#include <gtest/gtest.h>

#include <set>

#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::KV;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

using WindowPair = std::tuple<int64_t, int64_t, int64_t>;  // key, left, right

std::multiset<WindowPair> Pairs(const std::vector<Record>& records) {
  std::multiset<WindowPair> out;
  for (const Record& r : records) {
    const auto& f = std::get<format::Tuple>(r.value.v).fields;
    out.insert({std::get<int64_t>(r.key.v), std::get<int64_t>(f[0].v),
                std::get<int64_t>(f[1].v)});
  }
  return out;
}

TEST(WindowJoinTest, JoinsSameKeySameWindowAcrossARestore) {
  const std::string params = R"({"size_ms": 10})";
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("window-join", params, {.keyed = true}));
  ASSERT_OK(h->Initialize());
  // left: value = ts, key = ts % 3; right: value = 1000 + ts, key = ts % 2 (different keying
  // so only some pairs match).
  for (int64_t ts = 0; ts < 15; ++ts) {
    ASSERT_OK(h->Process(KV(Value(ts % 3), Value(ts), ts), 0));
  }
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("window-join", params, {.keyed = true}));
  ASSERT_OK(r->Initialize({snap}));
  for (int64_t ts = 0; ts < 15; ++ts) {
    ASSERT_OK(r->Process(KV(Value(ts % 2), Value(1000 + ts), ts), 1));
  }
  ASSERT_OK(r->Watermark(9));
  ASSERT_OK(r->Process(KV(Value(int64_t{0}), Value(int64_t{5000}), 3), 1));  // late
  ASSERT_OK(r->Watermark(kMaxWatermark));

  std::multiset<WindowPair> expected;
  for (int64_t l = 0; l < 15; ++l) {
    for (int64_t rt = 0; rt < 15; ++rt) {
      if (l / 10 == rt / 10 && l % 3 == rt % 2) expected.insert({l % 3, l, 1000 + rt});
    }
  }
  EXPECT_EQ(Pairs(r->records()), expected);
  for (const Record& rec : r->records()) EXPECT_EQ(rec.timestamp % 10, 9);
}

TEST(WindowJoinTest, DeclaresTwoInputsAndChecksValueTypes) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                   "window-join", R"({"size_ms": 10, "right_type": "string"})",
                                   {.keyed = true}));
  EXPECT_EQ(h->op()->NumInputs(), 2u);
  EXPECT_TRUE(h->op()->RequiresKeyedInput());
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(KV(Value(int64_t{1}), Value("r"), 1), 1));
  ASSERT_STATUS(h->Process(KV(Value(int64_t{1}), Value(int64_t{2}), 1), 1), kInvalidArgument,
                "right input");
  ASSERT_STATUS(OperatorHarness::Create("window-join", R"({"size_ms": 10, "left_type": "x"})"),
                kInvalidArgument, "params.left_type");
  ASSERT_STATUS(OperatorHarness::Create("window-join", "{}"), kInvalidArgument, "params.size_ms");
}

}  // namespace
}  // namespace ckpt::engine
