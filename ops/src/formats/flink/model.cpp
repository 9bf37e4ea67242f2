// Flink metadata → the plain model, built straight from the decoded operators, one at a time
// (a streamed parse keeps none). The result is what BuildSnapshotModel makes of the protobuf
// translation (formats/flink/translate.cpp), and flink_model_test holds the two to that; building the
// per-subtask messages first was a third of `ls` of a 10,000-subtask `_metadata`. Verbs that
// read the raw handles get the Flink metadata and the protobuf on first use (SnapshotRaw).
#include "formats/flink/model.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/base/prefault.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/format/layout.h"
#include "formats/flink/files.h"
#include "formats/flink/flink_format.h"
#include "formats/flink/keyed_states.h"
#include "formats/flink/translate.h"
#include "model/file_fs.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

using Tag = flink::KeyedHandle::Tag;

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

StateKind DistributionKind(flink::DistributionMode mode) {
  switch (mode) {
    case flink::DistributionMode::kUnion:
      return StateKind::kOperatorUnion;
    case flink::DistributionMode::kBroadcast:
      return StateKind::kBroadcast;
    case flink::DistributionMode::kSplitDistribute:
      break;
  }
  return StateKind::kOperatorList;
}

// The bytes of `h` stored inline in `_metadata` (a byte-stream handle, or one nested in a
// legacy key-groups position); 0 for a file.
uint64_t FlinkInlineBytes(const flink::StreamHandle& h) {
  if (h.type == flink::StreamHandle::Type::kByteStream) return h.data.size();
  if (h.type == flink::StreamHandle::Type::kKeyGroups && h.nested) {
    return FlinkInlineBytes(h.nested->delegate);
  }
  return 0;
}

// A changelog (DSTL) file holds a header and may hold several increments: its handles record a
// lower bound of its size. (file index, size on disk) for each such file at least that large.
using SizeOverrides = std::vector<std::pair<uint32_t, uint64_t>>;

// Takes the operators one at a time (from decoded metadata, or from a streamed parse that keeps
// none), then the rest of the metadata.
class ModelBuilder {
 public:
  // `header` gives the `_metadata` path, directory and size (what the file table and the
  // keyed-state reader need); `keyed` holds the keyed states of the operators added so far
  // (the operator being added included).
  ModelBuilder(base::Fs& fs, const flink::Metadata& header, const std::string& dir,
               const FlinkKeyedStates& keyed)
      : fs_(fs), dir_(dir), keyed_(keyed), files_(header, dir) {}

  // No job graph: operators in metadata order, one per operator ID.
  void AddOperator(const flink::OperatorState& fo) {
    summarizer_.AddOperator(fo);
    const std::string id = fo.IdHex();
    auto it = by_id_.find(id);
    if (it == by_id_.end()) {
      it = by_id_.emplace(id, s_.operators.size()).first;
      s_.operators.emplace_back().id_hex = id;
    }
    AddOperator(fo, &s_.operators[it->second]);
  }

  // `md` is the rest of the metadata (its operators are not read).
  Snapshot Finish(const flink::Metadata& md, SizeOverrides* changelog_sizes) && {
    const FlinkSummary summary = summarizer_.Finish(md, dir_);
    Snapshot& s = s_;
    s.dir = dir_;
    s.metadata_path = md.path;
    s.metadata_size_bytes = md.size_bytes;
    s.format_version = md.version;
    s.engine_name = "Apache Flink";
    s.job_id_hex = summary.job_id_hex;
    s.checkpoint_id = md.checkpoint_id;
    s.kind = summary.kind;
    s.savepoint_format = summary.savepoint_format;
    s.checkpoint_type = summary.checkpoint_type;
    s.post_action = summary.post_action;
    s.metrics.is_unaligned = summary.unaligned;
    s.metrics.num_subtasks = summary.num_subtasks;
    std::map<std::string, std::string> properties = summary.properties;
    for (const auto& [id, error] : keyed_.errors) {
      properties["flink.keyed_meta_error." + id] = error;
    }
    for (auto& op : s.operators) {
      auto it = keyed_.by_operator.find(op.id_hex);
      if (it != keyed_.by_operator.end()) FillKeyedStateTypes(it->second, &op);
    }
    AddFiles(&s, md.checkpoint_id, changelog_sizes);
    ComputeModelSizes(&s);
    s.properties.assign(properties.begin(), properties.end());  // a std::map: sorted by key
    return std::move(s);
  }

