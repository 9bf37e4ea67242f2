// Rules shared by job-spec validation and job-graph building: the effective parallelism of an
// operator and the graph's adjacency. Private to ckpt::format.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ckpt/format/proto.h"

namespace ckpt::format::internal {

// OperatorSpec.parallelism, else JobSpec.parallelism, else 1.
uint32_t EffectiveParallelism(const pb::JobSpec& spec, const pb::OperatorSpec& op);
// OperatorSpec.max_parallelism, else JobSpec.max_parallelism, else Flink's default for the
// operator's effective parallelism.
uint32_t EffectiveMaxParallelism(const pb::JobSpec& spec, const pb::OperatorSpec& op);

// Operators by spec id -> index in spec.operators (first occurrence).
std::unordered_map<std::string, int> OperatorIndex(const pb::JobSpec& spec);

}  // namespace ckpt::format::internal
