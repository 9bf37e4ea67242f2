// stats: bytes by operator, state and key group, key-group skew and oversized union state. How
// each operator's bytes are found is its format's (SnapshotFormat::ScanOperatorStats).
#include "ckpt/ops/stats.h"

#include <algorithm>
#include <cstdio>

#include "ckpt/format/operator_id.h"
#include "formats/snapshot_format.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

void Summarize(const StatsOptions& options, const OperatorInfo& info, OperatorStats* op,
               std::vector<Finding>* findings) {
  const Location loc = OperatorLocationOf(op->name, op->uid, op->id_hex);
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
  report.metadata_own_bytes = snapshot.metadata_own_bytes();
  const auto& md = RawMetadata(snapshot);
  for (const auto& info : snapshot.operators) {
    OperatorStats op;
    op.id_hex = info.id_hex;
    op.name = info.name;
    op.uid = info.uid;
    op.uid_origin = info.uid_origin;
    op.parallelism = info.parallelism;
    op.max_parallelism = info.max_parallelism;
    op.file_bytes = info.total_bytes;
    for (const auto& os : md.operators()) {
      if (format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex() !=
          info.id_hex) {
        continue;
      }
      for (const auto& d : os.states()) {
        StateStats st;
        st.name = d.name();
        st.kind = static_cast<StateKind>(d.kind());
        op.states.push_back(std::move(st));
      }
      CKPT_RETURN_IF_ERROR(internal::FormatOf(snapshot).ScanOperatorStats(fs, snapshot, os, options,
                                                                         progress, &op));
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
