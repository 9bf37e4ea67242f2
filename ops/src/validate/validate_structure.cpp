// validate: rules over the metadata alone — subtask indices, parallelism, key-group coverage,
// savepoint self-containment, file references and their use.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "ckpt/format/key_groups.h"
#include "ckpt/format/operator_id.h"
#include "model/snapshot_raw.h"
#include "validate/validate_internal.h"

namespace ckpt::ops::internal {
namespace {

std::string RangeText(uint32_t a, uint32_t b) {
  // Built by appending: GCC 12 -O3 reports a false -Wrestrict on the operator+ chain.
  std::string s = "[";
  s += std::to_string(a);
  s += ", ";
  s += std::to_string(b);
  s += "]";
  return s;
}

bool HasKeyedState(const OperatorInfo& op) {
  // Every operator behind a HASH edge declares its timer queues, whether it ever sets a timer
  // or not (a stateless one never does): declared timers alone are no state to cover. A subtask
  // that has timers writes a handle, which the loop below counts.
  for (const auto& s : op.states) {
    if (s.keyed && s.kind != StateKind::kTimers) return true;
  }
  // A handle with no kind (the engine writes one per subtask of a stateless operator behind a
  // HASH edge) holds nothing and covers no key group: alone it is not keyed state to cover.
  for (const auto& st : op.subtasks) {
    for (const auto& h : st.keyed) {
      if (h.kind != KeyedHandleKind::kEmpty) return true;
    }
  }
  return false;
}

void CheckParallelism(ValidateContext& ctx, const OperatorInfo& op) {
  ctx.Checked("CKPT-T003");
  ctx.Checked("CKPT-T004");
  if (!op.has_state) return;
  const Location loc = OperatorLocation(op);
  if (!format::CheckParallelism(op.parallelism, op.max_parallelism).ok()) {
    ctx.Add("CKPT-T003", loc,
            "parallelism " + std::to_string(op.parallelism) + " with max parallelism " +
                std::to_string(op.max_parallelism) + " is invalid");
  }
  if (!op.in_job_graph) {
    ctx.Add("CKPT-T004", loc, "operator " + op.id_hex + " has state but is not in the job graph");
  }
}

void CheckStateVsGraph(ValidateContext& ctx, const Snapshot& s) {
  // The model takes parallelism from the job graph; compare with the OperatorState entries.
  const auto& md = RawMetadata(s);
  for (const auto& os : md.operators()) {
    for (const auto& op : s.operators) {
      if (!op.in_job_graph) continue;
      if (format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex() !=
          op.id_hex) {
        continue;
      }
      if (os.parallelism() != op.parallelism || os.max_parallelism() != op.max_parallelism) {
        ctx.Add("CKPT-T003", OperatorLocation(op),
                "state says parallelism " + std::to_string(os.parallelism()) + "/max " +
                    std::to_string(os.max_parallelism()) + ", the job graph " +
                    std::to_string(op.parallelism) + "/max " + std::to_string(op.max_parallelism));
      }
    }
  }
}

void CheckSubtasks(ValidateContext& ctx, const OperatorInfo& op) {
  ctx.Checked("CKPT-T001");
  ctx.Checked("CKPT-T002");
  std::set<uint32_t> seen;
  for (const auto& st : op.subtasks) {
    Location loc = OperatorLocation(op);
    loc.subtask = st.index;
    if (st.index >= op.parallelism) {
      ctx.Add("CKPT-T001", loc,
              "subtask " + std::to_string(st.index) + " of an operator with parallelism " +
                  std::to_string(op.parallelism));
    }
    if (!seen.insert(st.index).second) {
      ctx.Add("CKPT-T002", loc, "subtask " + std::to_string(st.index) + " appears twice");
    }
  }
}

void CheckKeyGroups(ValidateContext& ctx, const OperatorInfo& op) {
  for (const char* r : {"CKPT-K001", "CKPT-K002", "CKPT-K003", "CKPT-K004"}) ctx.Checked(r);
  if (!HasKeyedState(op)) return;
  // An invalid max parallelism is CKPT-T003. Coverage is checked only for a valid one: the
  // per-group table below is sized by it (at most 32768 entries), never by a hostile value
  // from disk (2^32-1 would ask for 32 GiB).
  if (op.max_parallelism == 0 || op.max_parallelism > format::kUpperBoundMaxParallelism) return;
  const uint32_t max_p = op.max_parallelism;
  // owner[g] = subtask covering key group g, or -1.
  std::vector<int64_t> owner(max_p, -1);
  std::map<uint32_t, uint32_t> overlap_first;  // first overlapping group per subtask pair report
  for (const auto& st : op.subtasks) {
    Location loc = OperatorLocation(op);
    loc.subtask = st.index;
    for (const auto& h : st.keyed) {
      if (h.kind == KeyedHandleKind::kEmpty) continue;
      if (h.key_group_start > h.key_group_end || h.key_group_end >= max_p) {
        loc.key_group = h.key_group_start;
        ctx.Add("CKPT-K004", loc,
                "key-group range " + RangeText(h.key_group_start, h.key_group_end) +
                    " is not inside [0, " + std::to_string(max_p) + ")");
        continue;
      }
      if (st.index < op.parallelism && op.parallelism <= max_p) {
        const format::KeyGroupRange want = format::RangeForSubtask(max_p, op.parallelism, st.index);
        if (want.start != h.key_group_start || want.end != h.key_group_end) {
          Location l = loc;
          l.key_group = h.key_group_start;
          ctx.Add("CKPT-K003", l,
                  "subtask " + std::to_string(st.index) + " holds " +
                      RangeText(h.key_group_start, h.key_group_end) + ", at parallelism " +
                      std::to_string(op.parallelism) + " it owns " +
                      RangeText(want.start, want.end));
        }
      }
      std::optional<uint32_t> first_overlap;
      uint32_t overlaps = 0;
      for (uint32_t g = h.key_group_start; g <= h.key_group_end; ++g) {
        if (owner[g] >= 0 && owner[g] != st.index) {
          if (!first_overlap) first_overlap = g;
          ++overlaps;
        } else {
          owner[g] = st.index;
        }
      }
      if (first_overlap) {
        Location l = loc;
        l.key_group = *first_overlap;
        ctx.Add("CKPT-K002", l,
                std::to_string(overlaps) + " key group(s) from " +
                    std::to_string(*first_overlap) + " are also covered by subtask " +
                    std::to_string(owner[*first_overlap]));
      }
    }
  }
  // A subtask the snapshot records with no keyed handle had empty keyed state (the engine writes
  // no handle for a subtask that never saw a key, and none for a stateless operator whose only
  // state is in-flight data): the key groups it owns at this parallelism are empty, not missing,
  // and a restore starts them empty. A subtask absent from the snapshot, or one whose handles
  // leave part of its range uncovered, still leaves a gap.
  if (op.parallelism > 0 && op.parallelism <= max_p) {
    for (const auto& st : op.subtasks) {
      if (st.index >= op.parallelism) continue;
      const bool any_handle = std::any_of(st.keyed.begin(), st.keyed.end(), [](const auto& h) {
        return h.kind != KeyedHandleKind::kEmpty;
      });
      if (any_handle) continue;
      const format::KeyGroupRange own = format::RangeForSubtask(max_p, op.parallelism, st.index);
      for (uint32_t g = own.start; g <= own.end && g < max_p; ++g) {
        if (owner[g] < 0) owner[g] = st.index;
      }
    }
  }
  // Report gaps as ranges.
  for (uint32_t g = 0; g < max_p;) {
    if (owner[g] >= 0) {
      ++g;
      continue;
    }
    uint32_t end = g;
    while (end + 1 < max_p && owner[end + 1] < 0) ++end;
    Location l = OperatorLocation(op);
    l.key_group = g;
    ctx.Add("CKPT-K001", l,
            "key groups " + RangeText(g, end) + " of [0, " + std::to_string(max_p) +
                ") are covered by no subtask");
    g = end + 1;
  }
}

// Which files each kind of handle may reference.
bool KindFits(FileKind file_kind, FileKind wanted) {
  return file_kind == wanted || file_kind == FileKind::kUnspecified;
}

void CheckFileUse(ValidateContext& ctx, const Snapshot& s) {
  ctx.Checked("CKPT-F008");
  ctx.Checked("CKPT-F009");
  const auto& md = RawMetadata(s);
  std::vector<bool> used(s.files.size(), false);
  auto use = [&](uint32_t index, FileKind wanted, const Location& loc, const char* what) {
    if (index >= s.files.size()) return;  // the format reader refuses these
    used[index] = true;
    const SnapshotFile& f = s.files[index];
    if (!KindFits(f.kind, wanted)) {
      Location l = loc;
      l.file = PathFromSnapshot(f);
      ctx.Add("CKPT-F009", l,
              std::string(what) + " references a " + std::string(FileKindName(f.kind)) +
                  " file; expected " + std::string(FileKindName(wanted)));
    }
  };
  std::function<void(const pb::KeyedStateHandle&, const Location&)> keyed =
      [&](const pb::KeyedStateHandle& h, const Location& loc) {
        if (h.has_key_groups()) use(h.key_groups().file_index(), FileKind::kKeyedState, loc, "a key-groups handle");
        if (h.has_rocksdb()) {
          for (const auto& f : h.rocksdb().sst_files()) use(f.file_index(), FileKind::kRocksDbSst, loc, "a RocksDB handle");
          for (const auto& f : h.rocksdb().meta_files()) use(f.file_index(), FileKind::kRocksDbMeta, loc, "a RocksDB handle");
        }
        if (h.has_changelog()) {
          for (const auto& m : h.changelog().materialized()) keyed(m, loc);
          for (const auto& seg : h.changelog().segments()) {
            use(seg.slice().file_index(), FileKind::kChangelog, loc, "a changelog segment");
          }
        }
      };
  for (size_t oi = 0; oi < static_cast<size_t>(md.operators_size()); ++oi) {
    const auto& os = md.operators(static_cast<int>(oi));
    Location base_loc;
    base_loc.operator_id =
        format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex();
    for (const auto& op : s.operators) {
      if (op.id_hex == base_loc.operator_id) base_loc = OperatorLocation(op);
    }
    if (os.has_coordinator_state() &&
        os.coordinator_state().location_case() == pb::CoordinatorState::kFileIndex) {
      use(os.coordinator_state().file_index(), FileKind::kCoordinatorState, base_loc,
          "the coordinator state");
    }
    for (const auto& st : os.subtasks()) {
      Location loc = base_loc;
      loc.subtask = st.subtask_index();
      for (const auto& h : st.keyed_state()) keyed(h, loc);
      for (const auto& h : st.operator_state()) {
        use(h.file_index(), FileKind::kOperatorState, loc, "an operator-state handle");
      }
      for (const auto& c : st.input_channel_state()) {
        for (const auto& b : c.buffers()) use(b.file_index(), FileKind::kChannelState, loc, "input-channel state");
      }
      for (const auto& c : st.output_channel_state()) {
        for (const auto& b : c.buffers()) use(b.file_index(), FileKind::kChannelState, loc, "output-channel state");
      }
    }
  }
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      ctx.Add("CKPT-F008", FileLocation(s.files[i]),
              "file #" + std::to_string(i) + " is in the file table but no handle uses it");
    }
  }
}

