// LoadSnapshot: reads `_metadata` through ckpt::format and flattens the protobuf into the plain
// model (ckpt/ops/snapshot.h) that renderers and the inspector use without protobuf.
#include <algorithm>
#include <map>
#include <set>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/ops/snapshot.h"
#include "formats/own/own_format.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

std::string IdHex(const std::string& bytes) {
  auto id = format::OperatorId::FromBytes(bytes);
  if (id.ok()) return id->ToHex();
  // The format reader rejects malformed IDs; keep something printable regardless.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string TypeNameOrEmpty(bool has, const pb::TypeDescriptor& type) {
  return has ? format::TypeName(type) : std::string();
}

void CollectKeyedFiles(const pb::KeyedStateHandle& h, std::vector<uint32_t>* files) {
  switch (h.handle_case()) {
    case pb::KeyedStateHandle::kKeyGroups:
      files->push_back(h.key_groups().file_index());
      break;
    case pb::KeyedStateHandle::kRocksdb:
      for (const auto& f : h.rocksdb().sst_files()) files->push_back(f.file_index());
      for (const auto& f : h.rocksdb().meta_files()) files->push_back(f.file_index());
      break;
    case pb::KeyedStateHandle::kChangelog:
      for (const auto& m : h.changelog().materialized()) CollectKeyedFiles(m, files);
      for (const auto& s : h.changelog().segments()) files->push_back(s.slice().file_index());
      break;
    case pb::KeyedStateHandle::HANDLE_NOT_SET:
      break;
  }
}

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

KeyedHandle ToKeyedHandle(const pb::KeyedStateHandle& h) {
  KeyedHandle out;
  switch (h.handle_case()) {
    case pb::KeyedStateHandle::kKeyGroups: {
      const auto& kg = h.key_groups();
      out.kind = KeyedHandleKind::kKeyGroups;
      out.key_group_start = kg.key_group_start();
      out.key_group_end = kg.key_group_end();
      out.key_group_records.assign(kg.key_group_record_counts().begin(),
                                   kg.key_group_record_counts().end());
      break;
    }
    case pb::KeyedStateHandle::kRocksdb:
      out.kind = KeyedHandleKind::kRocksDb;
      out.key_group_start = h.rocksdb().key_group_start();
      out.key_group_end = h.rocksdb().key_group_end();
      out.backend_id = h.rocksdb().backend_id();
      break;
    case pb::KeyedStateHandle::kChangelog:
      out.kind = KeyedHandleKind::kChangelog;
      out.key_group_start = h.changelog().key_group_start();
      out.key_group_end = h.changelog().key_group_end();
      out.materialization_id = h.changelog().materialization_id();
      out.changelog_segments = static_cast<uint32_t>(h.changelog().segments_size());
      break;
    case pb::KeyedStateHandle::HANDLE_NOT_SET:
      break;
  }
  CollectKeyedFiles(h, &out.file_indexes);
  SortUnique(&out.file_indexes);
  return out;
}

ChannelStateInfo ToChannel(bool input, uint32_t a, uint32_t b,
                           const google::protobuf::RepeatedPtrField<pb::FileSlice>& buffers,
                           uint64_t size_bytes) {
  ChannelStateInfo c;
  c.input = input;
  c.gate_or_partition = a;
  c.channel_or_subpartition = b;
  c.buffer_count = static_cast<uint32_t>(buffers.size());
  c.size_bytes = size_bytes;
  for (const auto& s : buffers) c.file_indexes.push_back(s.file_index());
  SortUnique(&c.file_indexes);
  return c;
}

SubtaskInfo ToSubtask(const pb::SubtaskState& st) {
  SubtaskInfo out;
  out.index = st.subtask_index();
  out.finished = st.finished();
  for (const auto& h : st.keyed_state()) out.keyed.push_back(ToKeyedHandle(h));
  for (const auto& h : st.operator_state()) {
    OperatorHandle oh;
    oh.file_index = h.file_index();
    for (const auto& p : h.partitions()) {
      oh.partitions.push_back({p.state_name(), static_cast<StateKind>(p.distribution()),
                               static_cast<uint64_t>(p.entry_offsets_size())});
    }
    out.operator_state.push_back(std::move(oh));
  }
  for (const auto& c : st.input_channel_state()) {
    out.channels.push_back(
        ToChannel(true, c.gate_index(), c.channel_index(), c.buffers(), c.size_bytes()));
  }
  for (const auto& c : st.output_channel_state()) {
    out.channels.push_back(ToChannel(false, c.partition_index(), c.subpartition_index(),
                                     c.buffers(), c.size_bytes()));
  }
  for (const auto& c : st.committables()) {
    out.committables.push_back(
        {c.pending_path(), c.final_path(), c.size_bytes(), c.checksum_xxh3(), c.checkpoint_id(),
         c.upload_id(), std::vector<std::string>(c.part_etags().begin(), c.part_etags().end())});
  }
  const auto& m = st.metrics();
  out.metrics = {m.ack_timestamp(),     m.end_to_end_duration(), m.state_size(),
                 m.checkpointed_size(), m.sync_duration(),       m.async_duration(),
                 m.alignment_duration(), m.start_delay(),        m.processed_data(),
                 m.persisted_data(),    m.unaligned_checkpoint()};
  return out;
}

