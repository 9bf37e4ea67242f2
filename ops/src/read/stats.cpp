// stats: bytes by operator, state and key group, key-group skew and oversized union state.
// Key-group sizes come from container footers (no record reads); per-state sizes stream the
// records once (one block in memory).
#include "ckpt/ops/stats.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "formats/own/engine_rocksdb.h"
#include "formats/flink/model.h"
#include "formats/flink/stats.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

using base::Status;

class OperatorScanner {
 public:
  OperatorScanner(base::Fs& fs, const Snapshot& s, const pb::OperatorState& os,
                  const StatsOptions& options, const base::Progress& progress, OperatorStats* out)
      : fs_(fs), s_(s), os_(os), options_(options), progress_(progress), out_(out) {
    for (const auto& d : os.states()) {
      out_->states.push_back({d.name(), static_cast<StateKind>(d.kind()), 0, 0});
    }
  }

  Status Scan() {
    if (const flink::Metadata* fl = internal::FlinkMetadataOf(s_)) {  // Apache Flink snapshot
      CKPT_RETURN_IF_ERROR(internal::ScanFlinkOperator(*fl, out_->id_hex, &groups_, out_));
      CKPT_RETURN_IF_ERROR(internal::CountFlinkKeyedEntries(fs_, s_, out_->id_hex, &groups_, out_, progress_));
      for (const auto& [g, kg] : groups_) out_->key_groups.push_back(kg);
      return Status::OK();
    }
    for (const auto& st : os_.subtasks()) {
      for (const auto& h : st.keyed_state()) CKPT_RETURN_IF_ERROR(ScanKeyed(h));
      for (const auto& h : st.operator_state()) CKPT_RETURN_IF_ERROR(ScanOperator(h));
    }
    for (const auto& [g, kg] : groups_) out_->key_groups.push_back(kg);
    if (options_.per_state) Apportion();
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

  Status ScanKeyed(const pb::KeyedStateHandle& h) {
    if (h.has_changelog()) {
      for (const auto& m : h.changelog().materialized()) CKPT_RETURN_IF_ERROR(ScanKeyed(m));
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
    if (!options_.per_state) return Status::OK();
    std::vector<uint64_t>* share = FileShare(index);
    CKPT_ASSIGN_OR_RETURN(format::KeyedRecordIterator it, reader->NewIterator());
    format::KeyedEntry e;
    uint64_t n = 0;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it.Next(&e));
      if (!more) return Status::OK();
      if ((++n & 4095) == 0 && progress_.cancelled()) return Status::Cancelled("stats cancelled");
      out_->states[e.record.state_index].entries += 1;
      out_->states[e.record.state_index].bytes += e.record_bytes;
      (*share)[e.record.state_index] += e.record_bytes;
    }
  }

  // A native RocksDB handle (engine_rocksdb.h): its live entries counted as the canonical
  // records they would be; the SST and meta files' bytes go to the states in proportion.
  Status ScanRocksDb(const pb::RocksDbStateHandle& h) {
    if (h.sst_files_size() > 0 && scanned_.count(h.sst_files(0).file_index()) != 0) {
      return Status::OK();
    }
    for (const auto& f : h.sst_files()) CKPT_RETURN_IF_ERROR(CheckIndex(f.file_index()));
    std::map<uint32_t, std::vector<internal::KeyedValue>> groups;
    CKPT_RETURN_IF_ERROR(internal::ReadEngineRocksDb(fs_, s_, os_, h, &groups));
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
      }
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
};

void Summarize(const StatsOptions& options, const OperatorInfo& info, OperatorStats* op,
               std::vector<Finding>* findings) {
  Location loc;
  loc.operator_id = op->id_hex;
  loc.operator_name = op->uid.empty() ? op->name : op->uid;
  if (!op->key_groups.empty()) {
    std::vector<uint64_t> sizes;
    for (const auto& kg : op->key_groups) sizes.push_back(kg.bytes);
    std::sort(sizes.begin(), sizes.end());
    op->median_key_group_bytes = sizes[sizes.size() / 2];
    std::vector<KeyGroupStats> by_size = op->key_groups;
    std::sort(by_size.begin(), by_size.end(), [](const KeyGroupStats& a, const KeyGroupStats& b) {
      return a.bytes != b.bytes ? a.bytes > b.bytes : a.key_group < b.key_group;
    });
    by_size.resize(std::min<size_t>(by_size.size(), options.top_key_groups));
    op->largest_key_groups = by_size;
    if (op->median_key_group_bytes > 0) {
      op->skew = static_cast<double>(by_size.front().bytes) /
                 static_cast<double>(op->median_key_group_bytes);
    }
    // Skew needs enough groups to mean anything.
    if (op->key_groups.size() >= 4 && op->skew > options.skew_factor) {
      Location l = loc;
      l.key_group = by_size.front().key_group;
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.1f", op->skew);
      findings->push_back({"CKPT-S001", Severity::kWarning, l,
                           "key group " + std::to_string(by_size.front().key_group) + " holds " +
                               std::to_string(by_size.front().bytes) + " bytes, " + ratio +
                               "x the median of " + std::to_string(op->median_key_group_bytes),
                           "A few hot keys dominate; rescaling will not spread them. Consider "
                           "key salting."});
    }
  }
  for (const auto& st : op->states) {
    if (st.kind != StateKind::kOperatorUnion || info.parallelism == 0) continue;
    const double per_subtask = static_cast<double>(st.entries) / info.parallelism;
    if (per_subtask > options.union_factor * info.parallelism) {
      findings->push_back({"CKPT-S002", Severity::kWarning, loc,
                           "union state '" + st.name + "' has " + std::to_string(st.entries) +
                               " entries at parallelism " + std::to_string(info.parallelism) +
                               "; every subtask receives all of them on restore",
                           "Prefer list (split) state; union state grows with parallelism "
                           "squared."});
    }
  }
}

}  // namespace

base::Result<StatsReport> ComputeStats(base::Fs& fs, const Snapshot& snapshot,
                                       const StatsOptions& options,
                                       const base::Progress& progress) {
  StatsReport report;
  report.total_file_bytes = snapshot.full_size_bytes;
  const auto& md = RawMetadata(snapshot);
  for (const auto& info : snapshot.operators) {
    OperatorStats op;
    op.id_hex = info.id_hex;
    op.name = info.name;
    op.uid = info.uid;
    op.parallelism = info.parallelism;
    op.max_parallelism = info.max_parallelism;
    op.file_bytes = info.total_bytes;
    for (const auto& os : md.operators()) {
      if (format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex() !=
          info.id_hex) {
        continue;
      }
      OperatorScanner scanner(fs, snapshot, os, options, progress, &op);
      CKPT_RETURN_IF_ERROR(scanner.Scan());
    }
    Summarize(options, info, &op, &report.findings);
    report.operators.push_back(std::move(op));
  }
  InFlightByEdge in_flight = ComputeInFlightByEdge(snapshot);
  report.in_flight = std::move(in_flight.edges);
  report.unattributed_in_flight_bytes = in_flight.unattributed_bytes;
  SortFindings(&report.findings);
  return report;
}

}  // namespace ckpt::ops
