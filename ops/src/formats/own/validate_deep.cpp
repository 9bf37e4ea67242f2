// validate --deep: decodes every record of a container with the declared types of the state it
// belongs to, and checks each keyed record's key hashes to the key group it is stored under.
// Streams one block at a time. Findings are aggregated per (file, rule): the first occurrence
// is located exactly and the message counts the rest, so a damaged file does not flood reports.
#include <map>
#include <set>

#include "ckpt/format/key_groups.h"
#include "ckpt/format/records.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/format/operator_id.h"
#include "formats/own/engine_rocksdb.h"
#include "model/snapshot_raw.h"
#include "formats/own/validate_groups.h"

namespace ckpt::ops::internal {
namespace {

// True if `bytes` holds exactly one value of `type`.
bool DecodesExactly(const pb::TypeDescriptor& type, std::string_view bytes) {
  std::string_view in = bytes;
  return format::SkipValue(type, &in).ok() && in.empty();
}

class Tally {
 public:
  void Note(const std::string& rule, const Location& where, std::string message) {
    auto [it, inserted] = entries_.try_emplace(rule);
    if (inserted) {
      it->second.where = where;
      it->second.message = std::move(message);
    }
    ++it->second.count;
  }
  void Flush(ValidateContext& ctx) {
    for (auto& [rule, e] : entries_) {
      std::string msg = e.message;
      if (e.count > 1) msg += " (and " + std::to_string(e.count - 1) + " more in this file)";
      ctx.Add(rule, e.where, std::move(msg));
    }
  }