 private:
  void AddOperator(const flink::OperatorState& fo, OperatorInfo* op) {
    op->uid = fo.uid;
    // Flink's `_metadata` does not say whether an ID came from a uid (v5+ store the uid when
    // the job set one; earlier versions store none).
    op->uid_origin = fo.uid.empty() ? UidOrigin::kNotRecorded : UidOrigin::kRecorded;
    op->name = fo.name;
    op->parallelism = static_cast<uint32_t>(fo.parallelism);
    op->max_parallelism = static_cast<uint32_t>(fo.max_parallelism);
    op->has_state = true;
    op->fully_finished = fo.fully_finished;
    std::map<std::string, StateKind> op_states;  // declared by the operator handles, first kind
    // 1,000 subtasks are 200 KB of SubtaskInfo: faulted in at once (base/prefault.h).
    base::ReservePrefaulted(&op->subtasks,
                            op->subtasks.size() + fo.subtasks.size() + fo.finished_subtasks.size());
    for (const auto& st : fo.subtasks) {
      op->subtasks.push_back(Subtask(st));
      for (const auto& h : op->subtasks.back().operator_state) {
        for (const auto& p : h.partitions) op_states.emplace(p.state_name, p.distribution);
      }
    }
    for (int32_t idx : fo.finished_subtasks) {
      SubtaskInfo& st = op->subtasks.emplace_back();
      st.index = static_cast<uint32_t>(idx);
      st.finished = true;
    }
    auto by_index = [](const SubtaskInfo& a, const SubtaskInfo& b) { return a.index < b.index; };
    // Flink writes subtasks in index order: sorting 1,000 sorted ones would move each around.
    if (!std::is_sorted(op->subtasks.begin(), op->subtasks.end(), by_index)) {
      std::sort(op->subtasks.begin(), op->subtasks.end(), by_index);
    }
    for (const auto& [name, kind] : op_states) {
      StateInfo& info = op->states.emplace_back();
      info.name = name;
      info.kind = kind;
    }
    auto keyed = keyed_.by_operator.find(op->id_hex);
    if (keyed != keyed_.by_operator.end()) {
      for (const auto& st : keyed->second.states) op->states.push_back(KeyedStateInfo(st));
    }
    if (fo.coordinator.type == flink::StreamHandle::Type::kByteStream) {
      CoordinatorInfo& c = op->coordinator.emplace();
      c.is_inline = true;
      c.size_bytes = fo.coordinator.data.size();
    }
  }

