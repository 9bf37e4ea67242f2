// Flink metadata → the plain model: one file-table entry per distinct file a handle names
// (inline byte-stream state is listed as `_metadata`, where its bytes live), handles mapped to
// their closest counterpart (key groups, RocksDB, changelog), operator-state names declared from
// the operator handles, and the snapshot's kind, format and post action from the
// CheckpointProperties trailer (v4+) or, for v2/v3, from the keyed handle tags.
#include "flink_model.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>

#include "ckpt/flink/metadata_reader.h"
#include "flink_streams.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/proto.h"
#include "snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

using flink::KeyedHandle;
using flink::StreamHandle;
using Tag = flink::KeyedHandle::Tag;

class Translator {
 public:
  explicit Translator(const flink::Metadata& md, const std::string& dir) : md_(md), dir_(dir) {}

  pb::CheckpointMetadata Run() {
    out_.set_format_version(md_.version);
    out_.set_engine_name("Apache Flink");
    out_.set_checkpoint_id(md_.checkpoint_id);
    SetJobIdFromPath();
    bool incremental = false, changelog = false, canonical_tag = false, unaligned = false;
    // Most subtasks name one or two files of their own: reserve for that, not for the worst case.
    size_t subtask_count = 0;
    for (const auto& op : md_.operators) subtask_count += op.subtasks.size();
    out_.mutable_files()->Reserve(static_cast<int>(std::min<size_t>(2 * subtask_count + 1, 1u << 20)));
    index_.reserve(2 * subtask_count + 1);
    out_.mutable_operators()->Reserve(static_cast<int>(md_.operators.size()));
    for (const auto& op : md_.operators) {
      pb::OperatorState* os = out_.add_operators();
      os->set_operator_id(std::string(reinterpret_cast<const char*>(op.id), 16));
      os->set_parallelism(static_cast<uint32_t>(op.parallelism));
      os->set_max_parallelism(static_cast<uint32_t>(op.max_parallelism));
      os->set_fully_finished(op.fully_finished);
      if (op.coordinator.type == StreamHandle::Type::kByteStream) {
        os->mutable_coordinator_state()->set_inline_data(op.coordinator.data);
        os->mutable_coordinator_state()->set_size_bytes(op.coordinator.data.size());
      }
      std::map<std::string, pb::StateKind> op_states;
      os->mutable_subtasks()->Reserve(static_cast<int>(op.subtasks.size() + op.finished_subtasks.size()));
      for (const auto& st : op.subtasks) {
        pb::SubtaskState* ps = os->add_subtasks();
        ps->set_subtask_index(static_cast<uint32_t>(st.index));
        for (const KeyedHandle* kh : {&st.managed_keyed, &st.raw_keyed}) {
          if (kh->is_null()) continue;
          incremental |= kh->tag == Tag::kIncremental || kh->tag == Tag::kIncrementalV2;
          changelog |= kh->tag == Tag::kChangelog || kh->tag == Tag::kChangelogV2;
          canonical_tag |= kh->tag == Tag::kSavepointKeyGroups;
          Keyed(*kh, ps->add_keyed_state());
        }
        for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
          if (!oh->has_value()) continue;
          pb::OperatorStateHandle* p = ps->add_operator_state();
          p->set_file_index(File((*oh)->delegate, pb::OPERATOR_STATE));
          for (const auto& e : (*oh)->states) {
            pb::OperatorStatePartition* part = p->add_partitions();
            part->set_state_name(e.name);
            const pb::StateKind kind = e.mode == flink::DistributionMode::kUnion ? pb::STATE_OPERATOR_UNION
                                       : e.mode == flink::DistributionMode::kBroadcast
                                           ? pb::STATE_BROADCAST
                                           : pb::STATE_OPERATOR_LIST;
            part->set_distribution(kind);
            part->mutable_entry_offsets()->Reserve(static_cast<int>(e.offsets.size()));
            for (int64_t off : e.offsets) part->add_entry_offsets(static_cast<uint64_t>(off));
            if (op_states.find(e.name) == op_states.end()) op_states.emplace(e.name, kind);
          }
        }
        for (const auto& c : st.input_channels) {
          unaligned = true;
          pb::InputChannelStateHandle* h = ps->add_input_channel_state();
          h->set_gate_index(static_cast<uint32_t>(c.gate_or_partition));
          h->set_channel_index(static_cast<uint32_t>(c.channel_or_subpartition));
          h->set_size_bytes(static_cast<uint64_t>(c.state_size));
          AddBuffers(c, h->mutable_buffers());
        }
        for (const auto& c : st.result_subpartitions) {
          unaligned = true;
          pb::ResultSubpartitionStateHandle* h = ps->add_output_channel_state();
          h->set_partition_index(static_cast<uint32_t>(c.gate_or_partition));
          h->set_subpartition_index(static_cast<uint32_t>(c.channel_or_subpartition));
          h->set_size_bytes(static_cast<uint64_t>(c.state_size));
          AddBuffers(c, h->mutable_buffers());
        }
      }
      for (int32_t idx : op.finished_subtasks) {
        pb::SubtaskState* ps = os->add_subtasks();
        ps->set_subtask_index(static_cast<uint32_t>(idx));
        ps->set_finished(true);
      }
      for (const auto& [name, kind] : op_states) {
        pb::StateDescriptor* d = os->add_states();
        d->set_name(name);
        d->set_kind(kind);
      }
    }
    if (md_.properties) {
      const auto& p = *md_.properties;
      out_.set_kind(p.is_savepoint ? pb::SAVEPOINT : pb::CHECKPOINT);
      if (p.is_savepoint) {
        out_.set_savepoint_format(p.format_type == "NATIVE" ? pb::NATIVE : pb::CANONICAL);
        out_.set_post_action(p.post_action == "SUSPEND"     ? pb::POST_ACTION_STOP
                             : p.post_action == "TERMINATE" ? pb::POST_ACTION_TERMINATE
                                                            : pb::POST_ACTION_NONE);
      }
      (*out_.mutable_properties())["flink.snapshot_type"] = p.type_name;
      if (!p.sharing_files.empty()) {
        (*out_.mutable_properties())["flink.sharing_files_strategy"] = p.sharing_files;
      }
      (*out_.mutable_properties())["flink.unclaimed"] = p.unclaimed ? "true" : "false";
    } else if (canonical_tag) {
      // v2/v3 carry no properties; tag 7 is written only for canonical savepoints.
      out_.set_kind(pb::SAVEPOINT);
      out_.set_savepoint_format(pb::CANONICAL);
    }
    if (!md_.properties_error.empty()) {
      (*out_.mutable_properties())["flink.properties_error"] = md_.properties_error;
    }
    if (out_.kind() != pb::SAVEPOINT) {
      out_.set_checkpoint_type(incremental || changelog ? pb::INCREMENTAL : pb::FULL);
    }
    if (unaligned) out_.mutable_metrics()->set_is_unaligned(true);
    (*out_.mutable_properties())["flink.metadata_version"] = std::to_string(md_.version);
    if (!md_.master_states.empty()) {
      std::string names;
      for (const auto& m : md_.master_states) names += (names.empty() ? "" : ",") + m.name;
      (*out_.mutable_properties())["flink.master_states"] = names;
    }
    uint32_t subtasks = 0;
    for (const auto& op : out_.operators()) subtasks += static_cast<uint32_t>(op.subtasks_size());
    out_.mutable_metrics()->set_num_subtasks(subtasks);
    return std::move(out_);
  }

 private:
  // <root>/<32 hex job id>/chk-<n>/_metadata: the job id is in the path, not in the file.
  void SetJobIdFromPath() {
    const std::string base = base::BaseName(dir_);
    if (base.rfind("chk-", 0) != 0) return;
    const std::string job = base::BaseName(base::DirName(dir_));
    if (job.size() != 32) return;
    std::string bytes;
    for (size_t i = 0; i < 32; i += 2) {
      auto nib = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
      };
      const int hi = nib(job[i]), lo = nib(job[i + 1]);
      if (hi < 0 || lo < 0) return;
      bytes.push_back(static_cast<char>(hi * 16 + lo));
    }
    out_.set_job_id(bytes);
  }

  // The file-table index of the bytes behind `h` (inline state: `_metadata` itself).
  uint32_t File(const StreamHandle& h, pb::FileKind kind) {
    pb::FileEntry fe;
    fe.set_kind(kind);
    fe.set_created_by_checkpoint_id(md_.checkpoint_id);
    switch (h.type) {
      case StreamHandle::Type::kRelativeFile:
        fe.set_path(h.path);
        fe.set_scope(pb::EXCLUSIVE);
        fe.set_size_bytes(static_cast<uint64_t>(h.size));
        break;
      case StreamHandle::Type::kFile:
      case StreamHandle::Type::kSegmentFile: {
        auto local = flink::LocalPath(md_, h);
        std::string path = local.ok() ? *local : h.path;
        Place(path, &fe);
        fe.set_size_bytes(static_cast<uint64_t>(h.size));
        if (h.type == StreamHandle::Type::kSegmentFile) fe.set_size_bytes(0);  // physical size unknown
        break;
      }
      case StreamHandle::Type::kKeyGroups:
        if (h.nested) return File(h.nested->delegate, kind);
        [[fallthrough]];
      default:
        fe.set_path("_metadata");
        fe.set_scope(pb::EXCLUSIVE);
        fe.set_kind(pb::FILE_KIND_UNSPECIFIED);
        fe.set_size_bytes(md_.size_bytes);
        break;
    }
    auto it = index_.find(FileKey{fe.scope(), fe.path()});
    if (it != index_.end()) {
      pb::FileEntry* existing = out_.mutable_files(static_cast<int>(it->second));
      if (existing->kind() != fe.kind()) existing->set_kind(pb::FILE_KIND_UNSPECIFIED);
      return it->second;
    }
    const auto idx = static_cast<uint32_t>(out_.files_size());
    pb::FileEntry* added = out_.add_files();
    *added = std::move(fe);
    // The key views the entry's own path: a repeated message field keeps its elements in place.
    index_.emplace(FileKey{added->scope(), added->path()}, idx);
    return idx;
  }

  // An absolute local path: inside the snapshot directory → EXCLUSIVE, in the job's shared/ or
  // taskowned/ → SHARED / TASK_OWNED, otherwise EXTERNAL.
  void Place(const std::string& path, pb::FileEntry* fe) {
    auto under = [&](const std::string& d) {
      return !d.empty() && path.size() > d.size() + 1 && path.compare(0, d.size(), d) == 0 &&
             path[d.size()] == '/';
    };
    const std::string job_dir = base::DirName(dir_);
    std::string abs_dir = dir_;
    if (under(abs_dir)) {
      fe->set_scope(pb::EXCLUSIVE);
      fe->set_path(path.substr(abs_dir.size() + 1));
    } else if (under(job_dir + "/shared")) {
      fe->set_scope(pb::SHARED);
      fe->set_path(path.substr(job_dir.size() + 8));
    } else if (under(job_dir + "/taskowned")) {
      fe->set_scope(pb::TASK_OWNED);
      fe->set_path(path.substr(job_dir.size() + 11));
    } else {
      fe->set_scope(pb::EXTERNAL);
      fe->set_path(path);
    }
  }

  void AddBuffers(const flink::ChannelHandle& c,
                  google::protobuf::RepeatedPtrField<pb::FileSlice>* buffers) {
    const uint32_t file = File(c.delegate, pb::CHANNEL_STATE);
    if (c.offsets.empty()) {
      pb::FileSlice* s = buffers->Add();
      s->set_file_index(file);
      s->set_length(static_cast<uint64_t>(c.state_size));
      return;
    }
    for (int64_t off : c.offsets) {
      pb::FileSlice* s = buffers->Add();
      s->set_file_index(file);
      s->set_offset(static_cast<uint64_t>(off));
    }
  }

  void Keyed(const KeyedHandle& h, pb::KeyedStateHandle* dst) {
    pb::KeyedStateHandle& out = *dst;
    const auto start = static_cast<uint32_t>(h.kg_start);
    const auto end = static_cast<uint32_t>(h.kg_start + h.kg_count - 1);
    switch (h.tag) {
      case Tag::kKeyGroups:
      case Tag::kKeyGroupsV2:
      case Tag::kSavepointKeyGroups: {
        pb::KeyGroupsStateHandle* kg = out.mutable_key_groups();
        kg->set_key_group_start(start);
        kg->set_key_group_end(end);
        kg->set_file_index(File(h.key_groups->delegate, pb::KEYED_STATE));
        break;
      }
      case Tag::kIncremental:
      case Tag::kIncrementalV2: {
        pb::RocksDbStateHandle* r = out.mutable_rocksdb();
        r->set_key_group_start(start);
        r->set_key_group_end(end);
        r->set_backend_id(h.backend_id);
        if (!h.meta.is_null()) {
          pb::RocksDbFile* f = r->add_meta_files();
          f->set_local_name("_meta");
          f->set_file_index(File(h.meta, pb::ROCKSDB_META));
        }
        for (const auto* list : {&h.shared_files, &h.private_files}) {
          for (const auto& lp : *list) {
            const bool sst = lp.local_path.size() > 4 &&
                             lp.local_path.compare(lp.local_path.size() - 4, 4, ".sst") == 0;
            pb::RocksDbFile* f = sst ? r->add_sst_files() : r->add_meta_files();
            f->set_local_name(lp.local_path);
            f->set_file_index(File(lp.handle, sst ? pb::ROCKSDB_SST : pb::ROCKSDB_META));
          }
        }
        break;
      }
      case Tag::kChangelog:
      case Tag::kChangelogV2: {
        pb::ChangelogStateHandle* c = out.mutable_changelog();
        c->set_key_group_start(start);
        c->set_key_group_end(end);
        c->set_materialization_id(h.materialization_id);
        for (const auto& m : h.materialized) Keyed(m, c->add_materialized());
        for (const auto& d : h.non_materialized) AddSegments(d, c);
        break;
      }
      case Tag::kChangelogBytes:
      case Tag::kChangelogFile:
      case Tag::kChangelogFileV2: {
        pb::ChangelogStateHandle* c = out.mutable_changelog();
        c->set_key_group_start(start);
        c->set_key_group_end(end);
        AddSegments(h, c);
        break;
      }
      case Tag::kNull:
        break;
    }
  }

  void AddSegments(const KeyedHandle& d, pb::ChangelogStateHandle* c) {
    if (d.tag == Tag::kChangelogBytes) {
      pb::ChangelogSegment* s = c->add_segments();
      s->mutable_slice()->set_file_index(File(StreamHandle{}, pb::CHANGELOG));
      s->set_from_sequence(static_cast<uint64_t>(d.from_sequence));
      s->set_to_sequence(static_cast<uint64_t>(d.to_sequence));
      return;
    }
    for (const auto& [offset, handle] : d.handles_and_offsets) {
      pb::ChangelogSegment* s = c->add_segments();
      s->mutable_slice()->set_file_index(File(handle, pb::CHANGELOG));
      s->mutable_slice()->set_offset(static_cast<uint64_t>(offset));
    }
  }

  // A file-table entry is one (scope, path).
  struct FileKey {
    int scope;
    std::string_view path;
    bool operator==(const FileKey& o) const { return scope == o.scope && path == o.path; }
  };
  struct FileKeyHash {
    size_t operator()(const FileKey& k) const {
      return std::hash<std::string_view>()(k.path) * 31 + static_cast<size_t>(k.scope);
    }
  };

  const flink::Metadata& md_;
  std::string dir_;
  pb::CheckpointMetadata out_;
  std::unordered_map<FileKey, uint32_t, FileKeyHash> index_;
};

