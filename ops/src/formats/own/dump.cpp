// dump of a snapshot of our format: streams an operator's (or every operator's) state,
// committables, coordinator state and channel state, decoded through the declared types.
// Canonical state is rendered one record at a time from the iterator's current block; changelog
// handles are replayed through KeyedStateView one key group at a time (or shown as their raw
// history).
#include "formats/own/own_format.h"

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/base/checksum.h"
#include "ckpt/base/json_quote.h"
#include "ckpt/format/channel_stream.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/state_kind.h"
#include "ckpt/format/stream_element.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/format/value_json.h"
#include "ckpt/ops/operator_label.h"
#include "model/json_writer.h"
#include "model/key_parse.h"
#include "formats/own/channel_peers.h"
#include "formats/own/keyed_replay.h"
#include "formats/own/operator_entries.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

using base::Status;

std::string_view ChangeOpName(format::ChangeOp op) {
  switch (op) {
    case format::ChangeOp::kPut: return "put";
    case format::ChangeOp::kDelete: return "delete";
    case format::ChangeOp::kAppend: return "append";
    case format::ChangeOp::kClear: return "clear";
  }
  return "unknown";
}

std::string HexJson(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (char c : bytes) {
    hex.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
    hex.push_back(kDigits[static_cast<uint8_t>(c) & 0xf]);
  }
  std::string out;
  base::AppendJsonQuoted(hex, &out);
  return out;
}

class Dumper {
 public:
  Dumper(base::Fs& fs, const Snapshot& s, const OperatorInfo& info, const pb::OperatorState& os,
         const DumpSink& sink, const base::Progress& progress, bool history)
      : fs_(fs), s_(s), info_(info), os_(os), sink_(sink), progress_(progress),
        history_(history), view_(fs, s, os) {}

  // Which states to emit (by index); empty filter = all.
  Status SelectState(const std::string& name) {
    for (int i = 0; i < os_.states_size(); ++i) {
      if (name.empty() || os_.states(i).name() == name) selected_.insert(static_cast<uint32_t>(i));
    }
    if (selected_.empty() && !name.empty()) {
      std::string names;
      for (const auto& d : os_.states()) names += (names.empty() ? "" : ", ") + d.name();
      return Status::NotFound("operator has no state '" + name + "' (states: " + names + ")");
    }
    filtered_ |= !name.empty();
    return Status::OK();
  }
  void FilterKey(std::string encoded_key) {
    key_ = std::move(encoded_key);
    filtered_ = true;
  }
  void FilterKeyGroup(uint32_t g) {
    key_group_ = g;
    filtered_ = true;
  }
  void SkipKeyed(uint64_t n) { skip_keyed_ = n; }
  uint64_t emitted() const { return emitted_; }

