// ChannelLayout: input channels per chain-head subtask are (edge in graph order, upstream
// subtask), FORWARD edges contribute only the same subtask; writers of a chain tail are its
// outbound edges in graph order; chained edges have no channels.
#include "ckpt/format/channel_layout.h"

#include <gtest/gtest.h>

namespace ckpt::engine::runtime {
namespace {

using format::ChannelLayout;

std::string Id(char c) { return std::string(16, c); }

pb::OperatorInfo Op(char id, uint32_t chain, uint32_t parallelism) {
  pb::OperatorInfo o;
  o.set_operator_id(Id(id));
  o.set_chain_index(chain);
  o.set_parallelism(parallelism);
  o.set_max_parallelism(128);
  return o;
}

pb::EdgeInfo Edge(char from, char to, pb::Partitioning p, uint32_t input = 0) {
  pb::EdgeInfo e;
  e.set_source_operator_id(Id(from));
  e.set_target_operator_id(Id(to));
  e.set_partitioning(p);
  e.set_target_input(input);
  return e;
}

// s (p2) -> HASH -> t (p3, input 0); r (p3) -> FORWARD -> t (input 1); t -> chained u.
pb::JobGraph Graph() {
  pb::JobGraph g;
  *g.add_operators() = Op('s', 0, 2);
  *g.add_operators() = Op('r', 1, 3);
  *g.add_operators() = Op('t', 2, 3);
  *g.add_operators() = Op('u', 2, 3);
  *g.add_edges() = Edge('s', 't', pb::HASH, 0);
  *g.add_edges() = Edge('r', 't', pb::FORWARD, 1);
  *g.add_edges() = Edge('t', 'u', pb::FORWARD, 0);
  return g;
}

TEST(ChannelLayoutTest, InputChannelsAreEdgeThenUpstreamSubtask) {
  ChannelLayout l(Graph());
  ASSERT_EQ(l.edges().size(), 2u) << "the chained edge t -> u has no channels";
  const auto hash = ChannelLayout::KeyOf(Graph().edges(0));
  const auto fwd = ChannelLayout::KeyOf(Graph().edges(1));
  for (uint32_t d = 0; d < 3; ++d) {
    EXPECT_EQ(l.ChannelOf(hash, 0, d), 0u);
    EXPECT_EQ(l.ChannelOf(hash, 1, d), 1u);
    EXPECT_EQ(l.ChannelOf(fwd, d, d), 2u);
    EXPECT_FALSE(l.ChannelOf(fwd, (d + 1) % 3, d).has_value());
  }
  auto in = l.InputOf(Id('t'), 1, 2);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->first, fwd);
  EXPECT_EQ(in->second, 1u);
  EXPECT_FALSE(l.InputOf(Id('t'), 1, 3).has_value());
}

TEST(ChannelLayoutTest, WritersAndTargets) {
  ChannelLayout l(Graph());
  const auto hash = ChannelLayout::KeyOf(Graph().edges(0));
  const auto fwd = ChannelLayout::KeyOf(Graph().edges(1));
  const ChannelLayout::Edge* w = l.WriterEdge(Id('s'), 0);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->key, hash);
  EXPECT_EQ(w->from_parallelism, 2u);
  EXPECT_EQ(w->to_parallelism, 3u);
  EXPECT_EQ(l.WriterEdge(Id('s'), 1), nullptr);
  EXPECT_EQ(l.TargetOf(hash, 1, 2), 2u);
  EXPECT_EQ(l.TargetOf(fwd, 2, 2), 0u) << "a FORWARD writer has one target";
  EXPECT_FALSE(l.TargetOf(fwd, 1, 2).has_value());
}

}  // namespace
}  // namespace ckpt::engine::runtime