 private:
  struct Entry {
    Location where;
    std::string message;
    uint64_t count = 0;
  };
  std::map<std::string, Entry> entries_;
};

// The value type a keyed record stores for a state of `kind` (a keyed LIST record holds the
// whole list).
pb::TypeDescriptor KeyedValueType(const pb::StateDescriptor& d) {
  if (d.kind() == pb::STATE_LIST) return format::types::List(d.value_type());
  return d.value_type();
}

// Checks one keyed record (or a changelog change) against the declared states.
// `element_value` selects the element type instead of the record type (a changelog list append
// carries one element). Locations are built only for findings: this runs once per record.
void CheckKeyedRecord(const format::KeyedRecord& r, const pb::OperatorState& os,
                      const std::vector<pb::TypeDescriptor>& value_types, uint32_t key_group,
                      bool value_may_be_empty, bool element_value, const Location& file_at,
                      Tally* tally) {
  auto at_group = [&file_at, key_group] {
    Location l = file_at;
    l.key_group = key_group;
    return l;
  };
  if (r.state_index >= static_cast<uint32_t>(os.states_size())) {
    tally->Note("CKPT-D002", at_group(),
                "record names state index " + std::to_string(r.state_index) + ", only " +
                    std::to_string(os.states_size()) + " state(s) are declared");
    return;
  }
  const pb::StateDescriptor& d = os.states(static_cast<int>(r.state_index));
  // Built only for a finding: this runs once per record on the hot path.
  auto where = [&d] { return "state '" + d.name() + "': "; };
  if (!DecodesExactly(d.key_type(), r.key)) {
    tally->Note("CKPT-D001", at_group(), where() + "key does not decode as " + format::TypeName(d.key_type()));
    return;
  }
  // A reference, not a copy: this runs once per record.
  static const pb::TypeDescriptor kVoid = format::types::Void();
  const pb::TypeDescriptor& ns = d.has_namespace_type() ? d.namespace_type() : kVoid;
  if (!DecodesExactly(ns, r.ns)) {
    tally->Note("CKPT-D001", at_group(), where() + "namespace does not decode as " + format::TypeName(ns));
    return;
  }
  if (d.has_user_key_type() && !DecodesExactly(d.user_key_type(), r.user_key)) {
    tally->Note("CKPT-D001", at_group(),
                where() + "user key does not decode as " + format::TypeName(d.user_key_type()));
    return;
  }
  const bool timers = d.kind() == pb::STATE_TIMERS;
  const pb::TypeDescriptor& value_type =
      element_value ? d.value_type() : value_types[r.state_index];
  if (timers ? !r.value.empty()
             : !(value_may_be_empty && r.value.empty()) &&
                   !DecodesExactly(value_type, r.value)) {
    tally->Note("CKPT-D001", at_group(),
                where() + "value does not decode as " +
                    (timers ? std::string("void") : format::TypeName(value_type)));
    return;
  }
  const uint32_t want = format::KeyGroupForKey(r.key, os.max_parallelism());
  if (want != key_group) {
    tally->Note("CKPT-K005", at_group(),
                where() + "a key of key group " + std::to_string(want) +
                    " is stored under key group " + std::to_string(key_group));
  }
}

}  // namespace

base::Status DeepCheckContainer(ValidateContext& ctx, const Snapshot& snapshot,
                                const SnapshotFile& f, const format::StateFileReader& reader,
                                const std::multimap<uint32_t, FileUse>& uses,
                                bool block_damage_reported) {
  (void)snapshot;
  const auto range = uses.equal_range(f.index);
  if (range.first == range.second) return base::Status::OK();
  const FileUse& use = range.first->second;
  if (use.op == nullptr) return base::Status::OK();
  const pb::OperatorState& os = *use.op;
  if (os.max_parallelism() == 0) return base::Status::OK();  // CKPT-T003 reports it
  std::vector<pb::TypeDescriptor> value_types;
  for (const auto& d : os.states()) value_types.push_back(KeyedValueType(d));

  // Operator state: which entry offsets belong to which state.
  std::map<uint64_t, const pb::StateDescriptor*> entry_state;
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.operator_handle == nullptr) continue;
    for (const auto& p : it->second.operator_handle->partitions()) {
      const pb::StateDescriptor* d = nullptr;
      for (const auto& s : os.states()) {
        if (s.name() == p.state_name()) d = &s;
      }
      for (uint64_t off : p.entry_offsets()) entry_state[off] = d;
    }
  }

  Tally tally;
  Location at = UseLocation(use, f);
  auto opened = reader.NewIterator();
  if (!opened.ok()) {
    if (opened.status().code() != base::StatusCode::kCorruption) return opened.status();
    if (!block_damage_reported) tally.Note("CKPT-F006", at, opened.status().message());
    tally.Flush(ctx);
    return base::Status::OK();
  }
  std::unique_ptr<format::RecordIterator> iter = std::move(opened).value();
  format::RecordRef rec;
  uint64_t n = 0;
  std::set<uint64_t> seen_entries;
  while (true) {
    auto more = iter->Next(&rec);
    if (!more.ok()) {
      // Block damage: the rest of the file cannot be decoded. Report it unless the checksum
      // pass already located it.
      if (!block_damage_reported) tally.Note("CKPT-F006", at, more.status().message());
      break;
    }
    if (!*more) break;
    if ((++n & 4095) == 0 && ctx.progress().cancelled()) {
      return base::Status::Cancelled("validate --deep cancelled");
    }
    switch (f.kind) {
      case FileKind::kKeyedState: {
        format::KeyedRecord r;
        if (!format::DecodeKeyedRecord(rec.bytes, &r)) {
          Location l = at;
          l.key_group = rec.section_id;
          tally.Note("CKPT-D001", l,
                     "malformed keyed record at logical offset " + std::to_string(rec.logical_offset));
          break;
        }
        CheckKeyedRecord(r, os, value_types, rec.section_id, false, false, at, &tally);
        break;
      }
      case FileKind::kChangelog: {
        format::ChangelogRecord c;
        if (!format::DecodeChangelogRecord(rec.bytes, &c)) {
          tally.Note("CKPT-D001", at,
                     "malformed changelog record at logical offset " +
                         std::to_string(rec.logical_offset));
          break;
        }
        const bool may_be_empty = c.op == format::ChangeOp::kDelete || c.op == format::ChangeOp::kClear;
        CheckKeyedRecord(c.change, os, value_types, c.key_group, may_be_empty,
                         c.op == format::ChangeOp::kAppend, at, &tally);
        break;
      }
      case FileKind::kOperatorState: {
        format::OperatorRecord r;
        if (!format::DecodeOperatorRecord(rec.bytes, &r)) {
          tally.Note("CKPT-D001", at,
                     "malformed operator-state record at logical offset " +
                         std::to_string(rec.logical_offset));
          break;
        }
        auto it = entry_state.find(rec.logical_offset);
        if (it == entry_state.end() || it->second == nullptr) break;
        seen_entries.insert(rec.logical_offset);
        const pb::StateDescriptor& d = *it->second;
        if (!DecodesExactly(d.value_type(), r.value) ||
            (d.kind() == pb::STATE_BROADCAST && !DecodesExactly(d.user_key_type(), r.key))) {
          tally.Note("CKPT-D001", at,
                     "state '" + d.name() + "': entry at logical offset " +
                         std::to_string(rec.logical_offset) + " does not decode as " +
                         format::TypeName(d.value_type()));
        }
        break;
      }
      default:
        break;  // channel state is opaque bytes
    }
  }
  for (const auto& [off, d] : entry_state) {
    if (seen_entries.count(off) == 0 && d != nullptr) {
      tally.Note("CKPT-D003", at,
                 "state '" + d->name() + "': no record starts at entry offset " +
                     std::to_string(off));
    }
  }
  ctx.report().records_checked += n;
  tally.Flush(ctx);
  return base::Status::OK();
}

