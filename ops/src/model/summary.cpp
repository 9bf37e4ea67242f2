// Summarize: validate's cheap rules and the size model, for the inspector's summary page.
#include "ckpt/ops/summary.h"

#include <algorithm>

#include "ckpt/ops/validate.h"
#include "ckpt/ops/operator_label.h"

namespace ckpt::ops {

base::Result<SummaryReport> Summarize(base::Fs& fs, const Snapshot& snapshot,
                                      const StatsReport* stats, const base::Progress& progress) {
  SummaryReport r;
  r.full_size_bytes = snapshot.full_size_bytes;
  r.checkpointed_size_bytes = snapshot.checkpointed_size_bytes;
  r.file_count = snapshot.files.size();
  r.operator_count = snapshot.operators.size();
  r.subtask_state_count = snapshot.subtask_state_count();
  ValidateOptions options;
  options.verify_checksums = false;
  CKPT_ASSIGN_OR_RETURN(ValidateReport report, Validate(fs, snapshot.dir, options, progress));
  r.warnings = std::move(report.findings);
  r.checked_rules = std::move(report.checked_rules);
  if (stats != nullptr) {
    r.warnings.insert(r.warnings.end(), stats->findings.begin(), stats->findings.end());
    for (const auto& f : stats->findings) r.checked_rules.push_back(f.rule_id);
  }
  SortFindings(&r.warnings);
  std::sort(r.checked_rules.begin(), r.checked_rules.end());
  r.checked_rules.erase(std::unique(r.checked_rules.begin(), r.checked_rules.end()),
                        r.checked_rules.end());
  for (const auto& op : snapshot.operators) {
    // Only where the metadata says so (Flink's does not record whether an ID came from a uid).
    if (op.uid.empty() && op.has_state && op.uid_origin == UidOrigin::kRecorded) {
      r.notes.push_back("operator " + OperatorLabel(op.name, op.uid, op.id_hex) +
                        " has no uid: its ID comes from the topology and changes with the job's "
                        "structure");
    }
  }
  for (const auto& op : snapshot.operators) {
    r.largest_operators.push_back({op.id_hex,
                                   OperatorLabel(op.name, op.uid, op.id_hex),
                                   op.total_bytes, op.checkpointed_bytes, op.parallelism});
  }
  std::stable_sort(r.largest_operators.begin(), r.largest_operators.end(),
                   [](const OperatorSizeRow& a, const OperatorSizeRow& b) {
                     return a.full_bytes > b.full_bytes;
                   });
  if (r.largest_operators.size() > 5) r.largest_operators.resize(5);
  return r;
}

}  // namespace ckpt::ops