  Status DumpCoordinator() {
    if (filtered_ || !os_.has_coordinator_state()) return Status::OK();
    const pb::CoordinatorState& cs = os_.coordinator_state();
    std::string bytes;
    std::string where = s_.metadata_path + ": coordinator state";
    if (cs.location_case() == pb::CoordinatorState::kInlineData) {
      bytes = cs.inline_data();
    } else if (cs.location_case() == pb::CoordinatorState::kFileIndex) {
      CKPT_ASSIGN_OR_RETURN(const SnapshotFile* f, File(cs.file_index()));
      where = f->resolved_path;
      CKPT_ASSIGN_OR_RETURN(bytes, base::ReadFileToString(fs_, f->resolved_path));
      if (bytes.compare(0, format::kStateFileMagic.size(), format::kStateFileMagic) == 0) {
        // A container: the state is its one record.
        CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs_, f->resolved_path));
        CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
        format::RecordRef rec;
        CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
        bytes = more ? std::string(rec.bytes) : std::string();
      }
    } else {
      return Status::OK();
    }
    DumpEntry e = Base("coordinator");
    if (cs.has_type() && cs.type().kind() != pb::TypeDescriptor::KIND_UNSPECIFIED) {
      e.value_type = format::TypeName(cs.type());
      CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(cs.type(), bytes, &e.value_json),
                               where + " (" + e.value_type + ")");
    } else {
      e.value_json = HexJson(bytes);  // no declared type: the raw bytes
    }
    return Emit(e);
  }

  Status DumpSubtask(const pb::SubtaskState& st) {
    subtask_ = st.subtask_index();
    bool native_rocksdb = false;
    for (const auto& h : st.keyed_state()) native_rocksdb |= h.has_rocksdb();
    if (native_rocksdb) {
      CKPT_RETURN_IF_ERROR(DumpByKeyGroup(st));
    } else {
      for (const auto& h : st.keyed_state()) CKPT_RETURN_IF_ERROR(DumpKeyed(h));
    }
    if (key_ || key_group_) return Status::OK();
    for (const auto& h : st.operator_state()) CKPT_RETURN_IF_ERROR(DumpOperatorState(h));
    if (filtered_) return Status::OK();
    for (const auto& c : st.committables()) CKPT_RETURN_IF_ERROR(DumpCommittable(c));
    for (const auto& c : st.input_channel_state()) {
      CKPT_RETURN_IF_ERROR(DumpChannel("input " + std::to_string(c.gate_index()) + "/" +
                                           std::to_string(c.channel_index()),
                                       c.buffers(), &c, nullptr));
    }
    for (const auto& c : st.output_channel_state()) {
      CKPT_RETURN_IF_ERROR(DumpChannel("output " + std::to_string(c.partition_index()) + "/" +
                                           std::to_string(c.subpartition_index()),
                                       c.buffers(), nullptr, &c));
    }
    return Status::OK();
  }

 private:
  // The container record being emitted (DumpEntry::record_*).
  struct Where {
    uint32_t file = 0;
    uint64_t offset = 0, length = 0;
  };
  static uint64_t VarintLength(uint64_t v) {
    uint64_t n = 1;
    while (v >= 0x80) {
      v >>= 7;
      ++n;
    }
    return n;
  }
  void SetWhere(DumpEntry* e) const {
    if (!record_) return;
    e->record_file = record_->file;
    e->record_offset = record_->offset;
    e->record_length = record_->length;
  }

  DumpEntry Base(std::string source) const {
    DumpEntry e;
    e.operator_id = info_.id_hex;
    e.operator_name = OperatorLabel(info_.name, info_.uid, info_.id_hex);
    e.source = std::move(source);
    return e;
  }

  Status Emit(const DumpEntry& e) {
    ++emitted_;
    return sink_(e);
  }

  base::Result<const SnapshotFile*> File(uint32_t file_index) {
    if (file_index >= s_.files.size()) {
      return Status::Corruption(s_.metadata_path + ": file #" + std::to_string(file_index) +
                                " is beyond the file table");
    }
    const SnapshotFile& f = s_.files[file_index];
    if (f.resolved_path.empty()) {
      return Status::Corruption(s_.metadata_path + ": file #" + std::to_string(file_index) +
                                ": " + f.resolve_error);
    }
    return &f;
  }

  base::Result<std::unique_ptr<format::StateFileReader>> Open(uint32_t file_index) {
    CKPT_ASSIGN_OR_RETURN(const SnapshotFile* f, File(file_index));
    return format::StateFileReader::Open(fs_, f->resolved_path);
  }

  bool Cancelled() { return (++ticks_ & 1023) == 0 && progress_.cancelled(); }

  Status DumpKeyed(const pb::KeyedStateHandle& h) {
    switch (h.handle_case()) {
      case pb::KeyedStateHandle::kKeyGroups:
        return DumpKeyGroups(h.key_groups());
      case pb::KeyedStateHandle::kChangelog:
        if (history_) {
          for (const auto& m : h.changelog().materialized()) CKPT_RETURN_IF_ERROR(DumpKeyed(m));
          return DumpHistory(h.changelog());
        }
        return DumpReplayed(h);
      case pb::KeyedStateHandle::kRocksdb:
        return DumpReplayed(h);  // a changelog's materialized base
      case pb::KeyedStateHandle::HANDLE_NOT_SET:
        return Status::OK();
    }
    return Status::OK();
  }

  Status DumpKeyGroups(const pb::KeyGroupsStateHandle& kg) {
    if (key_group_ && (*key_group_ < kg.key_group_start() || *key_group_ > kg.key_group_end())) {
      return Status::OK();
    }
    CKPT_ASSIGN_OR_RETURN(const SnapshotFile* f, File(kg.file_index()));
    CKPT_ASSIGN_OR_RETURN(auto reader,
                          format::KeyedStateReader::Open(fs_, f->resolved_path, os_.states()));
    std::optional<format::KeyedRecordIterator> it;
    if (key_group_) {
      CKPT_ASSIGN_OR_RETURN(it, reader->NewKeyGroupIterator(*key_group_));
    } else {
      CKPT_ASSIGN_OR_RETURN(it, reader->NewIterator());
    }
    format::KeyedEntry e;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&e));
      if (!more) return Status::OK();
      if (Cancelled()) return Status::Cancelled("dump cancelled");
      record_ = Where{kg.file_index(), e.logical_offset,
                      VarintLength(e.record_bytes) + uint64_t{e.record_bytes}};
      Status st = EmitKeyed(e.record, e.key_group, "state", {}, 0, reader->path());
      record_.reset();
      CKPT_RETURN_IF_ERROR(st);
    }
  }

  // A subtask of the native RocksDB backend (its SSTs, and its timers in a key-groups handle),
  // key group by key group, each key group's states in declaration order: the order of a
  // canonical snapshot of the same state, so both dump alike.
  Status DumpByKeyGroup(const pb::SubtaskState& st) {
    bool any = false;
    uint32_t from = UINT32_MAX, to = 0;
    for (const auto& h : st.keyed_state()) {
      uint32_t start = 0, end = 0;
      if (!internal::KeyedStateView::Range(h, &start, &end)) continue;
      any = true;
      from = std::min(from, start);
      to = std::max(to, end);
    }
    if (!any) return Status::OK();
    if (key_group_) {
      if (*key_group_ < from || *key_group_ > to) return Status::OK();
      from = to = *key_group_;
    }
    std::vector<internal::KeyedValue> values;
    for (uint32_t g = from; g <= to; ++g) {
      if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
      values.clear();
      for (const auto& h : st.keyed_state()) CKPT_RETURN_IF_ERROR(view_.Read(h, g, &values));
      std::stable_sort(values.begin(), values.end(),
                       [](const internal::KeyedValue& a, const internal::KeyedValue& b) {
                         return a.state_index < b.state_index;
                       });
      for (const auto& v : values) {
        format::KeyedRecord r{v.state_index, v.key, v.ns, v.user_key, v.value};
        CKPT_RETURN_IF_ERROR(EmitKeyed(r, g, "state", {}, 0, s_.metadata_path));
      }
      if (g == UINT32_MAX) break;
    }
    return Status::OK();
  }

  // The values a restore would see: materialized base plus the log tail, per key group (also a
  // native RocksDB handle: its live entries).
  Status DumpReplayed(const pb::KeyedStateHandle& h) {
    uint32_t from = 0, to = 0;
    if (!internal::KeyedStateView::Range(h, &from, &to)) return Status::OK();
    if (key_group_) {
      if (*key_group_ < from || *key_group_ > to) return Status::OK();
      from = to = *key_group_;
    }
    std::vector<internal::KeyedValue> values;
    for (uint32_t g = from; g <= to; ++g) {
      if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
      values.clear();
      CKPT_RETURN_IF_ERROR(view_.Read(h, g, &values));
      for (const auto& v : values) {
        format::KeyedRecord r{v.state_index, v.key, v.ns, v.user_key, v.value};
        CKPT_RETURN_IF_ERROR(EmitKeyed(r, g, "state", {}, 0, s_.metadata_path));
      }
      if (g == UINT32_MAX) break;
    }
    return Status::OK();
  }

  Status DumpHistory(const pb::ChangelogStateHandle& cl) {
    CKPT_ASSIGN_OR_RETURN(std::vector<internal::KeyedChange> changes, view_.Changes(cl, key_group_));
    for (const auto& c : changes) {
      if (Cancelled()) return Status::Cancelled("dump cancelled");
      format::KeyedRecord r{c.entry.state_index, c.entry.key, c.entry.ns, c.entry.user_key,
                            c.entry.value};
      CKPT_RETURN_IF_ERROR(
          EmitKeyed(r, c.key_group, "changelog", ChangeOpName(c.op), c.sequence, s_.metadata_path));
    }
    return Status::OK();
  }

  Status EmitKeyed(const format::KeyedRecord& r, uint32_t key_group, std::string_view source,
                   std::string_view op, uint64_t sequence, const std::string& path) {
    if (selected_.count(r.state_index) == 0) return Status::OK();
    if (key_ && r.key != *key_) return Status::OK();
    if (skip_keyed_ > 0) {
      --skip_keyed_;
      return Status::OK();
    }
    const pb::StateDescriptor& d = os_.states(static_cast<int>(r.state_index));
    DumpEntry e = Base(std::string(source));
    e.state = d.name();
    e.kind = static_cast<StateKind>(d.kind());
    e.subtask = subtask_;
    e.key_group = key_group;
    e.change_op = std::string(op);
    e.sequence = sequence;
    SetWhere(&e);
    auto where = [&](const char* what) {
      return path + ": state '" + d.name() + "' " + what + " in key group " +
             std::to_string(key_group);
    };
    CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(d.key_type(), r.key, &e.key_json), where("key"));
    const pb::TypeDescriptor ns = d.has_namespace_type() ? d.namespace_type() : format::types::Void();
    CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(ns, r.ns, &e.namespace_json), where("namespace"));
    if (d.has_user_key_type()) {
      std::string* target = d.kind() == pb::STATE_TIMERS ? &e.timestamp_json : &e.user_key_json;
      CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(d.user_key_type(), r.user_key, target),
                               where(d.kind() == pb::STATE_TIMERS ? "timestamp" : "user key"));
    }
    if (d.kind() == pb::STATE_TIMERS || r.value.empty()) {
      e.value_json = "null";
    } else {
      // A keyed LIST snapshot record holds the whole list; a changelog append one element.
      const pb::TypeDescriptor vt = d.kind() == pb::STATE_LIST && op != "append"
                                        ? format::types::List(d.value_type())
                                        : d.value_type();
      CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(vt, r.value, &e.value_json), where("value"));
    }
    return Emit(e);
  }

  Status DumpOperatorState(const pb::OperatorStateHandle& h) {
    std::map<uint64_t, const pb::StateDescriptor*> entries;
    for (const auto& p : h.partitions()) {
      for (int i = 0; i < os_.states_size(); ++i) {
        if (os_.states(i).name() == p.state_name() && selected_.count(static_cast<uint32_t>(i))) {
          for (uint64_t off : p.entry_offsets()) entries[off] = &os_.states(i);
        }
      }
    }
    return internal::ForEachOperatorStateEntry(
        fs_, s_, h, entries, [this] { return Cancelled(); },
        [&](const std::string& path, const internal::OperatorStateEntry& entry) {
          const pb::StateDescriptor& d = *entry.state;
          DumpEntry e = Base("state");
          e.state = d.name();
          e.kind = static_cast<StateKind>(d.kind());
          e.subtask = subtask_;
          e.record_file = h.file_index();
          e.record_offset = entry.logical_offset;
          e.record_length = entry.record_length;
          if (d.kind() == pb::STATE_BROADCAST) {
            CKPT_RETURN_IF_ERROR_CTX(
                format::AppendValueJson(d.user_key_type(), entry.record.key, &e.key_json),
                path + ": state '" + d.name() + "' key");
          }
          CKPT_RETURN_IF_ERROR_CTX(
              format::AppendValueJson(d.value_type(), entry.record.value, &e.value_json),
              path + ": state '" + d.name() + "' value");
          return Emit(e);
        });
  }

  Status DumpCommittable(const pb::SinkCommittable& c) {
    DumpEntry e = Base("committable");
    e.subtask = subtask_;
    internal::JsonWriter w;
    w.BeginObject()
        .Str("pending_path", c.pending_path())
        .Str("final_path", c.final_path())
        .Uint("size_bytes", c.size_bytes())
        .Str("checksum_xxh3", base::ChecksumHex(c.checksum_xxh3()))
        .Int("checkpoint_id", c.checkpoint_id());
    if (!c.upload_id().empty()) {
      w.Str("upload_id", c.upload_id()).Key("part_etags").BeginArray();
      for (const std::string& etag : c.part_etags()) w.Str(etag);
      w.EndArray();
    }
    w.EndObject();
    e.value_json = w.str();
    return Emit(e);
  }

  // One channel-state handle: each buffer as stored, then (reference engine) its records and
  // watermarks. `input` or `output` is the handle.
  Status DumpChannel(const std::string& channel,
                     const google::protobuf::RepeatedPtrField<pb::FileSlice>& buffers,
                     const pb::InputChannelStateHandle* input,
                     const pb::ResultSubpartitionStateHandle* output) {
    uint32_t index = 0;
    std::string run;             // the handle's bytes (reference engine only)
    std::vector<size_t> starts;  // where each buffer begins in them
    for (const auto& slice : buffers) {
      if (Cancelled()) return Status::Cancelled("dump cancelled");
      CKPT_ASSIGN_OR_RETURN(std::string bytes,
                            internal::ReadChannelBuffer(fs_, s_, slice, channel, index));
      DumpEntry e = Base("channel");
      e.subtask = subtask_;
      e.channel = channel;
      e.buffer = index;
      e.value_json = HexJson(bytes);
      CKPT_RETURN_IF_ERROR(Emit(e));
      if (s_.engine_name == kReferenceEngine) {
        starts.push_back(run.size());
        run.append(bytes);
      }
      ++index;
    }
    if (s_.engine_name != kReferenceEngine) return Status::OK();
    // The logical channel's other end completes a frame split between the two (FORMAT.md §8).
    if (!peers_) peers_.emplace(RawMetadata(s_));
    CKPT_ASSIGN_OR_RETURN(internal::ChannelStream stream,
                          internal::ReadChannelStream(fs_, s_, *peers_, os_.operator_id(),
                                                      subtask_, input, output, channel,
                                                      std::move(run)));
    return DumpChannelElements(stream, starts);
  }

  // The reference engine's channel state is its stream-element frames (format/stream_element.h):
  // each record (key, value, timestamp) and watermark that begins in the handle's bytes, with
  // the index of the buffer it begins in. Other writers' buffers stay opaque (FORMAT.md).
  static constexpr const char* kReferenceEngine = "ckpt-engine";
  Status DumpChannelElements(const internal::ChannelStream& r, const std::vector<size_t>& starts) {
    const size_t origin = r.origin();
    auto where = [&](size_t at) {
      return (r.file.empty() ? s_.metadata_path : r.file) + ": subtask " +
             std::to_string(subtask_) + " " + r.Place(at);
    };
    format::Value key, value;
    int64_t timestamp = 0, watermark = 0;
    size_t failed_at = 0;
    bool element_failed = false;  // a decoding error, located already (or cancelled, emit failed)
    const base::Status st = format::ForEachStreamFrame(
        r.stream, origin, origin + r.own_bytes,
        [&](const format::StreamFrameAt& f) -> Status {
          element_failed = true;
          if (Cancelled()) return Status::Cancelled("dump cancelled");
          std::string_view element = f.element;
          base::Result<uint8_t> tag =
              format::DecodeStreamElement(&element, &key, &value, &timestamp, &watermark);
          if (!tag.ok()) return tag.status().WithContext(where(f.offset));
          if (!element.empty()) {
            return Status::Corruption(where(f.offset) + ": " + std::to_string(element.size()) +
                                      " bytes after the element in its frame");
          }
          DumpEntry e = Base(*tag == format::kRecordTag ? "channel-record" : "channel-watermark");
          e.subtask = subtask_;
          e.channel = r.channel;
          e.buffer = static_cast<uint32_t>(
              std::upper_bound(starts.begin(), starts.end(), f.offset - origin) - starts.begin() -
              1);
          if (*tag == format::kRecordTag) {
            e.key_json = format::ValueToJson(key);
            e.value_json = format::ValueToJson(value);
            if (timestamp != format::kNoElementTimestamp) {
              e.timestamp_json = std::to_string(timestamp);
            }
          } else {
            e.value_json = std::to_string(watermark);
          }
          CKPT_RETURN_IF_ERROR(Emit(e));
          element_failed = false;
          return Status::OK();
        },
        &failed_at);
    // Otherwise the stream ends inside the frame at `failed_at`.
    if (!st.ok() && !element_failed) return st.WithContext(where(failed_at));
    return st;
  }

  base::Fs& fs_;
  const Snapshot& s_;
  const OperatorInfo& info_;
  const pb::OperatorState& os_;
  const DumpSink& sink_;
  const base::Progress& progress_;
  const bool history_;
  internal::KeyedStateView view_;
  std::set<uint32_t> selected_;
  std::optional<std::string> key_;
  std::optional<uint32_t> key_group_;
  uint64_t skip_keyed_ = 0;
  bool filtered_ = false;
  uint32_t subtask_ = 0;
  uint64_t emitted_ = 0;
  uint64_t ticks_ = 0;
  std::optional<Where> record_;
  std::optional<internal::ChannelPeers> peers_;
};