// Sizes are left to ComputeModelSizes.
void FillOperatorState(const pb::OperatorState& os, OperatorInfo* op) {
  op->has_state = true;
  op->fully_finished = os.fully_finished();
  if (!op->in_job_graph) {
    op->parallelism = os.parallelism();
    op->max_parallelism = os.max_parallelism();
  }
  for (const auto& sd : os.states()) {
    StateInfo s;
    s.name = sd.name();
    s.kind = static_cast<StateKind>(sd.kind());
    s.keyed = IsKeyedStateKind(s.kind);
    s.key_type = TypeNameOrEmpty(sd.has_key_type(), sd.key_type());
    s.namespace_type = TypeNameOrEmpty(sd.has_namespace_type(), sd.namespace_type());
    s.user_key_type = TypeNameOrEmpty(sd.has_user_key_type(), sd.user_key_type());
    s.value_type = TypeNameOrEmpty(sd.has_value_type(), sd.value_type());
    s.serializer_version = sd.serializer_version();
    s.timer_domain = sd.timer_domain();
    op->states.push_back(std::move(s));
  }
  op->subtasks.reserve(op->subtasks.size() + static_cast<size_t>(os.subtasks_size()));
  for (const auto& st : os.subtasks()) op->subtasks.push_back(ToSubtask(st));
  auto by_index = [](const SubtaskInfo& a, const SubtaskInfo& b) { return a.index < b.index; };
  // Usually written in index order already: then left alone (std::sort would move each).
  if (!std::is_sorted(op->subtasks.begin(), op->subtasks.end(), by_index)) {
    std::sort(op->subtasks.begin(), op->subtasks.end(), by_index);
  }
  if (os.has_coordinator_state()) {
    const auto& cs = os.coordinator_state();
    CoordinatorInfo ci;
    ci.is_inline = cs.location_case() == pb::CoordinatorState::kInlineData;
    if (cs.location_case() == pb::CoordinatorState::kFileIndex) ci.file_index = cs.file_index();
    ci.size_bytes = ci.is_inline ? cs.inline_data().size() : cs.size_bytes();
    ci.type = TypeNameOrEmpty(cs.has_type(), cs.type());
    op->coordinator = ci;
  }
}

}  // namespace

