// validate: integrity checks of one snapshot (envelope, files, checksums, key-group coverage,
// references), optionally decoding every record (--deep) and applying Flink's restore rules
// against a new job spec (--against). Rule IDs are stable; docs/validate-rules.md lists them.
// Stateless; thread-safe given a thread-safe Fs; cancellable through Progress.
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct ValidateOptions {
  // Decode every record of every state-file container and check each key's key group equals
  // the section it is stored in. Default: false (checksums and structure only).
  bool deep = false;
  // Path of a job spec (JSON) to check restorability against. Default: none.
  std::string against_job;
  // With against_job: state of operators missing from the new job is allowed (Flink's
  // --allow-non-restored-state); reported as info instead of error. Default: false.
  bool allow_non_restored_state = false;
  // Verify each referenced file's XXH3 checksum (reads every byte once, large sequential
  // reads). A matching whole-file checksum covers every block; on a mismatch the container's
  // block checksums are verified to locate the damage (CKPT-F006). --deep verifies block
  // checksums while decoding regardless. Default: true.
  bool verify_checksums = true;
};

// One row of the capability table: can this snapshot be used for `operation`?
struct Capability {
  std::string operation;  // "restore", "rescale", "change state backend", ...
  bool supported = false;
  std::string note;       // why not / with what restriction
};

struct ValidateReport {
  std::string snapshot;              // the path as given
  std::string snapshot_type;         // "savepoint (canonical)", "checkpoint (incremental, unaligned)"
  std::vector<Finding> findings;     // sorted (SortFindings)
  std::vector<std::string> checked_rules;  // rule IDs evaluated, ascending
  std::vector<Capability> capabilities;    // empty if the metadata could not be read
  uint64_t files_checked = 0;
  uint64_t bytes_checked = 0;
  uint64_t records_checked = 0;      // deep only
};

// Validates the snapshot at `path`. Problems with the snapshot are findings (never an error
// status): an unreadable or corrupt `_metadata` yields finding CKPT-M001..M004. Returns
// NotFound only if `path` does not exist at all; InvalidArgument / NotFound for an unreadable
// or invalid --against spec; Cancelled if `progress` is cancelled.
base::Result<ValidateReport> Validate(base::Fs& fs, const std::string& path,
                                      const ValidateOptions& options,
                                      const base::Progress& progress = {});

// The operations a snapshot of this kind/format/type/mode supports (Flink's capability table
// for canonical/native savepoints and aligned/unaligned checkpoints).
std::vector<Capability> Capabilities(const Snapshot& snapshot);

// Every rule ID validate can report, with severity, one-line description and hint (the source
// of docs/validate-rules.md).
struct RuleInfo {
  std::string id;
  Severity severity = Severity::kError;
  std::string what;
  std::string hint;
};
const std::vector<RuleInfo>& AllRules();

}  // namespace ckpt::ops
