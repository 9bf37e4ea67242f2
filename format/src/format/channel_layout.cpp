#include "ckpt/format/channel_layout.h"

#include "ckpt/base/bounds.h"
#include "ckpt/format/key_groups.h"

namespace ckpt::format {

bool ChannelLayoutIsBounded(const pb::JobGraph& graph) {
  std::map<std::string, uint32_t> parallelism;
  for (const pb::OperatorInfo& o : graph.operators()) {
    if (o.parallelism() > kUpperBoundMaxParallelism) return false;
    parallelism[o.operator_id()] = o.parallelism();
  }
  uint64_t channels = 0;
  for (const pb::EdgeInfo& e : graph.edges()) {
    auto from = parallelism.find(e.source_operator_id());
    auto to = parallelism.find(e.target_operator_id());
    if (from == parallelism.end() || to == parallelism.end()) continue;
    if (!base::ProductWithin(from->second, to->second, base::kMaxEntriesFromFile)) return false;
    channels += uint64_t{from->second} * to->second;
    if (channels > base::kMaxEntriesFromFile) return false;
  }
  return true;
}

ChannelLayout::ChannelLayout(const pb::JobGraph& graph) {
  std::map<std::string, const pb::OperatorInfo*> op;
  std::map<uint32_t, std::string> head_of_chain;  // chain index -> head operator (first seen)
  for (const pb::OperatorInfo& o : graph.operators()) {
    op[o.operator_id()] = &o;
    head_of_chain.emplace(o.chain_index(), o.operator_id());
  }
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> inputs;   // (chain, d) -> channels so far
  std::map<uint32_t, uint32_t> writers;                       // chain -> writers so far
  for (const pb::EdgeInfo& e : graph.edges()) {
    auto from = op.find(e.source_operator_id());
    auto to = op.find(e.target_operator_id());
    if (from == op.end() || to == op.end()) continue;
    const uint32_t from_chain = from->second->chain_index();
    const uint32_t to_chain = to->second->chain_index();
    if (from_chain == to_chain) continue;  // chained
    Edge edge;
    edge.key = KeyOf(e);
    edge.partitioning = e.partitioning();
    edge.from_parallelism = from->second->parallelism();
    edge.to_parallelism = to->second->parallelism();
    edge.target_max_parallelism = to->second->max_parallelism();
    edge.writer_index = writers[from_chain]++;
    const std::string& head = head_of_chain.at(to_chain);
    for (uint32_t d = 0; d < edge.to_parallelism; ++d) {
      for (uint32_t u = 0; u < edge.from_parallelism; ++u) {
        if (e.partitioning() == pb::FORWARD && u != d) continue;
        const uint32_t c = inputs[{to_chain, d}]++;
        channel_of_[{edge.key, u, d}] = c;
        input_of_[{head, d, c}] = {edge.key, u};
      }
    }
    writer_edge_[{e.source_operator_id(), edge.writer_index}] = edges_.size();
    edges_.push_back(std::move(edge));
  }
}

const ChannelLayout::Edge* ChannelLayout::FindEdge(const EdgeKey& key) const {
  for (const Edge& e : edges_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

std::optional<uint32_t> ChannelLayout::ChannelOf(const EdgeKey& edge, uint32_t u,
                                                 uint32_t d) const {
  auto it = channel_of_.find({edge, u, d});
  if (it == channel_of_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<ChannelLayout::EdgeKey, uint32_t>> ChannelLayout::InputOf(
    const std::string& head_op, uint32_t d, uint32_t channel) const {
  auto it = input_of_.find({head_op, d, channel});
  if (it == input_of_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint32_t> ChannelLayout::TargetOf(const EdgeKey& edge, uint32_t u,
                                                uint32_t d) const {
  const Edge* e = FindEdge(edge);
  if (e == nullptr || !ChannelOf(edge, u, d)) return std::nullopt;
  if (e->partitioning == pb::FORWARD) return 0;
  return d;
}

const ChannelLayout::Edge* ChannelLayout::WriterEdge(const std::string& tail_op,
                                                     uint32_t writer) const {
  auto it = writer_edge_.find({tail_op, writer});
  if (it == writer_edge_.end()) return nullptr;
  return &edges_[it->second];
}

}  // namespace ckpt::format