void CheckReferences(ValidateContext& ctx, const Snapshot& s) {
  ctx.Checked("CKPT-F004");
  ctx.Checked("CKPT-F007");
  ctx.Checked("CKPT-P001");
  for (const auto& f : s.files) {
    if (!f.resolve_error.empty()) {
      Location l;
      l.file = f.path;
      // A link on the way to the file is CKPT-F011 (validate_files), like a link in its place.
      ctx.Add(f.link_in_path ? "CKPT-F011" : "CKPT-F004", l,
              "file #" + std::to_string(f.index) + ": " + f.resolve_error);
    }
    if (f.scope == FileScope::kShared && f.created_by_checkpoint_id > s.checkpoint_id) {
      ctx.Add("CKPT-F007", FileLocation(f),
              "created by checkpoint " + std::to_string(f.created_by_checkpoint_id) +
                  ", but this snapshot is checkpoint " + std::to_string(s.checkpoint_id));
    }
    if (s.kind == SnapshotKind::kSavepoint && f.scope != FileScope::kExclusive) {
      ctx.Add("CKPT-P001", FileLocation(f),
              "savepoint references a " + std::string(FileScopeName(f.scope)) +
                  " file; savepoints must hold only files inside their directory");
    }
  }
}

}  // namespace

void CheckStructure(ValidateContext& ctx, const Snapshot& s) {
  CheckStateVsGraph(ctx, s);
  for (const auto& op : s.operators) {
    CheckParallelism(ctx, op);
    CheckSubtasks(ctx, op);
    CheckKeyGroups(ctx, op);
  }
  CheckReferences(ctx, s);
  CheckFileUse(ctx, s);
}

}  // namespace ckpt::ops::internal