  // Handles in the order the protobuf translation visits them, so file indexes agree.
  SubtaskInfo Subtask(const flink::SubtaskState& st) {
    SubtaskInfo out;
    out.index = static_cast<uint32_t>(st.index);
    out.keyed.reserve((st.managed_keyed.is_null() ? 0 : 1) + (st.raw_keyed.is_null() ? 0 : 1));
    for (const flink::KeyedHandle* kh : {&st.managed_keyed, &st.raw_keyed}) {
      if (!kh->is_null()) Keyed(*kh, &out.keyed.emplace_back());
    }
    out.operator_state.reserve(st.managed_operator.has_value() + st.raw_operator.has_value());
    for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
      if (!oh->has_value()) continue;
      OperatorHandle& h = out.operator_state.emplace_back();
      h.file_index = files_.Add((*oh)->delegate, FileKind::kOperatorState);
      h.inline_bytes = FlinkInlineBytes((*oh)->delegate);
      h.partitions.reserve((*oh)->states.size());
      for (const auto& e : (*oh)->states) {
        h.partitions.push_back({e.name, DistributionKind(e.mode), e.offsets.size()});
      }
    }
    out.channels.reserve(st.input_channels.size() + st.result_subpartitions.size());
    for (const auto* list : {&st.input_channels, &st.result_subpartitions}) {
      for (const auto& c : *list) {
        ChannelStateInfo& info = out.channels.emplace_back();
        info.input = list == &st.input_channels;
        info.gate_or_partition = static_cast<uint32_t>(c.gate_or_partition);
        info.channel_or_subpartition = static_cast<uint32_t>(c.channel_or_subpartition);
        // No offsets: the whole delegate is one buffer run.
        info.buffer_count = c.offsets.empty() ? 1 : static_cast<uint32_t>(c.offsets.size());
        info.size_bytes = static_cast<uint64_t>(c.state_size);
        info.file_indexes.push_back(files_.Add(c.delegate, FileKind::kChannelState));
        info.inline_bytes = FlinkInlineBytes(c.delegate);
      }
    }
    return out;
  }

  void Keyed(const flink::KeyedHandle& h, KeyedHandle* handle) {
    KeyedHandle& out = *handle;
    switch (h.tag) {
      case Tag::kKeyGroups:
      case Tag::kKeyGroupsV2:
      case Tag::kSavepointKeyGroups:
        out.kind = KeyedHandleKind::kKeyGroups;
        break;
      case Tag::kIncremental:
      case Tag::kIncrementalV2:
        out.kind = KeyedHandleKind::kRocksDb;
        out.backend_id = h.backend_id;
        break;
      case Tag::kChangelog:
      case Tag::kChangelogV2:
        out.kind = KeyedHandleKind::kChangelog;
        out.materialization_id = h.materialization_id;
        break;
      case Tag::kChangelogBytes:
      case Tag::kChangelogFile:
      case Tag::kChangelogFileV2:
        out.kind = KeyedHandleKind::kChangelog;
        break;
      case Tag::kNull:
        return;
    }
    out.key_group_start = static_cast<uint32_t>(h.kg_start);
    out.key_group_end = static_cast<uint32_t>(h.kg_start + h.kg_count - 1);
    KeyedFiles(h, &out.file_indexes, &out.changelog_segments, &out.inline_bytes);
    if (out.file_indexes.size() > 1) SortUnique(&out.file_indexes);
  }

  // Every file `h` references, nested handles included; `segments` counts its own changelog
  // segments (not those of materialized handles); `inline_bytes` adds the bytes its byte-stream
  // handles keep in `_metadata`.
  void KeyedFiles(const flink::KeyedHandle& h, std::vector<uint32_t>* files, uint32_t* segments,
                  uint64_t* inline_bytes) {
    auto add = [&](const flink::StreamHandle& sh, FileKind kind) {
      files->push_back(files_.Add(sh, kind));
      *inline_bytes += FlinkInlineBytes(sh);
    };
    switch (h.tag) {
      case Tag::kKeyGroups:
      case Tag::kKeyGroupsV2:
      case Tag::kSavepointKeyGroups:
        add(h.key_groups->delegate, FileKind::kKeyedState);
        break;
      case Tag::kIncremental:
      case Tag::kIncrementalV2:
        if (!h.meta.is_null()) add(h.meta, FileKind::kRocksDbMeta);
        for (const auto* list : {&h.shared_files, &h.private_files}) {
          for (const auto& lp : *list) {
            const bool sst = lp.local_path.size() > 4 &&
                             lp.local_path.compare(lp.local_path.size() - 4, 4, ".sst") == 0;
            add(lp.handle, sst ? FileKind::kRocksDbSst : FileKind::kRocksDbMeta);
          }
        }
        break;
      case Tag::kChangelog:
      case Tag::kChangelogV2: {
        uint32_t nested_segments = 0;
        for (const auto& m : h.materialized) KeyedFiles(m, files, &nested_segments, inline_bytes);
        for (const auto& d : h.non_materialized) SegmentFiles(d, files, segments, inline_bytes);
        break;
      }
      case Tag::kChangelogBytes:
      case Tag::kChangelogFile:
      case Tag::kChangelogFileV2:
        SegmentFiles(h, files, segments, inline_bytes);
        break;
      case Tag::kNull:
        break;
    }
  }

  void SegmentFiles(const flink::KeyedHandle& d, std::vector<uint32_t>* files, uint32_t* segments,
                    uint64_t* inline_bytes) {
    if (d.tag == Tag::kChangelogBytes) {  // inline: the changes are in `_metadata`
      files->push_back(files_.Add(flink::StreamHandle{}, FileKind::kChangelog));
      for (const auto& c : d.changes) *inline_bytes += c.bytes.size();
      ++*segments;
      return;
    }
    for (const auto& [offset, handle] : d.handles_and_offsets) {
      files->push_back(files_.Add(handle, FileKind::kChangelog));
      *inline_bytes += FlinkInlineBytes(handle);
      ++*segments;
    }
  }

  // Last: the file table is used up.
  void AddFiles(Snapshot* s, int64_t checkpoint_id, SizeOverrides* changelog_sizes) {
    std::vector<FlinkFileTable::Entry> entries = std::move(files_).Release();
    base::ReservePrefaulted(&s->files, entries.size());
    for (auto& e : entries) {
      SnapshotFile& f = s->files.emplace_back();
      f.index = static_cast<uint32_t>(s->files.size() - 1);
      f.path = std::move(e.path);
      f.scope = e.scope;
      f.kind = e.kind;
      f.size_bytes = e.size_bytes;
      f.created_by_checkpoint_id = checkpoint_id;
      f.is_metadata = e.is_metadata;
      auto resolved = ResolveFlinkModelFile(f);
      if (resolved.ok()) {
        f.resolved_path = std::move(resolved).value();
        if (f.kind == FileKind::kChangelog) {
          auto info = FsOfSnapshotFile(fs_, dir_, f.resolved_path).Stat(f.resolved_path);
          if (info.ok() && info->size_bytes >= f.size_bytes) {
            f.size_bytes = info->size_bytes;
            changelog_sizes->emplace_back(f.index, f.size_bytes);
          }
        }
      } else {
        f.resolve_error = resolved.status().message();
      }
      s->total_file_bytes += f.size_bytes;
    }
  }

  // Where `f` lives: format::ResolveFile's layout, except that an EXTERNAL file named by a
  // location of a registered scheme other than file: (an absolute s3:// handle) is that
  // location (base::ResolveFs's error, e.g. no credentials, when it cannot be resolved). A
  // scheme with no filesystem stays format::ResolveFile's error, as the protobuf translation
  // of the same metadata has it; validate's F004 for its handles names the scheme.
  base::Result<std::string> ResolveFlinkModelFile(const SnapshotFile& f) const {
    const std::string scheme = base::SchemeOf(f.path);
    if (f.scope == FileScope::kExternal && !scheme.empty() && scheme != "file") {
      const std::vector<std::string> registered = base::BuiltInSchemes();
      if (std::find(registered.begin(), registered.end(), scheme) != registered.end()) {
        CKPT_RETURN_IF_ERROR(base::ResolveFs(f.path).status());
        return f.path;
      }
    }
    return format::ResolveFile(dir_, static_cast<pb::FileScope>(f.scope), f.path);
  }

  base::Fs& fs_;
  const std::string& dir_;
  const FlinkKeyedStates& keyed_;
  FlinkFileTable files_;
  FlinkSummarizer summarizer_;
  std::map<std::string, size_t> by_id_;  // operator ID -> index in s_.operators
  Snapshot s_;
};