pb::StateKind KindOf(const flink::StateMetaInfo& st) {
  if (st.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue) return pb::STATE_TIMERS;
  const std::string t = st.Option("KEYED_STATE_TYPE");
  if (t == "VALUE") return pb::STATE_VALUE;
  if (t == "LIST") return pb::STATE_LIST;
  if (t == "MAP") return pb::STATE_MAP;
  if (t == "REDUCING") return pb::STATE_REDUCING;
  if (t == "AGGREGATING") return pb::STATE_AGGREGATING;
  return pb::STATE_KIND_UNSPECIFIED;
}

std::string Display(const flink::SerializerSnapshot* s) {
  return s == nullptr ? std::string() : s->DisplayName();
}

// The keyed states of each operator, from the meta information of its first keyed handle.
struct KeyedStates {
  std::map<std::string, flink::KeyedBackendMeta> by_operator;  // id hex -> meta
  std::map<std::string, std::string> errors;                   // id hex -> why not
};

// Every subtask of an operator registers the same states, so one readable meta information
// suffices; a few handles are tried (a missing or damaged file), not all of them: a
// 10,000-subtask snapshot whose state files are gone must not cost 10,000 failed opens.
constexpr int kKeyedMetaAttempts = 3;

KeyedStates ReadKeyedStates(base::Fs& fs, const flink::Metadata& md) {
  KeyedStates out;
  for (const auto& op : md.operators) {
    int attempts = 0;
    for (const auto& st : op.subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      if (h.is_null()) continue;
      if (attempts++ == kKeyedMetaAttempts) break;
      auto meta = ReadKeyedMeta(fs, md, h);
      if (meta.ok()) {
        out.by_operator.emplace(op.IdHex(), std::move(meta).value());
        out.errors.erase(op.IdHex());
        break;
      }
      out.errors[op.IdHex()] = meta.status().message();
    }
  }
  return out;
}

}  // namespace

