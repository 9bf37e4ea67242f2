#include "ckpt/format/job_graph.h"

#include <gtest/gtest.h>

#include <set>

#include "ckpt/base/murmur3.h"
#include "ckpt/base/endian.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

pb::JobSpec Spec(const std::string& json) {
  auto spec = ParseJobSpec(json, "test.json");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? *spec : pb::JobSpec();
}

// source -> map (forward, chained) -> keyed (hash) -> sink (forward, chained); no uid on map.
const char* kPipeline = R"({"name":"j","parallelism":2,"operators":[
  {"id":"src","kind":"sequence-source","uid":"datagen-source-uid"},
  {"id":"map","kind":"map"},
  {"id":"sum","kind":"keyed-sum","uid":"sum"},
  {"id":"sink","kind":"file-sink"}],
  "edges":[{"from":"src","to":"map","partitioning":"FORWARD"},
           {"from":"map","to":"sum","partitioning":"HASH"},
           {"from":"sum","to":"sink","partitioning":"FORWARD"}]})";

std::string IdOf(const pb::JobGraph& g, const std::string& spec_id) {
  for (const auto& op : g.operators()) {
    if (op.spec_id() == spec_id) return OperatorId::FromBytes(op.operator_id())->ToHex();
  }
  return "";
}

TEST(JobGraphTest, UidGivesFlinkUidHash) {
  ASSERT_OK_AND_ASSIGN(pb::JobGraph g, BuildJobGraph(Spec(kPipeline)));
  EXPECT_EQ(IdOf(g, "src"), "47aee94394d6ea26e2d544bef0a37bb5");
  EXPECT_EQ(IdOf(g, "sum"), OperatorId::FromUid("sum").ToHex());
  EXPECT_EQ(g.operators(0).uid(), "datagen-source-uid");
  EXPECT_EQ(g.operators(1).uid(), "");
}

TEST(JobGraphTest, OperatorsInTopologicalOrderWithResolvedParallelism) {
  // Listed sink first: the graph still starts at the source.
  pb::JobSpec spec = Spec(R"({"name":"j","operators":[
    {"id":"sink","kind":"s","parallelism":3},{"id":"src","kind":"k"}],
    "edges":[{"from":"src","to":"sink","partitioning":"REBALANCE"}]})");
  ASSERT_OK_AND_ASSIGN(pb::JobGraph g, BuildJobGraph(spec));
  ASSERT_EQ(g.operators_size(), 2);
  EXPECT_EQ(g.operators(0).spec_id(), "src");
  EXPECT_EQ(g.operators(1).spec_id(), "sink");
  EXPECT_EQ(g.operators(1).parallelism(), 3u);
  EXPECT_EQ(g.operators(1).max_parallelism(), 128u);
  EXPECT_EQ(g.operators(1).name(), "sink");
  ASSERT_EQ(g.edges_size(), 1);
  EXPECT_EQ(g.edges(0).source_operator_id(), g.operators(0).operator_id());
  EXPECT_EQ(g.edges(0).partitioning(), pb::REBALANCE);
}

TEST(JobGraphTest, ChainsForwardEdgesOfEqualParallelism) {
  ASSERT_OK_AND_ASSIGN(pb::JobGraph g, BuildJobGraph(Spec(kPipeline)));
  ASSERT_EQ(g.operators_size(), 4);
  // src+map are chain 0, sum+sink chain 1.
  EXPECT_EQ(g.operators(0).chain_index(), 0u);
  EXPECT_EQ(g.operators(1).chain_index(), 0u);
  EXPECT_EQ(g.operators(1).position_in_chain(), 1u);
  EXPECT_EQ(g.operators(2).chain_index(), 1u);
  EXPECT_EQ(g.operators(2).position_in_chain(), 0u);
  EXPECT_EQ(g.operators(3).chain_index(), 1u);
  EXPECT_EQ(g.operators(3).position_in_chain(), 1u);
}

TEST(JobGraphTest, DoesNotChainAcrossFanOutOrFanIn) {
  pb::JobSpec spec = Spec(R"({"name":"j","operators":[
    {"id":"a","kind":"k"},{"id":"b","kind":"k"},{"id":"c","kind":"k"},{"id":"d","kind":"k"}],
    "edges":[{"from":"a","to":"b","partitioning":"FORWARD"},{"from":"a","to":"c","partitioning":"FORWARD"},
             {"from":"b","to":"d","partitioning":"FORWARD"},
             {"from":"c","to":"d","partitioning":"FORWARD","input":1}]})");
  ASSERT_OK_AND_ASSIGN(pb::JobGraph g, BuildJobGraph(spec));
  std::set<uint32_t> chains;
  for (const auto& op : g.operators()) {
    chains.insert(op.chain_index());
    EXPECT_EQ(op.position_in_chain(), 0u) << op.spec_id();
  }
  EXPECT_EQ(chains.size(), 4u);
}

