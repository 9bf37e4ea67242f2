// remap of a snapshot of our format: operator IDs and uids rewritten in the operator states, the
// job graph and its edges; dropped operators' state and the files only they referenced left out;
// the result written as a self-contained copy (relocate_copy.h).
#include "formats/own/own_format.h"

#include <set>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "rewrite/output_publish.h"
#include "rewrite/relocate_copy.h"
#include "rewrite/remap_plan.h"

namespace ckpt::ops {
namespace {

using format::OperatorId;

RemapEntry MakeEntry(const internal::RemapPlan& plan, size_t i,
                     const pb::CheckpointMetadata& metadata) {
  const internal::KnownOperator& op = plan.known[i];
  RemapEntry e = internal::PlannedEntry(plan, i);
  if (op.state_index >= 0) {
    pb::OperatorState state = metadata.operators(op.state_index);  // a copy: the visitor mutates
    e.subtasks_with_state = static_cast<uint32_t>(state.subtasks_size());
    e.states = static_cast<uint32_t>(state.states_size());
    e.has_coordinator_state = state.has_coordinator_state();
    std::set<uint32_t> files;
    internal::ForEachFileIndex(&state, [&](uint32_t* f) { files.insert(*f); });
    for (uint32_t f : files) {
      if (f < static_cast<uint32_t>(metadata.files_size())) {
        e.state_bytes += metadata.files(static_cast<int>(f)).size_bytes();
      }
    }
    if (state.has_coordinator_state() && state.coordinator_state().has_inline_data()) {
      e.state_bytes += state.coordinator_state().inline_data().size();
    }
  }
  return e;
}

// Rewrites IDs and uids in the operator states, the job graph and its edges; leaves out dropped
// operators' state and the files only they referenced.
void Apply(const internal::RemapPlan& plan, pb::CheckpointMetadata* metadata) {
  std::map<std::string, std::string> id_bytes;  // old ID bytes -> new ID bytes
  std::set<int> dropped_states;
  for (const auto& [i, d] : plan.renames) {
    const auto& op = plan.known[i];
    id_bytes[op.id.ToBytes()] = d.new_id.ToBytes();
    if (op.graph_index >= 0) {
      auto* info = metadata->mutable_job_graph()->mutable_operators(op.graph_index);
      info->set_operator_id(d.new_id.ToBytes());
      if (d.new_uid) info->set_uid(*d.new_uid);
    }
  }
  for (const auto& [i, reason] : plan.drops) {
    if (plan.known[i].state_index >= 0) dropped_states.insert(plan.known[i].state_index);
  }
  auto rename = [&](std::string* id) {
    auto it = id_bytes.find(*id);
    if (it != id_bytes.end()) *id = it->second;
  };
  for (auto& edge : *metadata->mutable_job_graph()->mutable_edges()) {
    rename(edge.mutable_source_operator_id());
    rename(edge.mutable_target_operator_id());
  }
  google::protobuf::RepeatedPtrField<pb::OperatorState> kept;
  for (int i = 0; i < metadata->operators_size(); ++i) {
    if (dropped_states.count(i)) continue;
    pb::OperatorState* op = kept.Add();
    *op = metadata->operators(i);
    rename(op->mutable_operator_id());
  }
  metadata->mutable_operators()->Swap(&kept);

  std::vector<bool> referenced(metadata->files_size(), false);
  for (auto& op : *metadata->mutable_operators()) {
    internal::ForEachFileIndex(&op, [&](uint32_t* f) {
      if (*f < referenced.size()) referenced[*f] = true;
    });
  }
  internal::CompactFileTable(metadata, referenced);
}

}  // namespace

base::Result<RemapResult> internal::RemapOwn(base::Fs& fs,
                                             const format::SnapshotLocation& location,
                                             const std::string& output_dir,
                                             const RemapOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto metadata, format::ReadMetadataFile(fs, location.metadata));
  CKPT_ASSIGN_OR_RETURN(internal::RemapPlan plan, internal::PlanRemap(fs, metadata, options));
  CKPT_RETURN_IF_ERROR(internal::CheckOutputPlace(fs, location.dir, output_dir));

  RemapResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.dry_run = options.dry_run;
  result.unmatched = plan.unmatched;
  result.warnings = plan.warnings;
  // Operators with state first (they are what a remap moves), each group in metadata order.
  for (size_t i = 0; i < plan.known.size(); ++i) {
    if (plan.known[i].state_index >= 0) result.operators.push_back(MakeEntry(plan, i, metadata));
  }
  for (size_t i = 0; i < plan.known.size(); ++i) {
    if (plan.known[i].state_index < 0 && (plan.renames.count(i) || plan.drops.count(i))) {
      result.operators.push_back(MakeEntry(plan, i, metadata));
    }
  }

  pb::CheckpointMetadata out = metadata;
  Apply(plan, &out);
  std::vector<std::string> paths = internal::PlanOutputPaths(out);
  CKPT_ASSIGN_OR_RETURN(auto files, internal::PlanCopy(location.dir, out, paths));
  result.files = files.size();
  for (const auto& f : files) result.total_bytes += f.size_bytes;
  if (options.dry_run) return result;

  if (!plan.unmatched.empty()) {
    // Plan fully, refuse before writing: a request that matched nothing means the user meant
    // something else; an output written anyway would make the corrected retry AlreadyExists.
    result.refused = "nothing written: " + std::to_string(plan.unmatched.size()) +
                     " request(s) matched no operator of " + location.dir;
    return result;
  }
  internal::MakeSelfContained(&out, paths, "ckpt.remapped_from", location.dir);
  internal::CopyOptions copy;
  copy.transfer = options.copy_files ? internal::FileTransfer::kCopy
                                     : internal::FileTransfer::kLinkOrCopy;
  CKPT_ASSIGN_OR_RETURN(internal::CopyResult copied,
                        internal::WriteSnapshotCopy(fs, files, output_dir, out, copy,
                                                    options.progress));
  result.files_linked = copied.files_linked;
  internal::TakePublication(std::move(copied), options.verify_output, &result);
  return result;
}

}  // namespace ckpt::ops
