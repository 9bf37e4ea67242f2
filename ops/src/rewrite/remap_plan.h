// Resolving remap requests (--map, --against, uid rewrites, --drop) into one decision per
// operator, refusing ambiguous, chained and conflicting mappings. Private to ckpt::ops.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/remap.h"

namespace ckpt::ops::internal {

// One operator the snapshot knows, from its job graph, its states, or both.
struct KnownOperator {
  format::OperatorId id;
  std::string uid;
  std::string name;
  std::string spec_id;
  int graph_index = -1;  // into metadata.job_graph.operators
  int state_index = -1;  // into metadata.operators
};

struct RemapDecision {
  format::OperatorId new_id;
  std::optional<std::string> new_uid;  // nullopt: keep the uid; "" clears it
  std::string reason;
};

struct RemapPlan {
  std::vector<KnownOperator> known;              // job-graph order, then state-only operators
  std::map<size_t, RemapDecision> renames;       // by index into `known`
  std::map<size_t, std::string> drops;           // index -> reason
  std::map<size_t, std::string> keep_reasons;    // index -> why it keeps its ID (against a job)
  std::vector<std::string> unmatched;
  std::vector<std::string> warnings;
};

// Resolves `options` against `metadata` (and the job spec, read through `fs`). Errors as
// documented on ops::Remap.
base::Result<RemapPlan> PlanRemap(base::Fs& fs, const pb::CheckpointMetadata& metadata,
                                  const RemapOptions& options);

// As PlanRemap, over operators collected from another metadata model (a Flink `_metadata`):
// `max_parallelism_of_state(state_index)` is that operator's max parallelism.
base::Result<RemapPlan> PlanRemapOf(base::Fs& fs, std::vector<KnownOperator> known,
                                    const std::function<uint32_t(int)>& max_parallelism_of_state,
                                    const RemapOptions& options);

// The RemapEntry of `plan.known[i]` as the plan decides it: name, old and new ID and uid, the
// action (keep, rename, drop) and its reason. State counts and sizes are left for the caller.
RemapEntry PlannedEntry(const RemapPlan& plan, size_t i);

}  // namespace ckpt::ops::internal