// Applies the --state / --key / --key-group filters of `options` to `dumper`.
Status Filter(const Snapshot& s, const OperatorInfo& info, const pb::OperatorState& os,
              const DumpOptions& options, Dumper* dumper) {
  CKPT_RETURN_IF_ERROR(dumper->SelectState(options.state));
  if (!options.filtered()) return Status::OK();
  // The key-group hash uses the operator state's max parallelism, else the job graph's
  // (FORMAT.md "Reader notes"); with neither there is no key group to seek.
  const uint32_t max_p = os.max_parallelism() != 0 ? os.max_parallelism() : info.max_parallelism;
  if (max_p == 0 || max_p > format::kUpperBoundMaxParallelism) {
    return Status::Corruption(s.metadata_path + ": operator " + info.id_hex +
                              " has an invalid max parallelism " + std::to_string(max_p) +
                              "; its key groups cannot be located");
  }
  std::optional<uint32_t> group = options.key_group;
  if (group && *group >= max_p) {
    return Status::InvalidArgument("--key-group " + std::to_string(*group) + " is outside [0, " +
                                   std::to_string(max_p) + ")");
  }
  if (!options.key_json.empty()) {
    const pb::StateDescriptor* keyed = nullptr;
    for (const auto& d : os.states()) {
      if (format::IsKeyedStateKind(d.kind()) && (options.state.empty() || d.name() == options.state)) {
        keyed = &d;
      }
    }
    if (keyed == nullptr) {
      return Status::InvalidArgument("--key: operator " + options.operator_ref +
                                     " has no keyed state" +
                                     (options.state.empty() ? "" : " '" + options.state + "'"));
    }
    CKPT_ASSIGN_OR_RETURN(format::Value key, internal::ParseKeyJson(keyed->key_type(), options.key_json));
    CKPT_ASSIGN_OR_RETURN(std::string encoded, format::EncodeValue(keyed->key_type(), key));
    const uint32_t g = format::KeyGroupForKey(encoded, max_p);
    if (group && *group != g) {
      return Status::InvalidArgument("--key " + options.key_json + " lies in key group " +
                                     std::to_string(g) + ", not " + std::to_string(*group));
    }
    group = g;
    dumper->FilterKey(std::move(encoded));
  }
  if (group) dumper->FilterKeyGroup(*group);
  return Status::OK();
}

}  // namespace

