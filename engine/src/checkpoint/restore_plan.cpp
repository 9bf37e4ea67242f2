// RestorePlan::Create: reading `_metadata` and mapping its state onto the new job graph.
#include "ckpt/engine/checkpoint/restore_plan.h"

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/state_file_reader.h"

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

// A RocksDB handle, directly or as the materialized base of a changelog handle.
bool IsNativeRocksDbHandle(const pb::KeyedStateHandle& h) {
  if (h.has_rocksdb()) return true;
  if (!h.has_changelog()) return false;
  for (const pb::KeyedStateHandle& m : h.changelog().materialized()) {
    if (IsNativeRocksDbHandle(m)) return true;
  }
  return false;
}

bool HasNativeRocksDbState(const pb::OperatorState& op) {
  for (const auto& s : op.subtasks()) {
    for (const pb::KeyedStateHandle& h : s.keyed_state()) {
      if (IsNativeRocksDbHandle(h)) return true;
    }
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

namespace {

// The parallelism operator `id` ran at when the checkpoint `md` was taken: its state's, else the
// recorded job graph's, else (neither recorded) `now`'s.
uint32_t ParallelismThen(const pb::CheckpointMetadata& md,
                         const std::map<std::string, const pb::OperatorState*>& old_ops,
                         const std::string& id, const pb::OperatorInfo& now) {
  if (auto it = old_ops.find(id); it != old_ops.end()) return it->second->parallelism();
  for (const auto& op : md.job_graph().operators()) {
    if (op.operator_id() == id && op.parallelism() > 0) return op.parallelism();
  }
  return now.parallelism();
}

bool HasChannelState(const pb::OperatorState& os, bool output) {
  for (const auto& s : os.subtasks()) {
    if (output ? s.output_channel_state_size() > 0 : s.input_channel_state_size() > 0) return true;
  }
  return false;
}

// In-flight data of an unaligned checkpoint is restored into the same channels it was taken
// from, or redistributed over a HASH or REBALANCE edge whose parallelism changed; any other edge
// carrying some whose ends changed parallelism (FORWARD, RESCALE, BROADCAST), or whose
// partitioner changed, is refused, naming the edge and both parallelisms, rather than lose or
// misroute a record.
base::Status CheckChannelStateParallelism(const pb::CheckpointMetadata& md,
                                          const pb::JobGraph& graph, const std::string& dir) {
  std::map<std::string, const pb::OperatorState*> old_ops;
  for (const auto& os : md.operators()) old_ops[os.operator_id()] = &os;
  std::map<std::string, const pb::OperatorInfo*> new_ops;
  for (const auto& op : graph.operators()) new_ops[op.operator_id()] = &op;
  for (const pb::EdgeInfo& e : graph.edges()) {
    auto from_old = old_ops.find(e.source_operator_id());
    auto to_old = old_ops.find(e.target_operator_id());
    const bool in_flight = (from_old != old_ops.end() && HasChannelState(*from_old->second, true)) ||
                           (to_old != old_ops.end() && HasChannelState(*to_old->second, false));
    if (!in_flight) continue;
    const pb::OperatorInfo* from = new_ops.at(e.source_operator_id());
    const pb::OperatorInfo* to = new_ops.at(e.target_operator_id());
    // An operator without state of its own (a stateless producer whose output was all
    // delivered) has no OperatorState: its parallelism then is the recorded job graph's.
    const uint32_t from_was = ParallelismThen(md, old_ops, e.source_operator_id(), *from);
    const uint32_t to_was = ParallelismThen(md, old_ops, e.target_operator_id(), *to);
    const pb::EdgeInfo* was = nullptr;
    for (const pb::EdgeInfo& oe : md.job_graph().edges()) {
      if (oe.source_operator_id() == e.source_operator_id() &&
          oe.target_operator_id() == e.target_operator_id() &&
          oe.target_input() == e.target_input()) {
        was = &oe;
      }
    }
    if (was != nullptr && was->partitioning() != e.partitioning()) {
      return base::Status::InvalidArgument(
          "cannot restore " + dir + ": the edge '" + from->name() + "' -> '" + to->name() +
          "' carries in-flight data of an unaligned checkpoint written with partitioning " +
          pb::Partitioning_Name(was->partitioning()) + ", but the job now uses " +
          pb::Partitioning_Name(e.partitioning()) + " (parallelism " + std::to_string(from_was) +
          " -> " + std::to_string(to_was) + " then, " + std::to_string(from->parallelism()) +
          " -> " + std::to_string(to->parallelism()) + " now): in-flight records cannot be "
          "re-routed by another partitioner; restore from an aligned checkpoint or a savepoint");
    }
    if (from_was == from->parallelism() && to_was == to->parallelism()) continue;
    // HASH (by key group) and REBALANCE (whole runs, round-robin) in-flight data is
    // redistributed by the tasks (runtime/stream_task_restore.cpp).
    if (was != nullptr && (e.partitioning() == pb::HASH || e.partitioning() == pb::REBALANCE)) {
      continue;
    }
    return base::Status::InvalidArgument(
        "cannot restore " + dir + ": the edge '" + from->name() + "' -> '" + to->name() + "' (" +
        pb::Partitioning_Name(e.partitioning()) + ") carries in-flight data of an unaligned "
        "checkpoint written at parallelism " + std::to_string(from_was) + " -> " +
        std::to_string(to_was) + ", but the job now runs it at " +
        std::to_string(from->parallelism()) + " -> " + std::to_string(to->parallelism()) +
        "; only HASH and REBALANCE edges have their in-flight data redistributed: keep the "
        "parallelism, or restore from an aligned checkpoint or a savepoint");
  }
  return base::Status::OK();
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
    if (options.keyed_backend && *options.keyed_backend != StateBackendKind::kRocksDb &&
        HasNativeRocksDbState(os)) {
      return base::Status::InvalidArgument(
          "cannot restore " + loc.dir + ": operator '" + now.name() + "' (uid " +
          (now.uid().empty() ? "<none>" : "'" + now.uid() + "'") + ", id " + id.ToHex() +
          ") has keyed state in RocksDB's native format (a RocksDB checkpoint or native "
          "savepoint), which only the rocksdb state backend restores, but the job's state "
          "backend is " + std::string(StateBackendKindName(*options.keyed_backend)) +
          ": run it with --state-backend rocksdb, or restore from a canonical savepoint");
    }
    plan->operator_index_[id] = i;
  }
  if (!unmapped.empty() && !options.allow_non_restored_state) {
    std::string msg = "cannot restore " + loc.dir + ": the snapshot has state for " +
                      std::to_string(unmapped.size()) +
                      " operator(s) that the new job does not contain (";
    for (size_t i = 0; i < unmapped.size(); ++i) msg += (i == 0 ? "" : ", ") + unmapped[i];
    msg +=
        "); state is matched by operator ID (the hash of the uid, or of the topology without "
        "one): restore the removed operators or their uids, or pass "
        "--allow-non-restored-state (-n) to skip this state";
    return base::Status::InvalidArgument(msg);
  }
  if (unmapped.empty()) plan->non_restored_.clear();
  CKPT_RETURN_IF_ERROR(CheckChannelStateParallelism(md, new_graph, loc.dir));
  plan->metadata_ = std::move(md);
  return std::shared_ptr<const RestorePlan>(std::move(plan));
}

bool RestorePlan::IsRestoreRefusal(const base::Status& status) {
  return status.code() == base::StatusCode::kInvalidArgument &&
         status.message().rfind("cannot restore ", 0) == 0;
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

namespace ckpt::engine {

base::Result<std::vector<RestorePlan::RestoredChannel>> RestorePlan::ReadChannelState(
    const format::OperatorId& operator_id, uint32_t subtask) const {
  std::vector<RestoredChannel> out;
  auto it = operator_index_.find(operator_id);
  if (it == operator_index_.end()) return out;
  const pb::OperatorState& os = metadata_.operators(it->second);
  const pb::SubtaskState* ss = nullptr;
  for (const auto& s : os.subtasks()) {
    if (s.subtask_index() == subtask) ss = &s;
  }
  if (ss == nullptr) return out;
  std::map<uint32_t, std::unique_ptr<format::StateFileReader>> readers;
  auto read = [&](const google::protobuf::RepeatedPtrField<pb::FileSlice>& slices,
                  RestoredChannel* ch) -> base::Status {
    for (const pb::FileSlice& sl : slices) {
      if (sl.file_index() >= static_cast<uint32_t>(metadata_.files_size())) {
        return base::Status::Corruption("channel state of subtask " + std::to_string(subtask) +
                                        " refers to file " + std::to_string(sl.file_index()) +
                                        " of " + std::to_string(metadata_.files_size()));
      }
      std::unique_ptr<format::StateFileReader>& r = readers[sl.file_index()];
      if (r == nullptr) {
        CKPT_ASSIGN_OR_RETURN(std::string path,
                              format::ResolveFile(snapshot_dir_, metadata_.files(sl.file_index())));
        CKPT_ASSIGN_OR_RETURN(r, format::StateFileReader::Open(*fs_, path));
        CKPT_RETURN_IF_ERROR(r->VerifyChecksums());
      }
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::RecordIterator> iter,
                            r->NewIteratorAt(sl.offset(), 1));
      format::RecordRef rec;
      CKPT_ASSIGN_OR_RETURN(bool found, iter->Next(&rec));
      if (!found) {
        return base::Status::Corruption(r->path() + ": no channel-state record at logical offset " +
                                        std::to_string(sl.offset()));
      }
      ch->buffers.emplace_back(rec.bytes);
    }
    return base::Status::OK();
  };
  for (const auto& h : ss->input_channel_state()) {
    RestoredChannel ch;
    ch.index_a = h.gate_index();
    ch.index_b = h.channel_index();
    CKPT_RETURN_IF_ERROR(read(h.buffers(), &ch));
    out.push_back(std::move(ch));
  }
  for (const auto& h : ss->output_channel_state()) {
    RestoredChannel ch;
    ch.output = true;
    ch.index_a = h.partition_index();
    ch.index_b = h.subpartition_index();
    CKPT_RETURN_IF_ERROR(read(h.buffers(), &ch));
    out.push_back(std::move(ch));
  }
  return out;
}

}  // namespace ckpt::engine
