// Summary: the headline facts and warnings of one snapshot, as the inspector's summary page
// shows them. The warnings are validate's own findings for the rules that need no content
// reads (structure, CKPT-T004, file presence and size CKPT-F001/F002, ...), so a face never
// re-implements a rule. Stateless; thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"

namespace ckpt::ops {

// One of the largest operators (by full size).
struct OperatorSizeRow {
  std::string id_hex;
  std::string label;  // OperatorLabel: name, else uid, else the ID
  uint64_t full_bytes = 0;
  uint64_t checkpointed_bytes = 0;
  uint32_t parallelism = 0;
};

struct SummaryReport {
  uint64_t full_size_bytes = 0;          // the size model (docs/sizes.md)
  uint64_t checkpointed_size_bytes = 0;
  size_t file_count = 0;
  size_t operator_count = 0;
  size_t subtask_state_count = 0;
  // validate's findings (no checksum reads) plus stats findings when given; sorted. Every
  // severity is kept (info included); faces choose what to show.
  std::vector<Finding> warnings;
  std::vector<std::string> checked_rules;  // rule IDs the warnings come from, ascending
  // Facts that are not rule violations, e.g. "operator X has no uid: ...".
  std::vector<std::string> notes;
  std::vector<OperatorSizeRow> largest_operators;  // up to 5, largest first
};

// Summarizes `snapshot`: metadata and file-presence rules of validate (stats every referenced
// file; no content reads), plus `stats`' findings when non-null. IOError if a file cannot be
// stat'ed for another reason than absence; Cancelled.
base::Result<SummaryReport> Summarize(base::Fs& fs, const Snapshot& snapshot,
                                      const StatsReport* stats = nullptr,
                                      const base::Progress& progress = {});

}  // namespace ckpt::ops
