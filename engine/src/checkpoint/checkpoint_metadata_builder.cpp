// BuildCheckpointMetadata: merges per-subtask acknowledgements into one CheckpointMetadata.
#include "checkpoint/checkpoint_metadata_builder.h"

#include <algorithm>
#include <map>
#include <string>

#include "ckpt/engine/state/keyed_handle_files.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::engine::checkpoint_internal {

namespace {

std::string Names(const std::vector<pb::StateDescriptor>& states) {
  std::string s = "[";
  for (size_t i = 0; i < states.size(); ++i) s += (i ? ", " : "") + states[i].name();
  return s + "]";
}

// The operator's state list: the longest subtask list, of which all others must be prefixes.
// A type a subtask could not know yet is taken from one that does: a keyed state's key type (and
// a timer state's namespace type) is learnt from the first key (timer) a subtask sees, and a
// subtask that had none before the barrier records the placeholder BYTES; had its descriptor
// been taken, readers would decode every subtask's keys as raw bytes. A subtask that held no
// timer records its timers' namespace as VOID, which another subtask's namespace type replaces.
bool IsTypePlaceholder(const pb::TypeDescriptor& t, bool void_too) {
  return t.kind() == pb::TypeDescriptor::KIND_UNSPECIFIED || t.kind() == pb::TypeDescriptor::BYTES ||
         (void_too && t.kind() == pb::TypeDescriptor::VOID);
}

void TakeLearntType(const pb::TypeDescriptor& known, pb::TypeDescriptor* merged,
                    bool void_too = false) {
  if (IsTypePlaceholder(*merged, void_too) && !IsTypePlaceholder(known, void_too)) *merged = known;
}

base::Result<std::vector<pb::StateDescriptor>> MergeStates(
    const pb::OperatorInfo& op, const std::vector<const Ack*>& acks) {
  const Ack* longest = nullptr;
  for (const Ack* a : acks) {
    if (longest == nullptr || a->state.states.size() > longest->state.states.size()) longest = a;
  }
  if (longest == nullptr) return std::vector<pb::StateDescriptor>{};
  for (const Ack* a : acks) {
    for (size_t i = 0; i < a->state.states.size(); ++i) {
      const auto& x = a->state.states[i];
      const auto& y = longest->state.states[i];
      if (x.name() != y.name() || x.kind() != y.kind()) {
        return base::Status::Internal(
            "operator '" + op.name() + "': subtask " + std::to_string(a->state.subtask_index) +
            " declared states " + Names(a->state.states) + " but subtask " +
            std::to_string(longest->state.subtask_index) + " declared " +
            Names(longest->state.states) +
            "; every subtask must register the same states in the same order");
      }
    }
  }
  // A subtask that never saw a key records its states with the placeholder key type bytes (and
  // timers without namespaces as void); a subtask that did records the real types. Every subtask
  // of an operator keys by the same type, so the recorded types are the ones some subtask
  // learned: otherwise the operator's keys would not decode under its own descriptors.
  std::vector<pb::StateDescriptor> merged = longest->state.states;
  for (size_t i = 0; i < merged.size(); ++i) {
    pb::StateDescriptor& d = merged[i];
    for (const Ack* a : acks) {
      if (i >= a->state.states.size()) continue;
      const pb::StateDescriptor& known = a->state.states[i];
      TakeLearntType(known.key_type(), d.mutable_key_type());
      if (d.kind() == pb::STATE_TIMERS) {
        TakeLearntType(known.namespace_type(), d.mutable_namespace_type(), /*void_too=*/true);
      }
    }
  }
  return merged;
}

bool HasAnyState(const pb::SubtaskState& s) {
  return s.keyed_state_size() > 0 || s.operator_state_size() > 0 || s.committables_size() > 0 ||
         s.input_channel_state_size() > 0 || s.output_channel_state_size() > 0;
}

}  // namespace

