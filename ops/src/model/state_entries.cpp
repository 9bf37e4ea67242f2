#include "ckpt/ops/state_entries.h"

#include "formats/snapshot_format.h"

namespace ckpt::ops {
namespace {

// The operator and its selected keyed states: `state` itself, or every keyed state when `state`
// is empty. NotFound when the operator or `state` is not declared.
struct KeyedStateSelection {
  const OperatorInfo* op = nullptr;
  int keyed_selected = 0;
  int keyed_declared = 0;
  bool one_entry_per_record = true;
  std::string key_type;  // of the first selected keyed state
};

base::Result<KeyedStateSelection> SelectKeyedStates(const Snapshot& snapshot,
                                                    const std::string& operator_ref,
                                                    const std::string& state) {
  KeyedStateSelection sel;
  CKPT_ASSIGN_OR_RETURN(sel.op, snapshot.FindOperator(operator_ref));
  bool found = state.empty();
  for (const StateInfo& s : sel.op->states) {
    if (!state.empty() && s.name == state) found = true;
    if (!s.keyed) continue;
    ++sel.keyed_declared;
    if (!state.empty() && s.name != state) continue;
    ++sel.keyed_selected;
    if (sel.key_type.empty()) sel.key_type = s.key_type;
    if (!HasExactEntryCount(s.kind)) sel.one_entry_per_record = false;
  }
  if (!found) {
    return base::Status::NotFound("operator " + sel.op->id_hex + " declares no state '" + state +
                                  "'");
  }
  return sel;
}

}  // namespace

bool HasExactEntryCount(StateKind kind) {
  return kind == StateKind::kValue || kind == StateKind::kMap || kind == StateKind::kReducing ||
         kind == StateKind::kAggregating;
}

base::Result<StateEntryCount> CountStateEntries(const Snapshot& snapshot,
                                                const std::string& operator_ref,
                                                const std::string& state) {
  CKPT_ASSIGN_OR_RETURN(KeyedStateSelection sel, SelectKeyedStates(snapshot, operator_ref, state));
  const OperatorInfo* op = sel.op;
  StateEntryCount count;
  count.keyed = sel.keyed_selected > 0;
  if (!count.keyed) return count;
  std::string reason;
  for (const SubtaskInfo& st : op->subtasks) {
    for (const KeyedHandle& h : st.keyed) {
      if (h.kind == KeyedHandleKind::kEmpty) continue;
      if (h.kind != KeyedHandleKind::kKeyGroups && reason.empty()) {
        reason = "subtask " + std::to_string(st.index) + " has a " +
                 std::string(KeyedHandleKindName(h.kind)) + " handle (no per-key-group counts)";
      }
      // Inclusive range; the loop stops after UINT32_MAX instead of wrapping.
      for (uint32_t g = h.key_group_start; g <= h.key_group_end; ++g) {
        const uint64_t i = uint64_t{g} - h.key_group_start;
        const bool counted =
            h.kind == KeyedHandleKind::kKeyGroups && i < h.key_group_records.size();
        if (!counted && reason.empty()) {
          reason = "subtask " + std::to_string(st.index) + " records no count for key group " +
                   std::to_string(g);
        }
        if (!counted || h.key_group_records[i] != 0) {
          count.key_group_entries[g] += counted ? h.key_group_records[i] : 0;
        }
        if (g == UINT32_MAX) break;
      }
    }
  }
  if (reason.empty() && sel.keyed_declared != 1) {
    reason = "operator " + op->id_hex + " declares " + std::to_string(sel.keyed_declared) +
             " keyed states in one container (records of all of them are counted together)";
  }
  if (reason.empty() && !sel.one_entry_per_record) {
    reason = "list state and timers are not one entry per record";
  }
  count.exact = reason.empty();
  count.not_exact_reason = std::move(reason);
  for (const auto& [group, records] : count.key_group_entries) count.entries += records;
  return count;
}

base::Result<KeyFilterSupport> KeyFilterSupportOf(const Snapshot& snapshot,
                                                  const std::string& operator_ref,
                                                  const std::string& state) {
  CKPT_ASSIGN_OR_RETURN(KeyedStateSelection sel, SelectKeyedStates(snapshot, operator_ref, state));
  KeyFilterSupport support;
  support.key_type = sel.key_type;
  support.exact_key = sel.keyed_selected > 0;
  support.key_group = sel.keyed_selected > 0;
  if (!support.exact_key) {
    support.reason = state.empty() ? "operator " + sel.op->id_hex + " has no keyed state"
                                   : "state '" + state + "' is not keyed state";
  }
  return support;
}

base::Result<StateValueFieldList> StateValueFields(base::Fs& fs, const Snapshot& snapshot,
                                                   const std::string& operator_ref,
                                                   const std::string& state) {
  CKPT_ASSIGN_OR_RETURN(const OperatorInfo* op, snapshot.FindOperator(operator_ref));
  const StateInfo* selected = nullptr;
  for (const StateInfo& s : op->states) {
    if (state.empty() ? op->states.size() == 1 : s.name == state) selected = &s;
  }
  if (selected == nullptr) {
    if (state.empty()) return StateValueFieldList{};
    return base::Status::NotFound("operator " + op->id_hex + " declares no state '" + state +
                                  "'");
  }
  return internal::FormatOf(snapshot).ValueFields(fs, snapshot, *op, *selected);
}

}  // namespace ckpt::ops