TEST(JobGraphTest, TopologyIdIsStableForTheSameStructure) {
  ASSERT_OK_AND_ASSIGN(pb::JobGraph a, BuildJobGraph(Spec(kPipeline)));
  // Same structure, different names and parameters: same IDs.
  std::string renamed = kPipeline;
  renamed.replace(renamed.find(R"("id":"map","kind":"map")"), 23,
                  R"("id":"map","kind":"map","name":"Renamed","params":{"x":1})");
  ASSERT_OK_AND_ASSIGN(pb::JobGraph b, BuildJobGraph(Spec(renamed)));
  EXPECT_EQ(IdOf(a, "map"), IdOf(b, "map"));
  EXPECT_EQ(IdOf(a, "sink"), IdOf(b, "sink"));
}

TEST(JobGraphTest, TopologyIdChangesWhenStructureChanges) {
  ASSERT_OK_AND_ASSIGN(pb::JobGraph a, BuildJobGraph(Spec(kPipeline)));
  // Insert a filter between source and map: the map's position and input change.
  pb::JobSpec spec = Spec(R"({"name":"j","parallelism":2,"operators":[
    {"id":"src","kind":"sequence-source","uid":"datagen-source-uid"},
    {"id":"filter","kind":"filter"},
    {"id":"map","kind":"map"},
    {"id":"sum","kind":"keyed-sum","uid":"sum"},
    {"id":"sink","kind":"file-sink"}],
    "edges":[{"from":"src","to":"filter","partitioning":"FORWARD"},
             {"from":"filter","to":"map","partitioning":"FORWARD"},
             {"from":"map","to":"sum","partitioning":"HASH"},
             {"from":"sum","to":"sink","partitioning":"FORWARD"}]})");
  ASSERT_OK_AND_ASSIGN(pb::JobGraph b, BuildJobGraph(spec));
  EXPECT_NE(IdOf(a, "map"), IdOf(b, "map"));
  // Operators with a uid keep their IDs: that is why uids are recommended.
  EXPECT_EQ(IdOf(a, "sum"), IdOf(b, "sum"));
  EXPECT_EQ(IdOf(a, "src"), IdOf(b, "src"));
  // Changing an edge's partitioning changes the downstream uid-less ID too.
  std::string rebalanced = kPipeline;
  rebalanced.replace(rebalanced.rfind("FORWARD"), 7, "REBALANCE");
  ASSERT_OK_AND_ASSIGN(pb::JobGraph c, BuildJobGraph(Spec(rebalanced)));
  EXPECT_NE(IdOf(a, "sink"), IdOf(c, "sink"));
}

TEST(JobGraphTest, TopologyIdMatchesDocumentedBytes) {
  // FORMAT.md "Operator IDs": the hashed bytes spelled out by hand.
  const OperatorId up = OperatorId::FromUid("up");
  std::string bytes = "ckpt-topology-v1";
  base::PutFixed32(&bytes, 3);
  bytes += '\x03';
  bytes += "map";
  base::PutFixed32(&bytes, 1);
  base::PutFixed32(&bytes, 1);
  bytes += up.ToBytes();
  base::PutFixed32(&bytes, 3);  // HASH
  EXPECT_EQ(TopologyOperatorId(3, "map", 1, {{up, pb::HASH}}),
            OperatorId(base::Murmur3X64_128(bytes, 0)));
  EXPECT_NE(TopologyOperatorId(3, "map", 1, {{up, pb::HASH}}),
            TopologyOperatorId(3, "map", 0, {{up, pb::HASH}}));
}

TEST(JobGraphTest, TopologyIdTestVectorsFromFormatMd) {
  EXPECT_EQ(TopologyOperatorId(0, "map", 0, {}).ToHex(), "7cbcdf5307d4a17dc804c6cc88c2b0f6");
  EXPECT_EQ(TopologyOperatorId(1, "map", 1, {{OperatorId::FromUid("datagen-source-uid"), pb::FORWARD}})
                .ToHex(),
            "56cc850166d3065f94bc435ace6e4890");
}

TEST(JobGraphTest, RejectsInvalidSpec) {
  pb::JobSpec spec;
  spec.set_name("j");
  auto* op = spec.add_operators();
  op->set_id("a");
  op->set_kind("k");
  auto* e = spec.add_edges();
  e->set_from("a");
  e->set_to("b");
  e->set_partitioning(pb::FORWARD);
  ASSERT_STATUS(BuildJobGraph(spec), kInvalidArgument, "'b'");
}

}  // namespace
}  // namespace ckpt::format
