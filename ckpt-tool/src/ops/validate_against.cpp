// validate --against JOB.json: Flink's restore rules applied offline (operator-ID mapping, max
// parallelism, unmapped state unless -n), plus what Flink does not check up front: source
// coordinator state, in-flight data on edges that cannot be rescaled, pending sink files, and
// operators without uid.
#include <map>
#include <set>
#include <vector>

#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/operator_id.h"
#include "snapshot_raw.h"
#include "validate_internal.h"

namespace ckpt::ops::internal {
namespace {

std::string Hex(const std::string& bytes) {
  return format::OperatorId::FromBytes(bytes).ValueOr(format::OperatorId()).ToHex();
}

std::string Label(const pb::OperatorInfo& op) {
  return op.uid().empty() ? (op.name().empty() ? op.spec_id() : op.name()) : op.uid();
}

bool HasChannelState(const OperatorInfo& op, bool input) {
  for (const auto& st : op.subtasks) {
    for (const auto& c : st.channels) {
      if (c.input == input) return true;
    }
  }
  return false;
}

}  // namespace

base::Status CheckAgainst(ValidateContext& ctx, const Snapshot& s) {
  for (const char* r : {"CKPT-A001", "CKPT-A002", "CKPT-A003", "CKPT-A004", "CKPT-A005",
                        "CKPT-A006", "CKPT-A007", "CKPT-A008"}) {
    ctx.Checked(r);
  }
  const std::string& spec_path = ctx.options().against_job;
  CKPT_ASSIGN_OR_RETURN(pb::JobSpec spec, format::ReadJobSpecFile(ctx.fs(), spec_path));
  auto graph = format::BuildJobGraph(spec);
  if (!graph.ok()) return graph.status().WithContext(spec_path);

  std::map<std::string, const pb::OperatorInfo*> new_ops;
  std::set<std::string> has_input;
  for (const auto& op : graph->operators()) new_ops[Hex(op.operator_id())] = &op;
  for (const auto& e : graph->edges()) has_input.insert(Hex(e.target_operator_id()));
  std::map<std::string, const OperatorInfo*> old_ops;
  for (const auto& op : s.operators) old_ops[op.id_hex] = &op;

  // Evidence that an operator should have coordinator state (A003).
  std::set<std::string> kinds_with_coordinator;
  std::vector<std::string> orphan_coordinators;
  for (const auto& op : s.operators) {
    if (!op.coordinator) continue;
    if (!op.kind.empty()) kinds_with_coordinator.insert(op.kind);
    if (op.subtasks.empty() && new_ops.count(op.id_hex) == 0) orphan_coordinators.push_back(op.id_hex);
  }

  for (const auto& op : s.operators) {
    const bool has_state = !op.subtasks.empty() || op.coordinator.has_value();
    if (!has_state) continue;
    const Location loc = OperatorLocation(op);
    auto it = new_ops.find(op.id_hex);
    if (it == new_ops.end()) {
      const std::string msg = "state of operator " + (loc.operator_name.empty() ? op.id_hex : loc.operator_name) +
                              " (" + std::to_string(op.subtasks.size()) +
                              " subtask state(s)) has no operator with ID " + op.id_hex +
                              " in " + spec_path;
      if (ctx.options().allow_non_restored_state) {
        ctx.AddWithSeverity("CKPT-A001", Severity::kInfo, loc,
                            msg + "; it will be skipped (--allow-non-restored-state)");
      } else {
        ctx.Add("CKPT-A001", loc, msg);
      }
      continue;
    }
    const pb::OperatorInfo& now = *it->second;
    if (now.max_parallelism() != op.max_parallelism) {
      ctx.Add("CKPT-A002", loc,
              "max parallelism " + std::to_string(op.max_parallelism) + " in the snapshot, " +
                  std::to_string(now.max_parallelism()) + " in " + spec_path);
    }
    if (now.parallelism() > op.max_parallelism) {
      ctx.Add("CKPT-A007", loc,
              "new parallelism " + std::to_string(now.parallelism()) +
                  " exceeds the snapshot's max parallelism " + std::to_string(op.max_parallelism));
    }
    if (!op.subtasks.empty() && !op.coordinator) {
      std::string why;
      if (!op.kind.empty() && kinds_with_coordinator.count(op.kind) != 0) {
        why = "other '" + op.kind + "' operators of this snapshot keep coordinator state";
      } else if (!orphan_coordinators.empty()) {
        why = "coordinator-only state is left under unmapped ID " + orphan_coordinators.front() +
              " (the signature of an operator-ID change that lost it, FLINK-40837)";
      }
      if (!why.empty()) {
        ctx.Add("CKPT-A003", loc,
                "operator has " + std::to_string(op.subtasks.size()) +
                    " subtask state(s) but no coordinator state; " + why);
      }
    }
  }

  // In-flight data (channel state of an unaligned checkpoint) can only be redistributed over
  // all-to-all edges.
  for (const auto& e : graph->edges()) {
    if (e.partitioning() != pb::FORWARD && e.partitioning() != pb::RESCALE) continue;
    const std::string src = Hex(e.source_operator_id()), dst = Hex(e.target_operator_id());
    auto old_src = old_ops.find(src), old_dst = old_ops.find(dst);
    const bool in_flight = (old_dst != old_ops.end() && HasChannelState(*old_dst->second, true)) ||
                           (old_src != old_ops.end() && HasChannelState(*old_src->second, false));
    if (!in_flight) continue;
    const bool src_changed = old_src != old_ops.end() &&
                             old_src->second->parallelism != new_ops[src]->parallelism();
    const bool dst_changed = old_dst != old_ops.end() &&
                             old_dst->second->parallelism != new_ops[dst]->parallelism();
    if (!src_changed && !dst_changed) continue;
    const OperatorInfo& at = old_dst != old_ops.end() ? *old_dst->second : *old_src->second;
    ctx.Add("CKPT-A004", OperatorLocation(at),
            "edge " + Label(*new_ops[src]) + " -> " + Label(*new_ops[dst]) + " (" +
                std::string(e.partitioning() == pb::FORWARD ? "forward" : "rescale") +
                ") carries in-flight data of the unaligned checkpoint and its parallelism "
                "changes");
  }

  // Pending sink files: each must still exist, pending or already committed.
  for (const auto& op : s.operators) {
    for (const auto& st : op.subtasks) {
      for (const auto& c : st.committables) {
        auto pending = ctx.fs().Stat(c.pending_path);
        auto committed = ctx.fs().Stat(c.final_path);
        if (pending.ok() || committed.ok()) continue;
        Location loc = OperatorLocation(op);
        loc.subtask = st.index;
        loc.file = c.pending_path;
        // Without the sink's output directory this is another machine (or the output was moved
        // wholesale): say so instead of declaring the output lost.
        const std::string out_dir = base::DirName(c.pending_path);
        if (!ctx.fs().Stat(out_dir).ok()) {
          ctx.AddWithSeverity("CKPT-A005", Severity::kWarning, loc,
                              "cannot check pending file " + c.pending_path + ": its directory " +
                                  out_dir + " does not exist here");
          continue;
        }
        ctx.Add("CKPT-A005", loc,
                "pending file " + c.pending_path + " (" + std::to_string(c.size_bytes) +
                    " bytes, checkpoint " + std::to_string(c.checkpoint_id) +
                    ") exists neither pending nor as " + c.final_path);
      }
    }
  }

  for (const auto& op : graph->operators()) {
    Location loc;
    loc.operator_id = Hex(op.operator_id());
    loc.operator_name = Label(op);
    if (op.uid().empty()) {
      ctx.Add("CKPT-A006", loc,
              "operator '" + op.spec_id() + "' (" + op.kind() +
                  ") has no uid; its ID is derived from the job's topology");
    }
    auto old = old_ops.find(loc.operator_id);
    if (old == old_ops.end() || (old->second->subtasks.empty() && !old->second->coordinator)) {
      ctx.Add("CKPT-A008", loc, "operator '" + op.spec_id() + "' starts with empty state");
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