Snapshot BuildSnapshotModel(pb::CheckpointMetadata md, const std::string& dir,
                            const std::string& metadata_path) {
  Snapshot s;
  s.dir = dir;
  s.metadata_path = metadata_path;
  s.format_version = md.format_version();
  s.engine_name = md.engine_name();
  s.engine_version = md.engine_version();
  s.job_id_hex = format::JobIdHex(md.job_id()).ValueOr(IdHex(md.job_id()));
  s.job_name = md.job_name();
  s.checkpoint_id = md.checkpoint_id();
  s.kind = static_cast<SnapshotKind>(md.kind());
  s.savepoint_format = static_cast<SavepointFormat>(md.savepoint_format());
  s.checkpoint_type = static_cast<CheckpointType>(md.checkpoint_type());
  s.post_action = static_cast<PostAction>(md.post_action());
  s.mode = static_cast<CheckpointingMode>(md.mode());
  s.retention = static_cast<RetentionPolicy>(md.retention());
  if (md.has_restored_from()) {
    const auto& r = md.restored_from();
    s.restored_from = RestoreInfo{r.path(), r.checkpoint_id(), static_cast<SnapshotKind>(r.kind()),
                                  static_cast<ClaimMode>(r.claim_mode()),
                                  r.allow_non_restored_state()};
  }
  s.trigger_timestamp_ms = md.trigger_timestamp();
  s.completion_timestamp_ms = md.completion_timestamp();

  s.files.reserve(static_cast<size_t>(md.files_size()));
  for (int i = 0; i < md.files_size(); ++i) {
    const pb::FileEntry& fe = md.files(i);
    SnapshotFile f;
    f.index = static_cast<uint32_t>(i);
    f.path = fe.path();
    f.scope = static_cast<FileScope>(fe.scope());
    f.kind = static_cast<FileKind>(fe.kind());
    f.size_bytes = fe.size_bytes();
    f.checksum_xxh3 = fe.checksum_xxh3();
    f.compression = fe.compression() == pb::COMPRESSION_ZSTD   ? "zstd"
                    : fe.compression() == pb::COMPRESSION_NONE ? "none"
                                                               : "";
    f.created_by_checkpoint_id = fe.created_by_checkpoint_id();
    auto resolved = format::ResolveFile(dir, fe);
    if (resolved.ok()) {
      f.resolved_path = *resolved;
    } else {
      f.resolve_error = resolved.status().message();
    }
    s.total_file_bytes += f.size_bytes;
    s.files.push_back(std::move(f));
  }

  std::map<std::string, size_t> by_id;
  for (const auto& oi : md.job_graph().operators()) {
    OperatorInfo op;
    op.id_hex = IdHex(oi.operator_id());
    op.uid = oi.uid();
    op.name = oi.name();
    op.kind = oi.kind();
    op.spec_id = oi.spec_id();
    op.parallelism = oi.parallelism();
    op.max_parallelism = oi.max_parallelism();
    op.chain_index = oi.chain_index();
    op.position_in_chain = oi.position_in_chain();
    op.in_job_graph = true;
    by_id.emplace(op.id_hex, s.operators.size());
    s.operators.push_back(std::move(op));
  }
  for (const auto& os : md.operators()) {
    const std::string id = IdHex(os.operator_id());
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      OperatorInfo op;
      op.id_hex = id;
      it = by_id.emplace(id, s.operators.size()).first;
      s.operators.push_back(std::move(op));
    }
    FillOperatorState(os, &s.operators[it->second]);
  }
  ComputeModelSizes(&s);
  s.checkpoint_type = CheckpointTypeFromReferences(s);
  for (const auto& e : md.job_graph().edges()) {
    s.edges.push_back({IdHex(e.source_operator_id()), IdHex(e.target_operator_id()),
                       static_cast<Partitioning>(e.partitioning()), e.target_input()});
  }
  const auto& m = md.metrics();
  s.metrics = {m.trigger_timestamp(),  m.latest_ack_timestamp(), m.end_to_end_duration(),
               m.state_size(),         m.checkpointed_size(),    m.processed_data(),
               m.persisted_data(),     m.num_subtasks(),         m.num_acknowledged_subtasks(),
               m.is_unaligned(),       m.alignment_timeout()};
  for (const auto& [k, v] : md.properties()) s.properties.emplace_back(k, v);
  std::sort(s.properties.begin(), s.properties.end());

  s.raw = std::make_shared<const SnapshotRaw>(internal::OwnSnapshotFormat(), std::move(md));
  return s;
}

base::Result<Snapshot> LoadSnapshot(base::Fs& fs, const std::string& path) {
  return LoadSnapshot(fs, path, LoadOptions{});
}

base::Result<Snapshot> LoadSnapshot(base::Fs& fs, const std::string& path, const LoadOptions& options) {
  CKPT_ASSIGN_OR_RETURN(format::SnapshotLocation loc, format::LocateSnapshot(fs, path));
  CKPT_ASSIGN_OR_RETURN(Snapshot s,
                        internal::FormatAt(fs, loc.metadata).Load(fs, loc.dir, loc.metadata, options));
  NameOperatorsByUids(options.uids, &s);
  return s;
}

bool IsCheckpointedFile(const SnapshotFile& file, int64_t checkpoint_id) {
  if (file.created_by_checkpoint_id == 0) return file.scope == FileScope::kExclusive;
  return file.created_by_checkpoint_id == checkpoint_id;
}

base::Result<const OperatorInfo*> Snapshot::FindOperator(std::string_view ref) const {
  std::string lower(ref);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& op : operators) {
    if (op.id_hex == lower) return &op;
  }
  for (const auto& op : operators) {
    if (!op.uid.empty() && op.uid == ref) return &op;
  }
  const OperatorInfo* found = nullptr;
  for (const auto& op : operators) {
    if (!op.name.empty() && op.name == ref) {
      if (found != nullptr) {
        return base::Status::InvalidArgument("operator name '" + std::string(ref) +
                                             "' is ambiguous; use the uid or the ID");
      }
      found = &op;
    }
  }
  if (found != nullptr) return found;
  std::string candidates;
  for (const auto& op : operators) {
    if (!candidates.empty()) candidates += ", ";
    candidates += op.uid.empty() ? op.id_hex : op.uid;
  }
  return base::Status::NotFound("no operator '" + std::string(ref) + "' in " + metadata_path +
                                " (operators: " + candidates + ")");
}

size_t Snapshot::subtask_state_count() const {
  size_t n = 0;
  for (const auto& op : operators) n += op.subtasks.size();
  return n;
}

}  // namespace ckpt::ops
