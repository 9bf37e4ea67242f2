// dump: streams one operator's keys and values, decoded through its type descriptors. Memory
// stays constant: records are rendered one at a time from the iterator's current block; with
// --key or --key-group only that key group's section is read.
#include "ckpt/ops/dump.h"

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/format/key_groups.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/format/value_json.h"
#include "flink_dump.h"
#include "flink_model.h"
#include "key_parse.h"
#include "snapshot_raw.h"

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

class Dumper {
 public:
  Dumper(base::Fs& fs, const Snapshot& s, const pb::OperatorState& os, const DumpSink& sink,
         const base::Progress& progress)
      : fs_(fs), s_(s), os_(os), sink_(sink), progress_(progress) {}

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
    return Status::OK();
  }
  void FilterKey(std::string encoded_key) { key_ = std::move(encoded_key); }
  void FilterKeyGroup(uint32_t g) { key_group_ = g; }
  uint64_t emitted() const { return emitted_; }

  Status DumpSubtask(const pb::SubtaskState& st) {
    subtask_ = st.subtask_index();
    for (const auto& h : st.keyed_state()) CKPT_RETURN_IF_ERROR(DumpKeyed(h));
    if (!key_ && !key_group_) {
      for (const auto& h : st.operator_state()) CKPT_RETURN_IF_ERROR(DumpOperatorState(h));
    }
    return Status::OK();
  }

 private:
  base::Result<std::unique_ptr<format::StateFileReader>> Open(uint32_t file_index) {
    if (file_index >= s_.files.size()) return Status::Corruption("file index out of range");
    const SnapshotFile& f = s_.files[file_index];
    if (f.resolved_path.empty()) {
      return Status::Corruption(s_.metadata_path + ": file #" + std::to_string(file_index) +
                                ": " + f.resolve_error);
    }
    return format::StateFileReader::Open(fs_, f.resolved_path);
  }

  bool Cancelled() { return (++ticks_ & 1023) == 0 && progress_.cancelled(); }

  Status DumpKeyed(const pb::KeyedStateHandle& h) {
    switch (h.handle_case()) {
      case pb::KeyedStateHandle::kKeyGroups:
        return DumpKeyGroups(h.key_groups());
      case pb::KeyedStateHandle::kChangelog:
        for (const auto& m : h.changelog().materialized()) CKPT_RETURN_IF_ERROR(DumpKeyed(m));
        for (const auto& seg : h.changelog().segments()) CKPT_RETURN_IF_ERROR(DumpChangelog(seg));
        return Status::OK();
      case pb::KeyedStateHandle::kRocksdb:
        return Status::Unimplemented(
            "dump of RocksDB native keyed state is not supported; take a canonical savepoint");
      case pb::KeyedStateHandle::HANDLE_NOT_SET:
        return Status::OK();
    }
    return Status::OK();
  }

  Status DumpKeyGroups(const pb::KeyGroupsStateHandle& kg) {
    if (key_group_ && (*key_group_ < kg.key_group_start() || *key_group_ > kg.key_group_end())) {
      return Status::OK();
    }
    CKPT_ASSIGN_OR_RETURN(auto reader, Open(kg.file_index()));
    std::unique_ptr<format::RecordIterator> it;
    if (key_group_) {
      auto sec = reader->NewSectionIterator(*key_group_);
      if (!sec.ok()) return sec.status().IsNotFound() ? Status::OK() : sec.status();
      it = std::move(sec).value();
    } else {
      CKPT_ASSIGN_OR_RETURN(it, reader->NewIterator());
    }
    format::RecordRef rec;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
      if (!more) return Status::OK();
      if (Cancelled()) return Status::Cancelled("dump cancelled");
      format::KeyedRecord r;
      if (!format::DecodeKeyedRecord(rec.bytes, &r)) {
        return Status::Corruption(reader->path() + ": malformed keyed record at logical offset " +
                                  std::to_string(rec.logical_offset));
      }
      CKPT_RETURN_IF_ERROR(EmitKeyed(r, rec.section_id, "state", {}, 0, reader->path()));
    }
  }

  Status DumpChangelog(const pb::ChangelogSegment& seg) {
    CKPT_ASSIGN_OR_RETURN(auto reader, Open(seg.slice().file_index()));
    const uint64_t end = seg.slice().offset() + seg.slice().length();
    if (seg.slice().length() == 0) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIteratorAt(seg.slice().offset(), UINT64_MAX));
    format::RecordRef rec;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
      if (!more || rec.logical_offset >= end) return Status::OK();
      if (Cancelled()) return Status::Cancelled("dump cancelled");
      format::ChangelogRecord c;
      if (!format::DecodeChangelogRecord(rec.bytes, &c)) {
        return Status::Corruption(reader->path() + ": malformed changelog record at logical offset " +
                                  std::to_string(rec.logical_offset));
      }
      if (key_group_ && c.key_group != *key_group_) continue;
      CKPT_RETURN_IF_ERROR(
          EmitKeyed(c.change, c.key_group, "changelog", ChangeOpName(c.op), c.sequence, reader->path()));
    }
  }

  Status EmitKeyed(const format::KeyedRecord& r, uint32_t key_group, std::string_view source,
                   std::string_view op, uint64_t sequence, const std::string& path) {
    if (selected_.count(r.state_index) == 0) return Status::OK();
    if (key_ && r.key != *key_) return Status::OK();
    const pb::StateDescriptor& d = os_.states(static_cast<int>(r.state_index));
    DumpEntry e;
    e.state = d.name();
    e.kind = static_cast<StateKind>(d.kind());
    e.subtask = subtask_;
    e.key_group = key_group;
    e.source = std::string(source);
    e.change_op = std::string(op);
    e.sequence = sequence;
    auto where = [&](const char* what) {
      return path + ": state '" + d.name() + "' " + what + " in key group " +
             std::to_string(key_group);
    };
    CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(d.key_type(), r.key, &e.key_json), where("key"));
    const pb::TypeDescriptor ns = d.has_namespace_type() ? d.namespace_type() : format::types::Void();
    CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(ns, r.ns, &e.namespace_json), where("namespace"));
    if (d.has_user_key_type()) {
      CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(d.user_key_type(), r.user_key, &e.user_key_json),
                               where("user key"));
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
    ++emitted_;
    return sink_(e);
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
    if (entries.empty()) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(auto reader, Open(h.file_index()));
    CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
    format::RecordRef rec;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
      if (!more) return Status::OK();
      if (Cancelled()) return Status::Cancelled("dump cancelled");
      auto found = entries.find(rec.logical_offset);
      if (found == entries.end()) continue;
      const pb::StateDescriptor& d = *found->second;
      format::OperatorRecord r;
      if (!format::DecodeOperatorRecord(rec.bytes, &r)) {
        return Status::Corruption(reader->path() + ": malformed operator-state record at logical offset " +
                                  std::to_string(rec.logical_offset));
      }
      DumpEntry e;
      e.state = d.name();
      e.kind = static_cast<StateKind>(d.kind());
      e.subtask = subtask_;
      if (d.kind() == pb::STATE_BROADCAST) {
        CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(d.user_key_type(), r.key, &e.key_json),
                                 reader->path() + ": state '" + d.name() + "' key");
      }
      CKPT_RETURN_IF_ERROR_CTX(format::AppendValueJson(d.value_type(), r.value, &e.value_json),
                               reader->path() + ": state '" + d.name() + "' value");
      ++emitted_;
      CKPT_RETURN_IF_ERROR(sink_(e));
    }
  }

  base::Fs& fs_;
  const Snapshot& s_;
  const pb::OperatorState& os_;
  const DumpSink& sink_;
  const base::Progress& progress_;
  std::set<uint32_t> selected_;
  std::optional<std::string> key_;
  std::optional<uint32_t> key_group_;
  uint32_t subtask_ = 0;
  uint64_t emitted_ = 0;
  uint64_t ticks_ = 0;
};

}  // namespace

