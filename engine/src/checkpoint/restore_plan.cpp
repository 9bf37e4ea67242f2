// RestorePlan::Create: reading `_metadata` and mapping its state onto the new job graph.
#include "ckpt/engine/checkpoint/restore_plan.h"

#include <string>
#include <utility>

#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::engine {

namespace {

bool OperatorHasState(const pb::OperatorState& op) {
  if (op.states_size() > 0 || op.has_coordinator_state()) return true;
  for (const auto& s : op.subtasks()) {
    if (s.keyed_state_size() > 0 || s.operator_state_size() > 0 || s.committables_size() > 0 ||
        s.input_channel_state_size() > 0 || s.output_channel_state_size() > 0) {
      return true;
    }
  }
  return false;
}

bool HasKeyedState(const pb::OperatorState& op) {
  for (const auto& d : op.states()) {
    if (IsKeyedStateKind(d.kind())) return true;
  }
  for (const auto& s : op.subtasks()) {
    if (s.keyed_state_size() > 0) return true;
  }
  return false;
}

// "'Keyed Sum' (uid 'sum', id 0123...)" from the snapshot's own job graph when it has the
// operator, else just the id.
std::string Describe(const pb::CheckpointMetadata& md, const std::string& id_bytes) {
  base::Result<format::OperatorId> id = format::OperatorId::FromBytes(id_bytes);
  const std::string hex = id.ok() ? id->ToHex() : "<malformed id>";
  for (const auto& op : md.job_graph().operators()) {
    if (op.operator_id() != id_bytes) continue;
    return "'" + op.name() + "' (uid " + (op.uid().empty() ? "<none>" : "'" + op.uid() + "'") +
           ", id " + hex + ")";
  }
  return "operator " + hex + " (name and uid not recorded)";
}

}  // namespace

base::Result<std::shared_ptr<const RestorePlan>> RestorePlan::Create(
    base::Fs& fs, const std::string& user_path, const pb::JobGraph& new_graph,
    const RestoreOptions& options) {
  CKPT_ASSIGN_OR_RETURN(format::SnapshotLocation loc, format::LocateSnapshot(fs, user_path));
  CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, loc.metadata));
  std::shared_ptr<RestorePlan> plan(new RestorePlan());
  plan->fs_ = &fs;
  plan->user_path_ = user_path;
  plan->snapshot_dir_ = loc.dir;
  plan->options_ = options;

  std::map<std::string, const pb::OperatorInfo*> new_ops;  // by 16-byte id
  for (const auto& op : new_graph.operators()) new_ops[op.operator_id()] = &op;

  std::vector<std::string> unmapped;
  std::vector<int> kept;
  for (int i = 0; i < md.operators_size(); ++i) {
    const pb::OperatorState& os = md.operators(i);
    CKPT_ASSIGN_OR_RETURN(format::OperatorId id, format::OperatorId::FromBytes(os.operator_id()));
    auto it = new_ops.find(os.operator_id());
    if (it == new_ops.end()) {
      if (OperatorHasState(os)) {
        unmapped.push_back(Describe(md, os.operator_id()));
        plan->non_restored_.push_back(id.ToHex());
      }
      continue;
    }
    const pb::OperatorInfo& now = *it->second;
    if (HasKeyedState(os) && os.max_parallelism() != now.max_parallelism()) {
      return base::Status::InvalidArgument(
          "cannot restore " + loc.dir + ": operator '" + now.name() + "' (uid " +
          (now.uid().empty() ? "<none>" : "'" + now.uid() + "'") + ", id " + id.ToHex() +
          ") has max parallelism " + std::to_string(now.max_parallelism()) +
          " but its keyed state was written with max parallelism " +
          std::to_string(os.max_parallelism()) +
          "; the max parallelism of a stateful operator cannot change across a restore");
    }
    plan->operator_index_[id] = i;
  }
  if (!unmapped.empty() && !options.allow_non_restored_state) {
    std::string msg = "cannot restore " + loc.dir + ": the snapshot has state for " +
                      std::to_string(unmapped.size()) +
                      " operator(s) that the new job does not contain:";
    for (const auto& u : unmapped) msg += "\n  " + u;
    msg +=
        "\nAn operator's state is matched by its ID (the hash of its uid, or of the job's "
        "topology when it has no uid). Restore the removed operators or their uids, or pass "
        "--allow-non-restored-state (-n) to skip this state.";
    return base::Status::InvalidArgument(msg);
  }
  if (unmapped.empty()) plan->non_restored_.clear();
  plan->metadata_ = std::move(md);
  return std::shared_ptr<const RestorePlan>(std::move(plan));
}

pb::RestoreInfo RestorePlan::restore_info() const {
  pb::RestoreInfo r;
  r.set_path(user_path_);
  r.set_checkpoint_id(metadata_.checkpoint_id());
  r.set_kind(metadata_.kind());
  r.set_claim_mode(options_.claim_mode == pb::CLAIM_MODE_UNSPECIFIED ? pb::NO_CLAIM
                                                                      : options_.claim_mode);
  r.set_allow_non_restored_state(options_.allow_non_restored_state);
  return r;
}

CompletedCheckpoint RestorePlan::AsCompletedCheckpoint() const {
  CompletedCheckpoint c;
  c.checkpoint_id = metadata_.checkpoint_id();
  c.kind = metadata_.kind() == pb::SNAPSHOT_KIND_UNSPECIFIED ? pb::CHECKPOINT : metadata_.kind();
  c.dir = snapshot_dir_;
  c.metadata_path = base::JoinPath(snapshot_dir_, format::kMetadataFileName);
  c.trigger_timestamp_ms = metadata_.trigger_timestamp();
  c.completion_timestamp_ms = metadata_.completion_timestamp();
  c.state_size_bytes = metadata_.metrics().state_size();
  c.owned = options_.claim_mode == pb::CLAIM;
  c.restored = true;
  return c;
}

bool RestorePlan::HasState(const format::OperatorId& operator_id) const {
  return operator_index_.count(operator_id) != 0;
}

}  // namespace ckpt::engine
