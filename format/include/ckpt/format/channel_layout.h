// ChannelLayout: where each input channel and output subpartition of a job graph sits, exactly
// as JobAttempt wires them — per chain head subtask d, one input channel per inbound edge (graph
// order) and upstream subtask u (FORWARD: u = d only); per chain tail subtask u, one writer per
// outbound edge (graph order), whose targets are the downstream subtasks (FORWARD: just u).
// Channel state names channels by these indexes; the layouts of the snapshot's graph and of the
// new graph translate them when a restore changes parallelism (in-flight data redistribution),
// and ckpt-tool attributes a checkpoint's channel state to edges with the same layout.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ckpt/format/proto.h"

namespace ckpt::format {

// Whether the ChannelLayout of `graph` has a size a reader may build: the layout holds an entry
// per (edge, upstream subtask, downstream subtask), so parallelisms read from a file bound it,
// and they are checked before it is built (a hostile 2^32-1 would ask for gigabytes). False when
// a parallelism passes kUpperBoundMaxParallelism or the channels pass base::kMaxEntriesFromFile.
bool ChannelLayoutIsBounded(const pb::JobGraph& graph);

class ChannelLayout {
 public:
  explicit ChannelLayout(const pb::JobGraph& graph);

  // An edge between chains, by its ends (16-byte operator ids) and target input.
  using EdgeKey = std::tuple<std::string, std::string, uint32_t>;
  static EdgeKey KeyOf(const pb::EdgeInfo& e) {
    return {e.source_operator_id(), e.target_operator_id(), e.target_input()};
  }

  struct Edge {
    EdgeKey key;
    pb::Partitioning partitioning = pb::PARTITIONING_UNSPECIFIED;
    uint32_t from_parallelism = 0;
    uint32_t to_parallelism = 0;
    uint32_t target_max_parallelism = 0;
    uint32_t writer_index = 0;  // at every subtask of the source chain's tail
  };
  // Edges between chains, in graph order.
  const std::vector<Edge>& edges() const { return edges_; }
  const Edge* FindEdge(const EdgeKey& key) const;

  // Input channel index of (edge, u) at downstream subtask d, or nullopt.
  std::optional<uint32_t> ChannelOf(const EdgeKey& edge, uint32_t u, uint32_t d) const;
  // The (edge, u) of input channel `channel` of subtask d of the chain headed by `head_op`.
  std::optional<std::pair<EdgeKey, uint32_t>> InputOf(const std::string& head_op, uint32_t d,
                                                      uint32_t channel) const;
  // Subpartition (target) index of downstream subtask d in the writer of `edge` at u.
  std::optional<uint32_t> TargetOf(const EdgeKey& edge, uint32_t u, uint32_t d) const;
  // The edge of writer `writer` of the chain whose tail is `tail_op`.
  const Edge* WriterEdge(const std::string& tail_op, uint32_t writer) const;

 private:
  std::vector<Edge> edges_;
  std::map<std::tuple<EdgeKey, uint32_t, uint32_t>, uint32_t> channel_of_;  // (edge, u, d)
  std::map<std::tuple<std::string, uint32_t, uint32_t>, std::pair<EdgeKey, uint32_t>> input_of_;
  std::map<std::pair<std::string, uint32_t>, size_t> writer_edge_;  // (tail op, writer) -> edge
};

}  // namespace ckpt::format