base::Result<uint64_t> internal::DumpOwn(base::Fs& fs, const Snapshot& snapshot,
                                         const DumpOptions& options, const DumpSink& sink,
                                         const base::Progress& progress) {
  std::vector<const OperatorInfo*> targets;
  if (options.operator_ref.empty()) {
    if (options.filtered()) {
      return Status::InvalidArgument("--state, --key and --key-group need --operator");
    }
    for (const auto& op : snapshot.operators) targets.push_back(&op);
  } else {
    CKPT_ASSIGN_OR_RETURN(const OperatorInfo* op, snapshot.FindOperator(options.operator_ref));
    targets.push_back(op);
  }
  uint64_t emitted = 0;
  for (const OperatorInfo* op : targets) {
    const pb::OperatorState* os = internal::OwnOperatorState(snapshot, op->id_hex);
    if (os == nullptr) continue;  // stateless operator: nothing to dump
    Dumper dumper(fs, snapshot, *op, *os, sink, progress, options.history);
    CKPT_RETURN_IF_ERROR(Filter(snapshot, *op, *os, options, &dumper));
    dumper.SkipKeyed(options.skip_keyed_entries);
    CKPT_RETURN_IF_ERROR(dumper.DumpCoordinator());
    std::vector<const pb::SubtaskState*> subtasks;
    for (const auto& st : os->subtasks()) subtasks.push_back(&st);
    std::sort(subtasks.begin(), subtasks.end(), [](const auto* a, const auto* b) {
      return a->subtask_index() < b->subtask_index();
    });
    uint64_t done = 0;
    for (const auto* st : subtasks) {
      if (progress.cancelled()) return Status::Cancelled("dump cancelled");
      CKPT_RETURN_IF_ERROR(dumper.DumpSubtask(*st));
      progress.Report(++done, subtasks.size(), "dump");
    }
    emitted += dumper.emitted();
  }
  return emitted;
}

}  // namespace ckpt::ops