// The raw side of a Flink snapshot. The plain model is built straight from the Flink metadata,
// so what only some verbs read is made on first use: `decode` makes the Flink metadata (decoded
// anew from the retained bytes when the model was built from a streamed parse), `translate` the
// protobuf of it (for a 10,000-subtask `_metadata`, tens of thousands of messages that ls never
// reads). Made under std::call_once: safe to share between threads for reading.
class FlinkSnapshotRaw final : public SnapshotRaw {
 public:
  FlinkSnapshotRaw(std::function<flink::Metadata()> decode,
                   std::function<pb::CheckpointMetadata(const flink::Metadata&)> translate)
      : SnapshotRaw(FlinkSnapshotFormat()),
        decode_(std::move(decode)),
        translate_(std::move(translate)) {}

  const pb::CheckpointMetadata& metadata() const override {
    std::call_once(metadata_once_, [this] { metadata_ = translate_(flink_metadata()); });
    return metadata_;
  }

  const flink::Metadata& flink_metadata() const {
    std::call_once(flink_once_, [this] { flink_ = decode_(); });
    return flink_;
  }

 private:
  std::function<flink::Metadata()> decode_;
  std::function<pb::CheckpointMetadata(const flink::Metadata&)> translate_;
  mutable std::once_flag flink_once_;
  mutable std::once_flag metadata_once_;
  mutable flink::Metadata flink_;
  mutable pb::CheckpointMetadata metadata_;
};