namespace {

// One native RocksDB handle (directly, or as a changelog's materialized base): every live entry
// decoded as the canonical record it stands for.
base::Status DeepCheckRocksDbHandle(ValidateContext& ctx, const Snapshot& snapshot,
                                    const pb::OperatorState& os, const pb::RocksDbStateHandle& h,
                                    Location at) {
  if (h.sst_files_size() > 0 && h.sst_files(0).file_index() < snapshot.files.size()) {
    at.file = PathFromSnapshot(snapshot.files[h.sst_files(0).file_index()]);
  }
  std::map<uint32_t, std::vector<KeyedValue>> groups;
  const base::Status read = ReadEngineRocksDb(ctx.fs(), snapshot, os, h, &groups);
  if (read.code() == base::StatusCode::kUnimplemented) {
    ctx.NotChecked("CKPT-D001", at, read.message());
    return base::Status::OK();
  }
  if (read.code() == base::StatusCode::kIOError) return read;
  if (!read.ok()) {
    ctx.Add("CKPT-D001", at, read.message());
    return base::Status::OK();
  }
  std::vector<pb::TypeDescriptor> value_types;
  for (const auto& d : os.states()) value_types.push_back(KeyedValueType(d));
  Tally tally;
  uint64_t n = 0;
  for (const auto& [g, values] : groups) {
    if (g < h.key_group_start() || g > h.key_group_end()) {
      Location l = at;
      l.key_group = g;
      tally.Note("CKPT-K006", l,
                 "the RocksDB instance holds " + std::to_string(values.size()) +
                     " live entries of key group " + std::to_string(g) + ", outside the handle's " +
                     std::to_string(h.key_group_start()) + "-" + std::to_string(h.key_group_end()));
    }
    for (const auto& v : values) {
      if ((++n & 4095) == 0 && ctx.progress().cancelled()) {
        return base::Status::Cancelled("validate --deep cancelled");
      }
      const format::KeyedRecord r{v.state_index, v.key, v.ns, v.user_key, v.value};
      CheckKeyedRecord(r, os, value_types, g, false, false, at, &tally);
    }
  }
  ctx.report().records_checked += n;
  tally.Flush(ctx);
  return base::Status::OK();
}

}  // namespace

base::Status DeepCheckRocksDb(ValidateContext& ctx, const Snapshot& snapshot) {
  for (const pb::OperatorState& os : RawMetadata(snapshot).operators()) {
    if (os.max_parallelism() == 0) continue;  // CKPT-T003 reports it
    Location base_at;
    base_at.operator_id =
        format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex();
    for (const auto& info : snapshot.operators) {
      if (info.id_hex == base_at.operator_id) base_at = OperatorLocation(info);
    }
    for (const auto& st : os.subtasks()) {
      Location at = base_at;
      at.subtask = st.subtask_index();
      for (const auto& h : st.keyed_state()) {
        if (h.has_rocksdb()) {
          CKPT_RETURN_IF_ERROR(DeepCheckRocksDbHandle(ctx, snapshot, os, h.rocksdb(), at));
        } else if (h.has_changelog()) {
          for (const auto& m : h.changelog().materialized()) {
            if (!m.has_rocksdb()) continue;
            CKPT_RETURN_IF_ERROR(DeepCheckRocksDbHandle(ctx, snapshot, os, m.rocksdb(), at));
          }
        }
      }
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