base::Result<pb::CheckpointMetadata> BuildCheckpointMetadata(const MetadataInputs& in) {
  const CheckpointCoordinatorOptions& o = *in.options;
  const CheckpointOptions& c = *in.checkpoint;
  pb::CheckpointMetadata md;
  md.set_format_version(format::kFormatVersion);
  md.set_engine_name(o.engine_name);
  md.set_engine_version(o.engine_version);
  md.set_job_id(o.job_id);
  md.set_job_name(o.job_name);
  md.set_checkpoint_id(c.checkpoint_id);
  md.set_kind(c.kind);
  if (c.is_savepoint()) {
    md.set_savepoint_format(c.savepoint_format == pb::SAVEPOINT_FORMAT_UNSPECIFIED
                                ? pb::CANONICAL
                                : c.savepoint_format);
    md.set_post_action(c.post_action == pb::SAVEPOINT_POST_ACTION_UNSPECIFIED
                           ? pb::POST_ACTION_NONE
                           : c.post_action);
  } else {
    md.set_retention(o.retention);
  }
  // FULL unless it re-references shared files of an earlier checkpoint (set below).
  md.set_checkpoint_type(pb::FULL);
  md.set_mode(c.mode);
  if (o.restored_from) *md.mutable_restored_from() = *o.restored_from;
  md.set_trigger_timestamp(c.trigger_timestamp_ms);
  md.set_completion_timestamp(in.completion_ms);
  *md.mutable_job_graph() = o.job_graph;
  for (const auto& [k, v] : o.properties) (*md.mutable_properties())[k] = v;

  pb::CheckpointMetrics* m = md.mutable_metrics();
  m->set_trigger_timestamp(c.trigger_timestamp_ms);
  m->set_end_to_end_duration(in.completion_ms - c.trigger_timestamp_ms);
  m->set_num_acknowledged_subtasks(static_cast<uint32_t>(in.acks->size()));
  uint32_t num_subtasks = 0;
  int64_t latest_ack = c.trigger_timestamp_ms;
  std::map<std::string, uint32_t> file_by_path;

  for (const pb::OperatorInfo& op : o.job_graph.operators()) {
    num_subtasks += op.parallelism();
    CKPT_ASSIGN_OR_RETURN(format::OperatorId id, format::OperatorId::FromBytes(op.operator_id()));
    std::vector<const Ack*> acks;
    for (auto it = in.acks->lower_bound({id, 0}); it != in.acks->end() && it->first.first == id;
         ++it) {
      acks.push_back(&it->second);
    }
    for (const Ack* a : acks) {
      const pb::SubtaskMetrics& sm = a->metrics;
      latest_ack = std::max(latest_ack, sm.ack_timestamp());
      m->set_state_size(m->state_size() + a->state.state_size_bytes);
      m->set_checkpointed_size(m->checkpointed_size() + a->state.checkpointed_size_bytes);
      m->set_processed_data(m->processed_data() + sm.processed_data());
      m->set_persisted_data(m->persisted_data() + sm.persisted_data());
      if (sm.unaligned_checkpoint()) m->set_is_unaligned(true);
    }
    CKPT_ASSIGN_OR_RETURN(std::vector<pb::StateDescriptor> states, MergeStates(op, acks));
    const CoordinatorSnapshot* coordinator = nullptr;
    for (const auto& cs : *in.coordinators) {
      if (cs.operator_id == id) coordinator = &cs;
    }
    bool any = !states.empty() || coordinator != nullptr;
    for (const Ack* a : acks) any = any || HasAnyState(a->state.subtask);
    if (!any) continue;

    pb::OperatorState* os = md.add_operators();
    os->set_operator_id(op.operator_id());
    os->set_parallelism(op.parallelism());
    os->set_max_parallelism(op.max_parallelism());
    for (auto& d : states) *os->add_states() = std::move(d);
    if (coordinator != nullptr) {
      // Coordinator states are small (split assignments); kept inline.
      os->mutable_coordinator_state()->set_inline_data(coordinator->data);
      os->mutable_coordinator_state()->set_size_bytes(coordinator->data.size());
    }
    for (const Ack* a : acks) {
      // A file several subtasks share (a channel-state file) is listed once.
      std::vector<uint32_t> index_of;
      for (const auto& f : a->state.files) {
        auto known = file_by_path.find(f.path());
        if (known != file_by_path.end()) {
          index_of.push_back(known->second);
          continue;
        }
        const uint32_t index = static_cast<uint32_t>(md.files_size());
        file_by_path.emplace(f.path(), index);
        index_of.push_back(index);
        *md.add_files() = f;
      }
      auto rebase = [&](uint32_t local) -> base::Result<uint32_t> {
        if (local >= index_of.size()) {
          return base::Status::Internal("operator '" + op.name() + "' subtask " +
                                        std::to_string(a->state.subtask_index) +
                                        ": handle refers to file " + std::to_string(local) +
                                        " of " + std::to_string(index_of.size()));
        }
        return index_of[local];
      };
      pb::SubtaskState* ss = os->add_subtasks();
      *ss = a->state.subtask;
      ss->set_subtask_index(a->state.subtask_index);
      for (auto& k : *ss->mutable_keyed_state()) {
        if (k.has_key_groups()) {
          CKPT_ASSIGN_OR_RETURN(uint32_t fi, rebase(k.key_groups().file_index()));
          k.mutable_key_groups()->set_file_index(fi);
        }
        if (k.has_rocksdb()) {
          for (auto& f : *k.mutable_rocksdb()->mutable_sst_files()) {
            CKPT_ASSIGN_OR_RETURN(uint32_t fi, rebase(f.file_index()));
            f.set_file_index(fi);
          }
          for (auto& f : *k.mutable_rocksdb()->mutable_meta_files()) {
            CKPT_ASSIGN_OR_RETURN(uint32_t fi, rebase(f.file_index()));
            f.set_file_index(fi);
          }
        }
        if (k.has_changelog()) CKPT_RETURN_IF_ERROR(RebaseKeyedHandleFiles(&k, rebase));
      }
      for (auto& h : *ss->mutable_operator_state()) {
        CKPT_ASSIGN_OR_RETURN(uint32_t fi, rebase(h.file_index()));
        h.set_file_index(fi);
      }
      for (auto& h : *ss->mutable_input_channel_state()) {
        for (auto& sl : *h.mutable_buffers()) {
          CKPT_ASSIGN_OR_RETURN(uint32_t fi, rebase(sl.file_index()));
          sl.set_file_index(fi);
        }
      }
      for (auto& h : *ss->mutable_output_channel_state()) {
        for (auto& sl : *h.mutable_buffers()) {
          CKPT_ASSIGN_OR_RETURN(uint32_t fi, rebase(sl.file_index()));
          sl.set_file_index(fi);
        }
      }
      pb::SubtaskMetrics sm = a->metrics;
      if (sm.state_size() == 0) sm.set_state_size(a->state.state_size_bytes);
      if (sm.checkpointed_size() == 0) sm.set_checkpointed_size(a->state.checkpointed_size_bytes);
      *ss->mutable_metrics() = sm;
    }
  }
  m->set_num_subtasks(num_subtasks);
  m->set_latest_ack_timestamp(latest_ack);
  // What the snapshot references decides its type: a file in shared/ that an earlier checkpoint
  // uploaded makes it INCREMENTAL (RocksDB incremental; the first of a chain uploads all it
  // references and is FULL).
  for (const pb::FileEntry& f : md.files()) {
    if (f.scope() == pb::SHARED && f.created_by_checkpoint_id() != md.checkpoint_id()) {
      md.set_checkpoint_type(pb::INCREMENTAL);
      break;
    }
  }
  return md;
}

}  // namespace ckpt::engine::checkpoint_internal
