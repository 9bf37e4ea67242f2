#include "ckpt/format/job_graph.h"

#include <algorithm>
#include <deque>
#include <set>
#include <tuple>

#include "ckpt/base/endian.h"
#include "ckpt/base/murmur3.h"
#include "ckpt/format/job_spec.h"
#include "job_spec_rules.h"

namespace ckpt::format {

OperatorId TopologyOperatorId(uint32_t bfs_position, std::string_view kind,
                              uint32_t chainable_outputs,
                              const std::vector<std::pair<OperatorId, pb::Partitioning>>& inputs) {
  // Byte layout documented in FORMAT.md "Operator IDs"; changing it changes every uid-less ID.
  std::string bytes = "ckpt-topology-v1";
  base::PutFixed32(&bytes, bfs_position);
  base::PutLengthPrefixed(&bytes, kind);
  base::PutFixed32(&bytes, chainable_outputs);
  base::PutFixed32(&bytes, static_cast<uint32_t>(inputs.size()));
  for (const auto& [id, partitioning] : inputs) {
    bytes.append(id.ToBytes());
    base::PutFixed32(&bytes, static_cast<uint32_t>(partitioning));
  }
  return OperatorId(base::Murmur3X64_128(bytes, 0));
}

base::Result<pb::JobGraph> BuildJobGraph(const pb::JobSpec& spec) {
  CKPT_RETURN_IF_ERROR(ValidateJobSpec(spec, "job spec"));
  const int n = spec.operators_size();
  const auto index = internal::OperatorIndex(spec);
  std::vector<uint32_t> parallelism(n);
  for (int i = 0; i < n; ++i) parallelism[i] = internal::EffectiveParallelism(spec, spec.operators(i));

  // Edge lists in spec order; inputs also remember the edge for the topology hash.
  std::vector<std::vector<int>> out_edges(n), in_edges(n);
  for (int e = 0; e < spec.edges_size(); ++e) {
    out_edges[index.at(spec.edges(e).from())].push_back(e);
    in_edges[index.at(spec.edges(e).to())].push_back(e);
  }
  auto chainable = [&](int e) {
    const pb::EdgeSpec& edge = spec.edges(e);
    int from = index.at(edge.from());
    int to = index.at(edge.to());
    return edge.partitioning() == pb::FORWARD && parallelism[from] == parallelism[to] &&
           out_edges[from].size() == 1 && in_edges[to].size() == 1;
  };

  // Breadth-first from the sources in spec order; an operator is visited once all its inputs
  // were, so its inputs' IDs are known when its own is derived (Kahn's algorithm, FIFO queue).
  std::vector<size_t> pending(n);
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    pending[i] = in_edges[i].size();
    if (pending[i] == 0) ready.push_back(i);
  }
  std::vector<OperatorId> ids(n);
  std::vector<int> position(n, -1);
  std::vector<int> order;
  while (!ready.empty()) {
    const int v = ready.front();
    ready.pop_front();
    position[v] = static_cast<int>(order.size());
    order.push_back(v);
    const pb::OperatorSpec& op = spec.operators(v);
    if (!op.uid().empty()) {
      ids[v] = OperatorId::FromUid(op.uid());
    } else {
      std::vector<std::pair<OperatorId, pb::Partitioning>> inputs;
      std::vector<std::tuple<uint32_t, OperatorId, pb::Partitioning>> sorted;
      for (int e : in_edges[v]) {
        sorted.emplace_back(spec.edges(e).input(), ids[index.at(spec.edges(e).from())],
                            spec.edges(e).partitioning());
      }
      // By input, then upstream ID: the hash does not depend on the order edges are listed in.
      std::sort(sorted.begin(), sorted.end());
      for (const auto& [input, id, partitioning] : sorted) inputs.emplace_back(id, partitioning);
      uint32_t chain_outputs = 0;
      for (int e : out_edges[v]) chain_outputs += chainable(e) ? 1 : 0;
      ids[v] = TopologyOperatorId(static_cast<uint32_t>(position[v]), op.kind(), chain_outputs,
                                  inputs);
    }
    for (int e : out_edges[v]) {
      int to = index.at(spec.edges(e).to());
      if (--pending[to] == 0) ready.push_back(to);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    return base::Status::InvalidArgument("job spec: edges: the graph has a cycle");
  }

  pb::JobGraph graph;
  std::set<OperatorId> seen;
  std::vector<uint32_t> chain(n), chain_pos(n);
  uint32_t next_chain = 0;
  for (int v : order) {
    const pb::OperatorSpec& op = spec.operators(v);
    if (!seen.insert(ids[v]).second) {
      return base::Status::InvalidArgument("job spec: operators ('" + op.id() + "'): operator ID " +
                                           ids[v].ToHex() + " collides with another operator's");
    }
    if (in_edges[v].size() == 1 && chainable(in_edges[v][0])) {
      int up = index.at(spec.edges(in_edges[v][0]).from());
      chain[v] = chain[up];
      chain_pos[v] = chain_pos[up] + 1;
    } else {
      chain[v] = next_chain++;
      chain_pos[v] = 0;
    }
    pb::OperatorInfo* info = graph.add_operators();
    info->set_operator_id(ids[v].ToBytes());
    info->set_uid(op.uid());
    info->set_name(op.name().empty() ? op.id() : op.name());
    info->set_kind(op.kind());
    info->set_parallelism(parallelism[v]);
    info->set_max_parallelism(internal::EffectiveMaxParallelism(spec, op));
    info->set_chain_index(chain[v]);
    info->set_position_in_chain(chain_pos[v]);
    info->set_spec_id(op.id());
  }

  std::vector<int> edges(spec.edges_size());
  for (int e = 0; e < spec.edges_size(); ++e) edges[e] = e;
  auto key = [&](int e) {
    return std::make_tuple(position[index.at(spec.edges(e).from())],
                           position[index.at(spec.edges(e).to())], spec.edges(e).input());
  };
  std::sort(edges.begin(), edges.end(), [&](int a, int b) { return key(a) < key(b); });
  for (int e : edges) {
    pb::EdgeInfo* info = graph.add_edges();
    info->set_source_operator_id(ids[index.at(spec.edges(e).from())].ToBytes());
    info->set_target_operator_id(ids[index.at(spec.edges(e).to())].ToBytes());
    info->set_partitioning(spec.edges(e).partitioning());
    info->set_target_input(spec.edges(e).input());
  }
  return graph;
}

}  // namespace ckpt::format
