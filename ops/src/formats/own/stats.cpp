// stats of a snapshot of our format: key-group sizes from container footers (no record reads);
// per-state sizes and the largest keys stream the records once (one block and one key group's
// keys in memory; values are never decoded, keys only for the listed ones).
#include "formats/own/own_format.h"

#include <map>
#include <set>
#include <vector>

#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_json.h"
#include "formats/own/engine_rocksdb.h"
#include "formats/own/keyed_replay.h"
#include "read/key_tally.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;

class OwnOperatorScanner {
 public:
  OwnOperatorScanner(base::Fs& fs, const Snapshot& s, const pb::OperatorState& os,
                     const StatsOptions& options, const base::Progress& progress,
                     OperatorStats* out)
      : fs_(fs),
        s_(s),
        os_(os),
        options_(options),
        progress_(progress),
        out_(out),
        tally_(out->states.size(), options.top_keys),
        view_(fs, s, os) {}

  Status Scan() {
    for (const auto& st : os_.subtasks()) {
      for (const auto& h : st.keyed_state()) CKPT_RETURN_IF_ERROR(ScanKeyed(h));
      for (const auto& h : st.operator_state()) CKPT_RETURN_IF_ERROR(ScanOperator(h));
    }
    for (const auto& [g, kg] : groups_) out_->key_groups.push_back(kg);
    if (options_.per_state) Apportion();
    if (tally_.enabled()) return RankKeys();
    return Status::OK();
  }

 private:
  // Each state's share of a file's on-disk bytes is its share of the file's logical record
  // bytes (docs/sizes.md), so the states of an operator never add up to more than it.
  void Apportion() {
    for (const auto& [index, logical] : per_file_) {
      const uint64_t size = s_.files[index].size_bytes;
      uint64_t total = 0;
      for (uint64_t b : logical) total += b;
      if (total == 0) continue;
      const bool checkpointed = IsCheckpointedFile(s_.files[index], s_.checkpoint_id);
      for (size_t i = 0; i < logical.size(); ++i) {
        // long double keeps 64 bits of mantissa: exact for any realistic size.
        const auto share = static_cast<uint64_t>(static_cast<long double>(size) *
                                                 static_cast<long double>(logical[i]) /
                                                 static_cast<long double>(total));
        out_->states[i].file_bytes += share;
        if (checkpointed) out_->states[i].checkpointed_file_bytes += share;
      }
    }
  }

  Status CheckIndex(uint32_t index) {
    if (index >= s_.files.size() || s_.files[index].resolved_path.empty()) {
      return Status::Corruption(s_.metadata_path + ": file #" + std::to_string(index) +
                                " cannot be resolved");
    }
    if (progress_.cancelled()) return Status::Cancelled("stats cancelled");
    progress_.Report(0, 0, s_.files[index].path);
    return Status::OK();
  }

  std::vector<uint64_t>* FileShare(uint32_t index) {
    auto& v = per_file_[index];
    v.resize(out_->states.size());
    return &v;
  }

  // The serialized bytes of one keyed entry that --top-keys attributes to its key.
  static uint64_t EntryBytes(std::string_view key, std::string_view ns, std::string_view user_key,
                             std::string_view value) {
    return key.size() + ns.size() + user_key.size() + value.size();
  }

  // Decodes the ranked keys with their state's key type, as dump prints them.
  Status Decode(const std::vector<KeyTally::Ranked>& ranked, std::vector<KeySize>* out) {
    for (const auto& r : ranked) {
      KeySize k{"", r.key_group, r.bytes, r.entries};
      const Status st = format::AppendValueJson(os_.states(static_cast<int>(r.state)).key_type(),
                                                r.key, &k.key_json);
      if (!st.ok()) {
        return Status::Corruption(s_.metadata_path + ": operator " + out_->id_hex + ", state '" +
                                  os_.states(static_cast<int>(r.state)).name() +
                                  "': a key of key group " + std::to_string(r.key_group) +
                                  " does not decode as its key type: " + st.message());
      }
      out->push_back(std::move(k));
    }
    return Status::OK();
  }

  Status RankKeys() {
    tally_.CloseAll();
    for (size_t i = 0; i < out_->states.size(); ++i) {
      CKPT_RETURN_IF_ERROR(Decode(tally_.State(i), &out_->states[i].largest_keys));
    }
    return Decode(tally_.Operator(), &out_->largest_keys);
  }

