// in_flight: the in-flight data of an unaligned checkpoint by edge between chains: what the
// consumers persisted as input channel state and the producers as output subpartition state,
// attributed with the reference engine's channel layout of the snapshot's job graph
// (format/channel_layout.h: the engine restores channel state by the same indexes). One
// computation for stats and show. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct EdgeInFlight {
  std::string source_id_hex;  // the edge's ends: the producing chain's tail operator...
  std::string target_id_hex;  // ...and the consuming chain's head operator
  std::string source;         // OperatorLabel: name, else uid, else the ID
  std::string target;         // the same for the target
  Partitioning partitioning = Partitioning::kUnspecified;
  uint32_t target_input = 0;
  uint64_t input_bytes = 0;  // persisted by the consumers
  uint64_t input_buffers = 0;
  uint64_t output_bytes = 0;  // persisted by the producers
  uint64_t output_buffers = 0;
};

struct InFlightByEdge {
  // Edges carrying in-flight data, job-graph order (empty for an aligned snapshot).
  std::vector<EdgeInFlight> edges;
  // Channel state no edge of the job graph explains (a channel index the layout does not have,
  // a snapshot without a job graph, as Apache Flink's, or a job graph whose parallelisms are
  // invalid or whose layout would exceed base::kMaxEntriesFromFile channels).
  uint64_t unattributed_bytes = 0;

  // The entry of the edge (source, target, target input), or null if it carries none.
  const EdgeInFlight* Find(const EdgeInfo& edge) const {
    for (const EdgeInFlight& e : edges) {
      if (e.source_id_hex == edge.source_id_hex && e.target_id_hex == edge.target_id_hex &&
          e.target_input == edge.target_input) {
        return &e;
      }
    }
    return nullptr;
  }
};

InFlightByEdge ComputeInFlightByEdge(const Snapshot& snapshot);

}  // namespace ckpt::ops
