// Restore of changelog handles (FORMAT.md "Changelog records") by any backend: the materialized
// handles through the backend's own Restore, then the changes of the log segments of the owned
// key groups (format::ReadChangelogChanges) applied in sequence order through the per-state
// internals (no change is logged again).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/engine/state/internal_keyed_state.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/format/changelog_replay.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"
#include "state/canonical_snapshot.h"

namespace ckpt::engine {

using state_internal::BackendCore;

bool KeyedStateBackend::HasChangelogHandles(const KeyedRestoreSource& source) {
  if (source.operator_state == nullptr) return false;
  for (const pb::SubtaskState& st : source.operator_state->subtasks()) {
    for (const pb::KeyedStateHandle& h : st.keyed_state()) {
      if (h.has_changelog()) return true;
    }
  }
  return false;
}

namespace {

// The changes of `handle`'s segments that fall in `mine`, in sequence order; each container is
// checked against its file entry before it is read.
base::Result<std::vector<format::ChangelogChange>> ReadOwnedChanges(
    const KeyedRestoreSource& source, const pb::ChangelogStateHandle& handle,
    format::KeyGroupRange mine) {
  const pb::CheckpointMetadata& md = *source.metadata;
  auto open_segment = [&](const pb::ChangelogSegment& seg)
      -> base::Result<std::unique_ptr<format::StateFileReader>> {
    if (seg.slice().length() == 0) return std::unique_ptr<format::StateFileReader>();
    return state_internal::OpenVerifiedStateFile(*source.fs, source.snapshot_dir, md,
                                                 seg.slice().file_index(), pb::CHANGELOG);
  };
  // Rescaling: records of another subtask's key groups are left out.
  return format::ReadChangelogChanges(
      handle, static_cast<uint32_t>(source.operator_state->states_size()), mine, open_segment);
}

}  // namespace

base::Status KeyedStateBackend::RestoreWithChangelog(const KeyedRestoreSource& source) {
  // 1. The materialized bases (and any plain handle, e.g. changelog switched on across the
  //    restore of an old snapshot) through this backend's own restore.
  pb::OperatorState bases = *source.operator_state;
  std::vector<const pb::ChangelogStateHandle*> logs;
  for (pb::SubtaskState& st : *bases.mutable_subtasks()) {
    google::protobuf::RepeatedPtrField<pb::KeyedStateHandle> plain;
    for (const pb::KeyedStateHandle& h : st.keyed_state()) {
      if (!h.has_changelog()) {
        *plain.Add() = h;
        continue;
      }
      for (const pb::KeyedStateHandle& m : h.changelog().materialized()) {
        if (m.has_changelog()) {
          return base::Status::Corruption(core_->owner +
                                          ": a changelog handle nests another changelog handle");
        }
        *plain.Add() = m;
      }
    }
    st.mutable_keyed_state()->Swap(&plain);
  }
  for (const pb::SubtaskState& st : source.operator_state->subtasks()) {
    for (const pb::KeyedStateHandle& h : st.keyed_state()) {
      if (h.has_changelog()) logs.push_back(&h.changelog());
    }
  }
  KeyedRestoreSource base_source = source;
  base_source.operator_state = &bases;
  CKPT_RETURN_IF_ERROR(Restore(base_source));

  // 2. The log tails, filtered to the owned key groups, in sequence order per handle (handles of
  //    different old subtasks cover disjoint key groups, so their order does not matter).
  CKPT_ASSIGN_OR_RETURN(std::vector<int64_t> local_of,
                        state_internal::DeclareSnapshotStates(this, source));
  BackendCore& c = *core_;
  for (const pb::ChangelogStateHandle* log : logs) {
    if (log->key_group_end() < c.range.start || log->key_group_start() > c.range.end) continue;
    CKPT_ASSIGN_OR_RETURN(std::vector<format::ChangelogChange> changes,
                          ReadOwnedChanges(source, *log, c.range));
    for (const format::ChangelogChange& ch : changes) {
      const int64_t local = local_of[ch.state_index];
      const pb::StateDescriptor& sd = source.operator_state->states(static_cast<int>(ch.state_index));
      const std::string where = core_->owner + ": replaying the changelog of state '" + sd.name() +
                                "' (sequence " + std::to_string(ch.sequence) + ")";
      if (local < 0) return base::Status::Corruption(where + ": not a keyed state");
      const uint32_t id = static_cast<uint32_t>(local);
      state_internal::KeyedStateInfo& info = c.states[id];
      const pb::StateDescriptor& d = info.descriptor;
      if (d.kind() == pb::STATE_TIMERS) {
        // Timers: put = registered, delete/clear = removed.
        format::KeyedRecord r;
        r.state_index = id;
        r.key = ch.key;
        r.ns = ch.ns;
        r.user_key = ch.user_key;
        if (ch.op == format::ChangeOp::kPut) {
          CKPT_RETURN_IF_ERROR(RestoreRecord(id, ch.key_group, r).WithContext(where));
        } else {
          base::Result<format::Value> ts =
              format::DecodeValueExact(format::types::Int64(), ch.user_key);
          if (!ts.ok()) return ts.status().WithContext(where + " (timestamp)");
          state_internal::TimerEntry probe;
          probe.timestamp = std::get<int64_t>(ts->v);
          probe.key = ch.key;
          probe.ns = ch.ns;
          c.Writable(*info.timers)->erase(probe);
        }
        continue;
      }
      const pb::TypeDescriptor& key_type =
          d.key_type().kind() != pb::TypeDescriptor::KIND_UNSPECIFIED ? d.key_type() : c.key_type;
      base::Result<format::Value> key = format::DecodeValueExact(key_type, ch.key);
      if (!key.ok()) return key.status().WithContext(where + " (key)");
      SetCurrentKey(*key, ch.key, ch.key_group);
      SetCurrentNamespace(ch.ns);
      CKPT_ASSIGN_OR_RETURN(state_internal::InternalKeyedState * s, Internal(id));
      auto decode = [&](const pb::TypeDescriptor& t, const std::string& bytes,
                        const char* what) -> base::Result<format::Value> {
        base::Result<format::Value> v = format::DecodeValueExact(t, bytes);
        if (!v.ok()) return v.status().WithContext(where + " (" + what + ")");
        return v;
      };
      switch (ch.op) {
        case format::ChangeOp::kPut:
          if (d.kind() == pb::STATE_MAP) {
            CKPT_ASSIGN_OR_RETURN(format::Value uk, decode(d.user_key_type(), ch.user_key, "user key"));
            CKPT_ASSIGN_OR_RETURN(format::Value v, decode(d.value_type(), ch.value, "value"));
            CKPT_RETURN_IF_ERROR(s->MapPut(uk, std::move(v)).WithContext(where));
          } else {
            const pb::TypeDescriptor& t = d.kind() == pb::STATE_LIST ? info.list_type : d.value_type();
            CKPT_ASSIGN_OR_RETURN(format::Value v, decode(t, ch.value, "value"));
            CKPT_RETURN_IF_ERROR(s->Put(std::move(v)).WithContext(where));
          }
          break;
        case format::ChangeOp::kDelete:
          if (d.kind() == pb::STATE_MAP && !ch.user_key.empty()) {
            CKPT_ASSIGN_OR_RETURN(format::Value uk, decode(d.user_key_type(), ch.user_key, "user key"));
            CKPT_RETURN_IF_ERROR(s->MapRemove(uk).WithContext(where));
          } else {
            CKPT_RETURN_IF_ERROR(s->Clear().WithContext(where));
          }
          break;
        case format::ChangeOp::kAppend: {
          if (d.kind() != pb::STATE_LIST) {
            return base::Status::Corruption(where + ": append to a " +
                                            pb::StateKind_Name(d.kind()) + " state");
          }
          CKPT_ASSIGN_OR_RETURN(format::Value v, decode(d.value_type(), ch.value, "element"));
          CKPT_RETURN_IF_ERROR(s->AddToList(std::move(v)).WithContext(where));
          break;
        }
        case format::ChangeOp::kClear:
          CKPT_RETURN_IF_ERROR(s->Clear().WithContext(where));
          break;
        default:
          return base::Status::Corruption(where + ": unknown change op " +
                                          std::to_string(static_cast<int>(ch.op)));
      }
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
