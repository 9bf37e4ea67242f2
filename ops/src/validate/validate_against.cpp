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
#include "ckpt/ops/operator_label.h"
#include "ckpt/ops/pending_files.h"
#include "formats/snapshot_format.h"
#include "model/snapshot_raw.h"
#include "validate/validate_internal.h"

namespace ckpt::ops::internal {
namespace {

std::string Hex(const std::string& bytes) {
  return format::OperatorId::FromBytes(bytes).ValueOr(format::OperatorId()).ToHex();
}

// A job spec's operator as OperatorLabel names it; the spec id stands in for the ID.
std::string SpecOperatorLabel(const pb::OperatorInfo& op) {
  return OperatorLabel(op.name(), op.uid(), op.spec_id());
}

bool HasChannelState(const OperatorInfo& op, bool input) {
  for (const auto& st : op.subtasks) {
    for (const auto& c : st.channels) {
      if (c.input == input) return true;
    }
  }
  return false;
}

// What the engine's restore counts as state of an operator (an operator with any of it and no
// match in the new job fails the restore unless --allow-non-restored-state).
bool OperatorHasState(const pb::OperatorState& os) {
  if (os.states_size() > 0 || os.has_coordinator_state()) return true;
  for (const auto& st : os.subtasks()) {
    if (st.keyed_state_size() > 0 || st.operator_state_size() > 0 ||
        st.committables_size() > 0 || st.input_channel_state_size() > 0 ||
        st.output_channel_state_size() > 0) {
      return true;
    }
  }
  return false;
}

bool HasKeyedState(const pb::OperatorState& os) {
  for (const auto& d : os.states()) {
    if (IsKeyedStateKind(static_cast<StateKind>(d.kind()))) return true;
  }
  for (const auto& st : os.subtasks()) {
    if (st.keyed_state_size() > 0) return true;
  }
  return false;
}

// Keyed in the new job: a chain head whose every input is hash-partitioned (keyBy). Such an
// operator gets a keyed backend of its new max parallelism, which must match the snapshot's.
bool IsKeyedInNewJob(const pb::JobGraph& graph, const pb::OperatorInfo& op) {
  if (op.position_in_chain() != 0) return false;
  bool any = false;
  for (const auto& e : graph.edges()) {
    if (e.target_operator_id() != op.operator_id()) continue;
    if (e.partitioning() != pb::HASH) return false;
    any = true;
  }
  return any;
}

// A pending file on an object store: the restore completes its upload, which needs the upload
// still open, or the object already published (committed before) with the recorded size.
void CheckPendingUpload(ValidateContext& ctx, const Committable& c, Location loc,
                        const std::string& what) {
  auto committed = ctx.fs().Stat(c.final_path);
  if (committed.ok()) {
    if (committed->size_bytes != c.size_bytes) {
      ctx.Add("CKPT-A005", loc,
              what + ": " + c.final_path + " has " + std::to_string(committed->size_bytes) +
                  " bytes but the snapshot recorded " + std::to_string(c.size_bytes));
    }
    return;
  }
  base::Result<bool> open = PendingUploadIsOpen(c);
  if (!open.ok()) {
    ctx.NotChecked("CKPT-A005", loc, "cannot check " + what + ": " + open.status().message());
    return;
  }
  if (!*open) {
    ctx.Add("CKPT-A005", loc,
            what + " is neither an open upload nor published as " + c.final_path);
  }
}

// Pending sink files (two-phase commit): on restore each is committed, which requires the
// pending file, or its committed name when the commit already happened, with exactly the size
// the snapshot recorded (the file sink's CommitPendingPartFile).
void CheckPendingSinkFiles(ValidateContext& ctx, const Snapshot& s) {
  bool checked_any = false;
  bool any = false;
  for (const auto& op : s.operators) {
    for (const auto& st : op.subtasks) {
      for (const auto& c : st.committables) {
        any = true;
        Location loc = OperatorLocation(op);
        loc.subtask = st.index;
        loc.file = c.is_upload() ? c.final_path : c.pending_path;
        const std::string what = "pending file " + c.PendingName() + " (" +
                                 std::to_string(c.size_bytes) + " bytes, checkpoint " +
                                 std::to_string(c.checkpoint_id) + ")";
        if (c.is_upload()) {
          CheckPendingUpload(ctx, c, loc, what);
          checked_any = true;
          continue;
        }
        auto pending = ctx.fs().Stat(c.pending_path);
        auto committed = pending.ok() ? pending : ctx.fs().Stat(c.final_path);
        if (committed.ok()) {
          checked_any = true;
          const std::string& at = pending.ok() ? c.pending_path : c.final_path;
          if (committed->size_bytes != c.size_bytes) {
            loc.file = at;
            ctx.Add("CKPT-A005", loc,
                    what + ": " + at + " has " + std::to_string(committed->size_bytes) +
                        " bytes but the snapshot recorded " + std::to_string(c.size_bytes));
          }
          continue;
        }
        // Without the sink's output directory this is another machine (or the output was moved
        // wholesale): the rule cannot be checked here, which is not the same as passing.
        const std::string out_dir = base::DirName(c.pending_path);
        if (!ctx.fs().Stat(out_dir).ok()) {
          ctx.NotChecked("CKPT-A005", loc,
                         "cannot check " + what + ": its directory " + out_dir +
                             " does not exist on this host");
          continue;
        }
        checked_any = true;
        ctx.Add("CKPT-A005", loc, what + " exists neither pending nor as " + c.final_path);
      }
    }
  }
  if (checked_any || !any) ctx.Checked("CKPT-A005");
}

}  // namespace

base::Status CheckAgainst(ValidateContext& ctx, const Snapshot& s) {
  for (const char* r : {"CKPT-A001", "CKPT-A002", "CKPT-A003", "CKPT-A004", "CKPT-A006",
                        "CKPT-A007", "CKPT-A008", "CKPT-A009"}) {
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

  std::map<std::string, const pb::OperatorState*> raw_ops;
  for (const auto& os : RawMetadata(s).operators()) raw_ops[Hex(os.operator_id())] = &os;
  for (const auto& op : s.operators) {
    auto raw = raw_ops.find(op.id_hex);
    if (raw == raw_ops.end() || !OperatorHasState(*raw->second)) continue;
    const Location loc = OperatorLocation(op);
    auto it = new_ops.find(op.id_hex);
    if (it == new_ops.end()) {
      const std::string msg = "state of operator " + (loc.operator_name.empty() ? op.id_hex : loc.operator_name) +
                              " (" + std::to_string(op.subtasks.size()) +
                              " subtask state(s)) has no operator with ID " + op.id_hex +
                              " in " + spec_path;
      if (ctx.options().allow_non_restored_state) {
        ctx.Add("CKPT-A009", loc, msg + "; it will be skipped (--allow-non-restored-state)");
      } else {
        ctx.Add("CKPT-A001", loc, msg);
      }
      continue;
    }
    const pb::OperatorInfo& now = *it->second;
    // Our engine's restore enforces max parallelism where keyed state is involved: state written
    // with key groups, or a keyed operator of the new job (its backend has the new key-group
    // count). Flink's (Checkpoints.loadAndValidateCheckpoint) enforces it for every operator
    // with state whose new max parallelism is set explicitly, as a job spec's is.
    const bool keyed_restore = FormatOf(s).RestoreChecksMaxParallelismOfEveryOperator() ||
                               HasKeyedState(*raw->second) || IsKeyedInNewJob(*graph, now);
    if (keyed_restore && now.max_parallelism() != op.max_parallelism) {
      ctx.Add("CKPT-A002", loc,
              "max parallelism " + std::to_string(op.max_parallelism) + " in the snapshot, " +
                  std::to_string(now.max_parallelism()) + " in " + spec_path);
    }
    if (keyed_restore && now.parallelism() > op.max_parallelism) {
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
              " (the signature of an operator-ID change that lost it)";
      }
      if (!why.empty()) {
        ctx.Add("CKPT-A003", loc,
                "operator has " + std::to_string(op.subtasks.size()) +
                    " subtask state(s) but no coordinator state; " + why);
      }
    }
  }

  // In-flight data (channel state of an unaligned checkpoint): the engine's restore
  // (engine/src/checkpoint/restore_plan.cpp, CheckChannelStateParallelism) replays it into the
  // same channels, or redistributes it over a HASH or REBALANCE edge whose parallelism changed; it
  // refuses any other edge carrying some whose ends changed parallelism (FORWARD, RESCALE,
  // BROADCAST), and any edge whose partitioner changed. This is the same rule.
  for (const auto& e : graph->edges()) {
    const std::string src = Hex(e.source_operator_id()), dst = Hex(e.target_operator_id());
    auto old_src = old_ops.find(src), old_dst = old_ops.find(dst);
    const bool in_flight = (old_dst != old_ops.end() && HasChannelState(*old_dst->second, true)) ||
                           (old_src != old_ops.end() && HasChannelState(*old_src->second, false));
    if (!in_flight) continue;
    const EdgeInfo* was = nullptr;
    for (const EdgeInfo& oe : s.edges) {
      if (oe.source_id_hex == src && oe.target_id_hex == dst &&
          oe.target_input == e.target_input()) {
        was = &oe;
      }
    }
    const auto now = static_cast<Partitioning>(e.partitioning());
    const std::string edge =
        "edge " + SpecOperatorLabel(*new_ops[src]) + " -> " + SpecOperatorLabel(*new_ops[dst]);
    const OperatorInfo& at = old_dst != old_ops.end() ? *old_dst->second : *old_src->second;
    if (was != nullptr && was->partitioning != now) {
      ctx.Add("CKPT-A004", OperatorLocation(at),
              edge + " carries in-flight data of the unaligned checkpoint written with " +
                  std::string(PartitioningName(was->partitioning)) + " partitioning, but the job now uses " +
                  std::string(PartitioningName(now)));
      continue;
    }
    const bool src_changed = old_src != old_ops.end() &&
                             old_src->second->parallelism != new_ops[src]->parallelism();
    const bool dst_changed = old_dst != old_ops.end() &&
                             old_dst->second->parallelism != new_ops[dst]->parallelism();
    if (!src_changed && !dst_changed) continue;
    // A snapshot that records no job graph (Flink's) has no old edge to compare with: Flink
    // redistributes in-flight data over a HASH or REBALANCE edge as the engine does.
    if ((was != nullptr || s.edges.empty()) && (now == Partitioning::kHash || now == Partitioning::kRebalance)) {
      continue;  // redistributed by the restoring tasks
    }
    ctx.Add("CKPT-A004", OperatorLocation(at),
            edge + " (" + std::string(PartitioningName(now)) +
                ") carries in-flight data of the unaligned checkpoint and its parallelism "
                "changes");
  }

  CheckPendingSinkFiles(ctx, s);

  for (const auto& op : graph->operators()) {
    Location loc;
    loc.operator_id = Hex(op.operator_id());
    loc.operator_name = SpecOperatorLabel(op);
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