std::string IdHexOf(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

bool IsFlinkMetadataFile(base::Fs& fs, const std::string& metadata_path) {
  auto file = fs.OpenRead(metadata_path);
  if (!file.ok() || (*file)->Size() < 4) return false;
  char head[4];
  auto n = (*file)->ReadAt(0, 4, head);
  return n.ok() && *n == 4 && flink::HasFlinkMagic(std::string_view(head, 4));
}

Snapshot BuildFlinkSnapshotModel(base::Fs& fs, flink::Metadata md, const std::string& dir,
                                 bool state_meta) {
  pb::CheckpointMetadata pbmd = Translator(md, dir).Run();
  const KeyedStates keyed = state_meta ? ReadKeyedStates(fs, md) : KeyedStates{};
  for (auto& os : *pbmd.mutable_operators()) {
    const std::string id = IdHexOf(os.operator_id());
    auto it = keyed.by_operator.find(id);
    if (it != keyed.by_operator.end()) {
      for (const auto& st : it->second.states) {
        pb::StateDescriptor* d = os.add_states();
        d->set_name(st.name);
        d->set_kind(KindOf(st));
        const flink::SerializerSnapshot* v = st.Serializer("VALUE_SERIALIZER");
        if (v != nullptr) d->set_serializer_version(static_cast<uint32_t>(v->version));
        if (st.name.rfind("_timer_state/event", 0) == 0) d->set_timer_domain("event-time");
        if (st.name.rfind("_timer_state/processing", 0) == 0) d->set_timer_domain("processing-time");
      }
    }
    auto err = keyed.errors.find(id);
    if (err != keyed.errors.end()) {
      (*pbmd.mutable_properties())["flink.keyed_meta_error." + id] = err->second;
    }
  }
  // A changelog (DSTL) file holds a header and may hold several increments: its handles record
  // a lower bound of its size. List the file with its real size when it is at least that.
  for (auto& fe : *pbmd.mutable_files()) {
    if (fe.kind() != pb::CHANGELOG) continue;
    auto path = format::ResolveFile(dir, fe);
    if (!path.ok()) continue;
    auto info = fs.Stat(*path);
    if (info.ok() && info->size_bytes >= fe.size_bytes()) fe.set_size_bytes(info->size_bytes);
  }
  Snapshot s = BuildSnapshotModel(std::move(pbmd), dir, md.path);
  for (auto& op : s.operators) {
    auto it = keyed.by_operator.find(op.id_hex);
    if (it == keyed.by_operator.end()) continue;
    for (auto& info : op.states) {
      for (const auto& st : it->second.states) {
        if (st.name != info.name || !info.keyed) continue;
        info.key_type = it->second.key_serializer.DisplayName();
        info.namespace_type = Display(st.Serializer("NAMESPACE_SERIALIZER"));
        info.user_key_type = Display(st.Serializer("USER_KEY_SERIALIZER"));
        info.value_type = Display(st.Serializer("VALUE_SERIALIZER"));
      }
    }
  }
  s.metadata_size_bytes = md.size_bytes;
  // Flink writes names and uids (v5+) with the operator state, not in a job graph.
  for (auto& op : s.operators) {
    for (const auto& fo : md.operators) {
      if (fo.IdHex() == op.id_hex) {
        op.uid = fo.uid;
        op.name = fo.name;
      }
    }
  }
  // BuildSnapshotModel made s.raw just now and nothing else holds it: attach the Flink original
  // in place instead of copying the decoded protobuf (10,000 subtasks are megabytes of it).
  auto raw = std::const_pointer_cast<SnapshotRaw>(s.raw);
  raw->flink = std::make_shared<const flink::Metadata>(std::move(md));
  return s;
}

base::Result<Snapshot> LoadFlinkSnapshot(base::Fs& fs, const std::string& dir,
                                         const std::string& metadata_path, bool state_meta) {
  CKPT_ASSIGN_OR_RETURN(flink::Metadata md, flink::ReadFlinkMetadata(fs, metadata_path));
  return BuildFlinkSnapshotModel(fs, std::move(md), dir, state_meta);
}

const flink::Metadata* FlinkMetadataOf(const Snapshot& snapshot) {
  return snapshot.raw ? snapshot.raw->flink.get() : nullptr;
}

}  // namespace ckpt::ops::internal