// The protobuf of a model: the translation plus what the model read beside `_metadata`.
std::function<pb::CheckpointMetadata(const flink::Metadata&)> Translation(
    const std::string& dir, std::shared_ptr<const FlinkKeyedStates> keyed,
    SizeOverrides changelog_sizes) {
  return [dir, keyed = std::move(keyed),
          changelog_sizes = std::move(changelog_sizes)](const flink::Metadata& md) {
    pb::CheckpointMetadata pbmd = TranslateFlinkMetadata(md, dir);
    AddKeyedStatesToProto(*keyed, &pbmd);
    for (const auto& [index, size] : changelog_sizes) {
      pbmd.mutable_files(static_cast<int>(index))->set_size_bytes(size);
    }
    return pbmd;
  };
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

Snapshot BuildFlinkSnapshotModel(base::Fs& fs, flink::Metadata md, const std::string& dir,
                                 bool state_meta) {
  auto keyed = std::make_shared<const FlinkKeyedStates>(state_meta ? ReadFlinkKeyedStates(fs, md)
                                                                   : FlinkKeyedStates{});
  ModelBuilder builder(fs, md, dir, *keyed);
  for (const auto& op : md.operators) builder.AddOperator(op);
  SizeOverrides changelog_sizes;
  Snapshot s = std::move(builder).Finish(md, &changelog_sizes);
  s.raw = std::make_shared<const FlinkSnapshotRaw>(
      [md = std::move(md)]() mutable { return std::move(md); },
      Translation(dir, std::move(keyed), std::move(changelog_sizes)));
  return s;
}

base::Result<Snapshot> LoadFlinkSnapshot(base::Fs& fs, const std::string& dir,
                                         const std::string& metadata_path, bool state_meta) {
  CKPT_ASSIGN_OR_RETURN(std::string read, flink::ReadFlinkMetadataBytes(fs, metadata_path));
  auto bytes = std::make_shared<const std::string>(std::move(read));
  flink::Metadata header;
  header.path = metadata_path;
  header.dir = flink::FlinkMetadataDir(metadata_path);
  header.size_bytes = bytes->size();
  auto keyed = std::make_shared<FlinkKeyedStates>();
  ModelBuilder builder(fs, header, dir, *keyed);
  // Streamed: the decoded operators are dropped as soon as the model has them, so a
  // 10,000-subtask `_metadata` never holds tens of megabytes of decoded handles at once.
  CKPT_ASSIGN_OR_RETURN(
      flink::Metadata md,
      flink::ParseFlinkMetadata(*bytes, metadata_path, [&](flink::OperatorState& op) {
        if (state_meta) ReadFlinkKeyedStates(fs, header, op, keyed.get());
        builder.AddOperator(op);
        return base::Status::OK();
      }));
  md.dir = header.dir;
  SizeOverrides changelog_sizes;
  Snapshot s = std::move(builder).Finish(md, &changelog_sizes);
  // Verbs that read the Flink metadata decode it again from the bytes: the same parser over the
  // same bytes, which decoded them once already.
  auto decode = [bytes, metadata_path, metadata_dir = header.dir]() {
    auto again = flink::ParseFlinkMetadata(*bytes, metadata_path);
    flink::Metadata decoded;
    if (again.ok()) {
      decoded = std::move(again).value();
    } else {  // cannot happen; keep the reason visible rather than crash
      decoded.path = metadata_path;
      decoded.properties_error = again.status().ToString();
    }
    decoded.dir = metadata_dir;
    return decoded;
  };
  s.raw = std::make_shared<const FlinkSnapshotRaw>(
      std::move(decode), Translation(dir, std::move(keyed), std::move(changelog_sizes)));
  return s;
}

const flink::Metadata* FlinkMetadataOf(const Snapshot& snapshot) {
  if (!snapshot.raw || &snapshot.raw->format() != &FlinkSnapshotFormat()) return nullptr;
  return &static_cast<const FlinkSnapshotRaw&>(*snapshot.raw).flink_metadata();
}

}  // namespace ckpt::ops::internal