base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                            const DumpSink& sink, const base::Progress& progress) {
  if (internal::FlinkMetadataOf(snapshot) != nullptr) {  // Apache Flink snapshot
    return internal::DumpFlink(fs, snapshot, options, sink, progress);
  }
  CKPT_ASSIGN_OR_RETURN(const OperatorInfo* op, snapshot.FindOperator(options.operator_ref));
  const pb::OperatorState* os = nullptr;
  for (const auto& candidate : RawMetadata(snapshot).operators()) {
    if (format::OperatorId::FromBytes(candidate.operator_id()).ValueOr(format::OperatorId()).ToHex() ==
        op->id_hex) {
      os = &candidate;
    }
  }
  if (os == nullptr) return uint64_t{0};  // stateless operator: nothing to dump
  Dumper dumper(fs, snapshot, *os, sink, progress);
  CKPT_RETURN_IF_ERROR(dumper.SelectState(options.state));
  std::optional<uint32_t> group = options.key_group;
  if (group && *group >= os->max_parallelism()) {
    return Status::InvalidArgument("--key-group " + std::to_string(*group) + " is outside [0, " +
                                   std::to_string(os->max_parallelism()) + ")");
  }
  if (!options.key_json.empty()) {
    const pb::StateDescriptor* keyed = nullptr;
    for (const auto& d : os->states()) {
      if (IsKeyedStateKind(static_cast<StateKind>(d.kind()))) keyed = &d;
    }
    if (keyed == nullptr) {
      return Status::InvalidArgument("--key: operator " + options.operator_ref +
                                     " has no keyed state");
    }
    CKPT_ASSIGN_OR_RETURN(format::Value key, internal::ParseKeyJson(keyed->key_type(), options.key_json));
    CKPT_ASSIGN_OR_RETURN(std::string encoded, format::EncodeValue(keyed->key_type(), key));
    const uint32_t g = format::KeyGroupForKey(encoded, os->max_parallelism());
    if (group && *group != g) {
      return Status::InvalidArgument("--key " + options.key_json + " lies in key group " +
                                     std::to_string(g) + ", not " + std::to_string(*group));
    }
    group = g;
    dumper.FilterKey(std::move(encoded));
  }
  if (group) dumper.FilterKeyGroup(*group);
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
  return dumper.emitted();
}

}  // namespace ckpt::ops
