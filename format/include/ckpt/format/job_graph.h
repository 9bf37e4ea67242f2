// From a job spec to the job graph a snapshot records: operator IDs (uid hash, or the documented
// topology hash for operators without uid), topological order and operator chains. The engine
// runs this graph and `ckpt-tool validate --against` compares snapshots with it, so both derive
// IDs the same way. Pure functions; thread-safe.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"

namespace ckpt::format {

// Builds the job graph of a validated spec (see ValidateJobSpec): operators in topological order
// with IDs, parallelism and max parallelism resolved, chain_index/position_in_chain set (an
// operator chains to its single upstream over a FORWARD edge of equal parallelism when that
// upstream has exactly one output), edges with partitioning. InvalidArgument if the spec is
// invalid.
base::Result<pb::JobGraph> BuildJobGraph(const pb::JobSpec& spec);

// The topology hash of an operator without uid (FORMAT.md "Operator IDs"): murmur3_x64_128 of
// "ckpt-topology-v1", its position in breadth-first order from the sources, its kind, its number
// of chainable outputs and the IDs of its inputs. Changes when the job's structure changes.
// Exposed for documentation and tests; BuildJobGraph applies it.
OperatorId TopologyOperatorId(uint32_t bfs_position, std::string_view kind,
                              uint32_t chainable_outputs,
                              const std::vector<std::pair<OperatorId, pb::Partitioning>>& inputs);

}  // namespace ckpt::format
