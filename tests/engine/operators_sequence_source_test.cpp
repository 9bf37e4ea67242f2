// sequence-source (engine/src/operators/sequence_source.cpp): splits, position state, restore
// and rescale continue exactly, keys, timestamps and watermarks.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ckpt/testing/gtest_util.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using testing::HarnessOptions;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

std::vector<int64_t> Values(const std::vector<Record>& records) {
  std::vector<int64_t> out;
  for (const Record& r : records) out.push_back(std::get<int64_t>(r.value.v));
  return out;
}

TEST(SequenceSourceTest, EmitsEveryNumberOnceAcrossSubtasksInOrderPerSplit) {
  std::multiset<int64_t> all;
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sequence-source",
                                                         R"({"from": 5, "to": 104, "splits": 7,
                                                             "batch_size": 10})",
                                                         {.subtask = i, .parallelism = 3}));
    ASSERT_OK(h->Initialize());
    ASSERT_OK(h->RunSourceToEnd());
    // Split s of 7 over 100 numbers: the first 2 splits have 15, the rest 14. Within one split
    // (a contiguous range) numbers must arrive increasing.
    std::map<int64_t, int64_t> last_per_split;
    for (int64_t v : Values(h->records())) {
      const int64_t off = v - 5;
      const int64_t split = off < 30 ? off / 15 : 2 + (off - 30) / 14;
      EXPECT_EQ(split % 3, i) << v;
      EXPECT_GT(v, last_per_split[split]) << v;
      last_per_split[split] = v;
      all.insert(v);
    }
  }
  ASSERT_EQ(all.size(), 100u);
  EXPECT_EQ(*all.begin(), 5);
  EXPECT_EQ(*all.rbegin(), 104);
  EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), 100u);
}

TEST(SequenceSourceTest, RestoreContinuesExactlyAfterTheSnapshot) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sequence-source",
                                                       R"({"to": 1000, "batch_size": 64})"));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Poll().status());
  ASSERT_OK(h->Poll().status());
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  std::vector<int64_t> before = Values(h->records());
  ASSERT_EQ(before.size(), 128u);
  ASSERT_OK(h->Poll().status());  // emitted after the snapshot: replayed after the restore

  ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("sequence-source",
                                                       R"({"to": 1000, "batch_size": 64})"));
  ASSERT_OK(r->Initialize({snap}));
  ASSERT_OK(r->RunSourceToEnd());
  std::vector<int64_t> after = Values(r->records());
  before.insert(before.end(), after.begin(), after.end());
  ASSERT_EQ(before.size(), 1000u);
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ(before[static_cast<size_t>(i)], i + 1);
}

TEST(SequenceSourceTest, RescaleFromFourToThreeLosesAndDuplicatesNothing) {
  const std::string params = R"({"from": 0, "to": 9999, "splits": 8, "batch_size": 100})";
  std::vector<SubtaskSnapshot> snaps;
  std::multiset<int64_t> seen;
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sequence-source", params,
                                                         {.subtask = i, .parallelism = 4}));
    ASSERT_OK(h->Initialize());
    for (uint32_t k = 0; k <= i; ++k) ASSERT_OK(h->Poll().status());  // uneven progress
    ASSERT_OK_AND_ASSIGN(SubtaskSnapshot s, h->Snapshot(3));
    snaps.push_back(std::move(s));
    for (int64_t v : Values(h->records())) seen.insert(v);
  }
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("sequence-source", params,
                                                         {.subtask = i, .parallelism = 3}));
    ASSERT_OK(h->Initialize(snaps));
    ASSERT_OK(h->RunSourceToEnd());
    for (int64_t v : Values(h->records())) seen.insert(v);
  }
  ASSERT_EQ(seen.size(), 10000u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 10000u);
}

TEST(SequenceSourceTest, KeysTimestampsAndMonotonicWatermarks) {
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                   "sequence-source",
                                   R"({"from": 1, "to": 50, "splits": 2, "keys": 3,
                                       "timestamp_step_ms": 10, "batch_size": 8})"));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->RunSourceToEnd());
  ASSERT_EQ(h->records().size(), 50u);
  for (const Record& r : h->records()) {
    const int64_t v = std::get<int64_t>(r.value.v);
    EXPECT_EQ(std::get<int64_t>(r.key.v), v % 3);
    EXPECT_EQ(r.timestamp, (v - 1) * 10);
  }
  const auto& wms = h->output().watermarks;
  ASSERT_FALSE(wms.empty());
  for (size_t i = 1; i < wms.size(); ++i) EXPECT_GT(wms[i], wms[i - 1]);
  EXPECT_EQ(wms.back(), kMaxWatermark);
  // No record may be late: every record after a watermark has a larger timestamp.
  const auto& pos = h->output().watermark_positions;
  for (size_t w = 0; w < wms.size(); ++w) {
    for (size_t i = pos[w]; i < h->records().size(); ++i) {
      EXPECT_GT(h->records()[i].timestamp, wms[w]) << "record " << i << " watermark " << w;
    }
  }
}

TEST(SequenceSourceTest, RejectsBadParamsNamingTheField) {
  ASSERT_STATUS(OperatorHarness::Create("sequence-source", R"({"from": 1})"), kInvalidArgument,
                "params.to");
  ASSERT_STATUS(OperatorHarness::Create("sequence-source", R"({"from": 5, "to": 4})"),
                kInvalidArgument, "params.to");
  ASSERT_STATUS(OperatorHarness::Create("sequence-source", R"({"to": 4, "rate": 3})"),
                kInvalidArgument, "params.rate");
  ASSERT_STATUS(OperatorHarness::Create("sequence-source", R"({"to": 4, "batch_size": 0})"),
                kInvalidArgument, "params.batch_size");
  ASSERT_STATUS(OperatorHarness::Create("sequence-source", R"({"to": "x"})"), kInvalidArgument,
                "params.to");
}

}  // namespace
}  // namespace ckpt::engine
