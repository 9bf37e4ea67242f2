// print and discard (engine/src/operators/simple_sinks.cpp).
#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::OperatorHarness;

TEST(PrintSinkTest, WritesOneLinePerRecordWithSubtaskPrefix) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                   "print", R"({"prefix": "out: ", "with_timestamp": true})",
                                   {.subtask = 1, .parallelism = 2}));
  ASSERT_OK(h->Initialize());
  ::testing::internal::CaptureStdout();
  ASSERT_OK(h->Process(testing::KV(Value("k"), Value(int64_t{7}), 99)));
  ASSERT_OK(h->Process(Record(Value(format::Tuple{{Value(int64_t{1}), Value("x")}}))));
  ASSERT_OK(h->Finish());
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "out: 2> k,7,99\nout: 2> 1,x\n");
}

TEST(PrintSinkTest, RejectsUnknownStream) {
  ASSERT_STATUS(OperatorHarness::Create("print", R"({"stream": "file"})"), kInvalidArgument,
                "params.stream");
}

TEST(DiscardSinkTest, AcceptsEverythingAndTakesNoParams) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("discard", "{}"));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(Record(Value(int64_t{1}))));
  EXPECT_TRUE(h->records().empty());
  ASSERT_STATUS(OperatorHarness::Create("discard", R"({"path": "x"})"), kInvalidArgument,
                "params.path");
}

TEST(BuiltinCatalogTest, RegistersEveryDocumentedKind) {
  const std::vector<std::string> kinds = OperatorRegistry::Builtin().Kinds();
  for (const char* kind :
       {"sequence-source", "text-file-source", "directory-source", "map", "filter", "flat-map",
        "slow", "failure-injector", "keyed-sum", "keyed-count", "dedupe", "tumbling-window",
        "sliding-window", "window-join", "interval-join", "file-sink", "print", "discard"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
  }
  EXPECT_NE(OperatorRegistry::Builtin().Find("directory-source")->coordinator_factory, nullptr);
}

}  // namespace
}  // namespace ckpt::engine