  // The replayed entries of a changelog handle (what a restore sees, as dump shows them), one key
  // group at a time.
  Status TallyChangelog(const pb::KeyedStateHandle& h) {
    uint32_t start = 0, end = 0;
    if (!KeyedStateView::Range(h, &start, &end)) return Status::OK();
    std::vector<KeyedValue> values;
    for (uint32_t g = start; g <= end; ++g) {
      if (progress_.cancelled()) return Status::Cancelled("stats cancelled");
      values.clear();
      CKPT_RETURN_IF_ERROR(view_.Read(h, g, &values));
      for (const auto& v : values) {
        tally_.Add(v.state_index, g, v.key, EntryBytes(v.key, v.ns, v.user_key, v.value));
      }
      tally_.CloseAll();
    }
    return Status::OK();
  }

  Status ScanKeyed(const pb::KeyedStateHandle& h) {
    if (h.has_changelog()) {
      if (tally_.enabled() && !in_changelog_) CKPT_RETURN_IF_ERROR(TallyChangelog(h));
      // The materialized base is ranked through the replay above, not record by record.
      const bool outer = in_changelog_;
      in_changelog_ = true;
      for (const auto& m : h.changelog().materialized()) {
        const Status st = ScanKeyed(m);
        if (!st.ok()) {
          in_changelog_ = outer;
          return st;
        }
      }
      in_changelog_ = outer;
      if (!options_.per_state) return Status::OK();
      for (const auto& seg : h.changelog().segments()) {
        CKPT_RETURN_IF_ERROR(ScanChangelog(seg.slice().file_index()));
      }
      return Status::OK();
    }
    if (h.has_rocksdb()) return ScanRocksDb(h.rocksdb());
    if (!h.has_key_groups()) return Status::OK();
    const uint32_t index = h.key_groups().file_index();
    // A file shared by several handles (or checkpoints) is counted once.
    if (!scanned_.insert(index).second) return Status::OK();
    CKPT_RETURN_IF_ERROR(CheckIndex(index));
    CKPT_ASSIGN_OR_RETURN(auto reader, format::KeyedStateReader::Open(
                                           fs_, s_.files[index].resolved_path, os_.states()));
    for (const auto& sec : reader->container().index().sections) {
      if (sec.record_count == 0) continue;
      KeyGroupStats& kg = groups_[sec.section_id];
      kg.key_group = sec.section_id;
      kg.bytes += sec.length;
      kg.records += sec.record_count;
      out_->keyed_logical_bytes += sec.length;
    }
    const bool tally = tally_.enabled() && !in_changelog_;
    if (!options_.per_state && !tally) return Status::OK();
    std::vector<uint64_t>* share = options_.per_state ? FileShare(index) : nullptr;
    CKPT_ASSIGN_OR_RETURN(format::KeyedRecordIterator it, reader->NewIterator());
    format::KeyedEntry e;
    uint64_t n = 0;
    uint32_t open_group = UINT32_MAX;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it.Next(&e));
      if (!more) break;
      if ((++n & 4095) == 0 && progress_.cancelled()) return Status::Cancelled("stats cancelled");
      if (share != nullptr) {
        out_->states[e.record.state_index].entries += 1;
        out_->states[e.record.state_index].bytes += e.record_bytes;
        (*share)[e.record.state_index] += e.record_bytes;
      }
      if (tally) {
        // Sections come in key-group order: a finished key group is ranked and forgotten.
        if (e.key_group != open_group) {
          tally_.CloseAllBut(e.key_group);
          open_group = e.key_group;
        }
        const format::KeyedRecord& r = e.record;
        tally_.Add(r.state_index, e.key_group, r.key, EntryBytes(r.key, r.ns, r.user_key, r.value));
      }
    }
    if (tally) tally_.CloseAll();
    return Status::OK();
  }

  // A native RocksDB handle (engine_rocksdb.h): its live entries counted as the canonical
  // records they would be; the SST and meta files' bytes go to the states in proportion.
  Status ScanRocksDb(const pb::RocksDbStateHandle& h) {
    if (h.sst_files_size() > 0 && scanned_.count(h.sst_files(0).file_index()) != 0) {
      return Status::OK();
    }
    for (const auto& f : h.sst_files()) CKPT_RETURN_IF_ERROR(CheckIndex(f.file_index()));
    std::map<uint32_t, std::vector<KeyedValue>> groups;
    CKPT_RETURN_IF_ERROR(ReadEngineRocksDb(fs_, s_, os_, h, &groups));
    std::vector<uint64_t> logical(out_->states.size(), 0);
    std::string record;
    for (const auto& [g, values] : groups) {
      KeyGroupStats& kg = groups_[g];
      kg.key_group = g;
      for (const auto& v : values) {
        record.clear();
        format::EncodeKeyedRecord({v.state_index, v.key, v.ns, v.user_key, v.value}, &record);
        // A section's logical bytes count each record's length prefix too.
        uint64_t logical_size = record.size() + 1;
        for (uint64_t n = record.size(); n >= 0x80; n >>= 7) ++logical_size;
        kg.bytes += logical_size;
        kg.records += 1;
        out_->keyed_logical_bytes += logical_size;
        out_->states[v.state_index].entries += 1;
        out_->states[v.state_index].bytes += record.size();
        logical[v.state_index] += record.size();
        if (!in_changelog_) {
          tally_.Add(v.state_index, g, v.key, EntryBytes(v.key, v.ns, v.user_key, v.value));
        }
      }
      tally_.CloseAll();
    }
    auto share = [&](uint32_t index) {
      if (!scanned_.insert(index).second) return;
      *FileShare(index) = logical;
    };
    for (const auto& f : h.sst_files()) share(f.file_index());
    for (const auto& f : h.meta_files()) share(f.file_index());
    return Status::OK();
  }

  // A changelog file's bytes go to the states its changes name (entries count only what the
  // materialized base holds: changes are not entries).
  Status ScanChangelog(uint32_t index) {
    if (!scanned_.insert(index).second) return Status::OK();
    CKPT_RETURN_IF_ERROR(CheckIndex(index));
    CKPT_ASSIGN_OR_RETURN(auto reader,
                          format::StateFileReader::Open(fs_, s_.files[index].resolved_path));
    std::vector<uint64_t>* share = FileShare(index);
    CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
    format::RecordRef rec;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
      if (!more) return Status::OK();
      format::ChangelogRecord c;
      if (!format::DecodeChangelogRecord(rec.bytes, &c) ||
          c.change.state_index >= out_->states.size()) {
        return Status::Corruption(reader->path() + ": malformed changelog record at logical "
                                  "offset " + std::to_string(rec.logical_offset));
      }
      (*share)[c.change.state_index] += rec.bytes.size();
    }
  }

  Status ScanOperator(const pb::OperatorStateHandle& h) {
    std::map<uint64_t, size_t> entry_state;
    for (const auto& p : h.partitions()) {
      for (size_t i = 0; i < out_->states.size(); ++i) {
        if (out_->states[i].name != p.state_name()) continue;
        out_->states[i].entries += static_cast<uint64_t>(p.entry_offsets_size());
        for (uint64_t off : p.entry_offsets()) entry_state[off] = i;
      }
    }
    if (!options_.per_state || entry_state.empty()) return Status::OK();
    if (!scanned_.insert(h.file_index()).second) return Status::OK();
    CKPT_RETURN_IF_ERROR(CheckIndex(h.file_index()));
    CKPT_ASSIGN_OR_RETURN(auto reader,
                          format::StateFileReader::Open(fs_, s_.files[h.file_index()].resolved_path));
    std::vector<uint64_t>* share = FileShare(h.file_index());
    CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
    format::RecordRef rec;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
      if (!more) return Status::OK();
      auto found = entry_state.find(rec.logical_offset);
      if (found != entry_state.end()) {
        out_->states[found->second].bytes += rec.bytes.size();
        (*share)[found->second] += rec.bytes.size();
      }
    }
  }

  base::Fs& fs_;
  const Snapshot& s_;
  const pb::OperatorState& os_;
  const StatsOptions& options_;
  const base::Progress& progress_;
  OperatorStats* out_;
  std::map<uint32_t, KeyGroupStats> groups_;
  std::set<uint32_t> scanned_;                          // file indexes already read
  std::map<uint32_t, std::vector<uint64_t>> per_file_;  // file -> logical bytes per state
  KeyTally tally_;                                      // --top-keys
  KeyedStateView view_;  // replays changelog handles for --top-keys
  bool in_changelog_ = false;  // scanning a changelog handle's materialized base
};

}  // namespace

base::Status ScanOwnOperatorStats(base::Fs& fs, const Snapshot& snapshot,
                                  const pb::OperatorState& state, const StatsOptions& options,
                                  const base::Progress& progress, OperatorStats* out) {
  return OwnOperatorScanner(fs, snapshot, state, options, progress, out).Scan();
}

}  // namespace ckpt::ops::internal
