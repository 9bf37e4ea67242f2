// map, filter, flat-map built-ins (engine/src/operators/transforms.cpp), slow and dedupe.
#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::KV;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

base::Result<std::vector<Record>> RunOp(const std::string& kind, const std::string& params,
                                      std::vector<Record> input) {
  CKPT_ASSIGN_OR_RETURN(auto h, OperatorHarness::Create(kind, params));
  CKPT_RETURN_IF_ERROR(h->Initialize());
  for (Record& r : input) CKPT_RETURN_IF_ERROR(h->Process(std::move(r)));
  return h->records();
}

TEST(MapTest, ParseKeyValueSetsKeyAndIntegerValue) {
  ASSERT_OK_AND_ASSIGN(auto out, RunOp("map", R"({"function": "parse-key-value"})",
                                     {Record(Value("apple, 3")), Record(Value("pear,-2"))}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], KV(Value("apple"), Value(int64_t{3})));
  EXPECT_EQ(out[1], KV(Value("pear"), Value(int64_t{-2})));
}

TEST(MapTest, ParseErrorsFailOrSkip) {
  ASSERT_STATUS(RunOp("map", R"({"function": "parse-key-value"})", {Record(Value("junk"))}),
                kInvalidArgument, "\"junk\"");
  ASSERT_OK_AND_ASSIGN(auto out, RunOp("map", R"({"function": "parse-key-value", "on_error": "skip"})",
                                     {Record(Value("junk")), Record(Value("a,1"))}));
  EXPECT_EQ(out.size(), 1u);
}

TEST(MapTest, KeyFunctions) {
  ASSERT_OK_AND_ASSIGN(auto out, RunOp("map", R"({"function": "key-by-mod", "modulus": 4})",
                                     {Record(Value(int64_t{10}))}));
  EXPECT_EQ(out[0], KV(Value(int64_t{2}), Value(int64_t{10})));
  ASSERT_OK_AND_ASSIGN(out, RunOp("map", R"({"function": "extract-key"})",
                                {Record(Value("user7,click,3"))}));
  EXPECT_EQ(out[0], KV(Value("user7"), Value("user7,click,3")));
  ASSERT_OK_AND_ASSIGN(out, RunOp("map", R"({"function": "key-by-value"})", {Record(Value("x"))}));
  EXPECT_EQ(out[0], KV(Value("x"), Value("x")));
  ASSERT_OK_AND_ASSIGN(out, RunOp("map", R"({"function": "drop-key"})",
                                {KV(Value("x"), Value(int64_t{1}), 5)}));
  EXPECT_EQ(out[0], Record(Value(int64_t{1}), 5));
  ASSERT_OK_AND_ASSIGN(out, RunOp("map", R"({"function": "to-string"})",
                                {KV(Value("x"), Value(format::Tuple{{Value(int64_t{1}), Value(true)}}))}));
  EXPECT_EQ(out[0], Record(Value("x,1,true")));
  ASSERT_OK_AND_ASSIGN(out, RunOp("map", R"({"function": "identity"})", {Record(Value(2.5))}));
  EXPECT_EQ(out[0], Record(Value(2.5)));
}

TEST(MapTest, RejectsBadParamsNamingTheField) {
  ASSERT_STATUS(RunOp("map", "{}", {}), kInvalidArgument, "params.function");
  ASSERT_STATUS(RunOp("map", R"({"function": "reverse"})", {}), kInvalidArgument,
                "params.function");
  ASSERT_STATUS(RunOp("map", R"({"function": "key-by-mod"})", {}), kInvalidArgument,
                "params.modulus");
  ASSERT_STATUS(RunOp("map", R"({"function": "identity", "modulus": 3})", {}), kInvalidArgument,
                "params.modulus");
  ASSERT_STATUS(RunOp("map", R"({"function": "key-by-mod", "modulus": 0})", {}), kInvalidArgument,
                "params.modulus");
}

TEST(FilterTest, Predicates) {
  std::vector<Record> numbers;
  for (int64_t v = -3; v <= 6; ++v) numbers.emplace_back(Value(v));
  ASSERT_OK_AND_ASSIGN(auto out, RunOp("filter", R"({"predicate": "even"})", numbers));
  EXPECT_EQ(out.size(), 5u);
  ASSERT_OK_AND_ASSIGN(out, RunOp("filter", R"({"predicate": "mod-equals", "modulus": 3,
                                              "remainder": 2})", numbers));
  ASSERT_EQ(out.size(), 3u);  // -1, 2, 5
  EXPECT_EQ(out[0].value, Value(int64_t{-1}));
  ASSERT_OK_AND_ASSIGN(out, RunOp("filter", R"({"predicate": "contains", "needle": "ab"})",
                                {Record(Value("xaby")), Record(Value("ba"))}));
  EXPECT_EQ(out.size(), 1u);
  ASSERT_OK_AND_ASSIGN(out, RunOp("filter", R"({"predicate": "non-empty"})",
                                {Record(Value("  ")), Record(Value("a"))}));
  EXPECT_EQ(out.size(), 1u);
  ASSERT_STATUS(RunOp("filter", R"({"predicate": "odd"})", {Record(Value("s"))}), kInvalidArgument,
                "expected an int64");
  ASSERT_STATUS(RunOp("filter", R"({"predicate": "mod-equals", "modulus": 3, "remainder": 3})", {}),
                kInvalidArgument, "params.remainder");
}

TEST(FlatMapTest, SplitWordsEmitsWordOnePairs) {
  ASSERT_OK_AND_ASSIGN(auto out, RunOp("flat-map", R"({"function": "split-words"})",
                                     {Record(Value("To be, or not to be"), 42)}));
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], KV(Value("to"), Value(int64_t{1}), 42));
  EXPECT_EQ(out[5], KV(Value("be"), Value(int64_t{1}), 42));
}

TEST(SlowTest, PassesRecordsThrough) {
  ASSERT_OK_AND_ASSIGN(auto out, RunOp("slow", R"({"delay_us": 10, "every": 2})",
                                     {Record(Value(int64_t{1})), Record(Value(int64_t{2}))}));
  EXPECT_EQ(out.size(), 2u);
  ASSERT_STATUS(RunOp("slow", R"({"delay_ms": 1})", {}), kInvalidArgument, "params.delay_ms");
}

TEST(DedupeTest, ForwardsEachKeyValueOnceAcrossARestore) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("dedupe", R"({"value_type": "string"})",
                                                       {.keyed = true}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(KV(Value(int64_t{1}), Value("a"))));
  ASSERT_OK(h->Process(KV(Value(int64_t{1}), Value("a"))));
  ASSERT_OK(h->Process(KV(Value(int64_t{2}), Value("a"))));
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  EXPECT_EQ(h->records().size(), 2u);

  ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("dedupe", R"({"value_type": "string"})",
                                                       {.keyed = true}));
  ASSERT_OK(r->Initialize({snap}));
  ASSERT_OK(r->Process(KV(Value(int64_t{1}), Value("a"))));  // seen before the snapshot
  ASSERT_OK(r->Process(KV(Value(int64_t{1}), Value("b"))));
  ASSERT_EQ(r->records().size(), 1u);
  EXPECT_EQ(r->records()[0].value, Value("b"));
  ASSERT_STATUS(r->Process(KV(Value(int64_t{1}), Value(int64_t{5}))), kInvalidArgument, "(1/1)");
}

}  // namespace
}  // namespace ckpt::engine
