// validate: integrity checks of one snapshot (envelope, files, checksums, key-group coverage,
// references), optionally decoding every record (--deep) and applying Flink's restore rules
// against a new job spec (--against). Rule IDs are stable; docs/validate-rules.md lists them.
// Stateless; thread-safe given a thread-safe Fs; cancellable through Progress.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
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
  // Path of the snapshot this one replaces (validate SNAP --since A): each source split where
  // restoring SNAP re-reads from an earlier offset than A had reached is CKPT-R001, each split
  // of A that SNAP lacks CKPT-R002 (docs/positions.md). Default: none.
  std::string since;
};

// One row of the capability table: can THIS snapshot be used for `operation`? A verdict from
// the snapshot's kind (Flink's table) and from the findings of this validation: an operation
// that an error finding makes impossible is not supported, whatever the kind allows.
struct Capability {
  std::string operation;  // "restore", "rescale", "change state backend", ...
  // True only if the kind allows it, no error finding blocks it and every rule it depends on
  // could be checked here.
  bool supported = false;
  // The kind allows it and no finding blocks it, but a rule it depends on could not be checked
  // on this host (see ValidateReport::not_checked): neither "yes" nor "no". supported is false.
  bool undetermined = false;
  std::string note;       // why not / with what restriction
  // Rule IDs of the error findings that make the operation impossible, ascending, unique.
  std::vector<std::string> blocked_by;
  // Rule IDs that could not be checked and leave the operation undetermined.
  std::vector<std::string> unverified_by;
};

// A rule that applies to this snapshot but could not be evaluated on this host (e.g. the sink's
// output directory does not exist here). Never a finding, never a downgraded finding, never "ok".
struct UncheckedRule {
  std::string rule_id;
  Location location;
  std::string reason;  // why it could not be checked, with the concrete path or value

  bool operator==(const UncheckedRule&) const = default;
};

struct ValidateReport {
  std::string snapshot;              // the path as given
  std::string snapshot_type;         // "savepoint (canonical)", "checkpoint (incremental, unaligned)"
  std::vector<Finding> findings;     // sorted (SortFindings)
  // Rule IDs that ran, ascending. A rule in not_checked also appears here when it ran for other
  // locations; one that could be checked nowhere appears only in not_checked.
  std::vector<std::string> checked_rules;
  // Rules (per location) that could not be checked here, sorted by rule, file, message.
  std::vector<UncheckedRule> not_checked;
  std::vector<Capability> capabilities;    // empty if the metadata could not be read
  uint64_t files_checked = 0;
  uint64_t bytes_checked = 0;
  uint64_t records_checked = 0;      // deep only
};

// Validates the snapshot at `path`. Problems with the snapshot are findings (never an error
// status): an unreadable or corrupt `_metadata` yields finding CKPT-M001..M004. Returns
// NotFound only if `path` does not exist at all; InvalidArgument / NotFound for an unreadable
// or invalid --against spec; the load errors of the --since snapshot (naming it); Cancelled if
// `progress` is cancelled.
base::Result<ValidateReport> Validate(base::Fs& fs, const std::string& path,
                                      const ValidateOptions& options,
                                      const base::Progress& progress = {});

// Where an operator of a job spec is written in the spec's file: 1-based line and byte column.
struct SpecOperatorPosition {
  size_t line = 1;
  size_t column = 1;
};
// The position of each operator of the job spec at `spec_path` in its file, keyed by operator
// ID (32 hex digits, as Location::operator_id), so a face can point a finding of
// validate --against at the operator's line. Errors as Validate's reading of the spec: NotFound,
// InvalidArgument.
base::Result<std::map<std::string, SpecOperatorPosition>> JobSpecOperatorPositions(
    base::Fs& fs, const std::string& spec_path);

// The operations a snapshot of this kind/format/type/mode supports (Flink's capability table
// for canonical/native savepoints and aligned/unaligned checkpoints), before any check.
std::vector<Capability> Capabilities(const Snapshot& snapshot);
// The verdict for this snapshot: Capabilities(snapshot) refined by the findings and unchecked
// rules of its validation (e.g. "restore" is not supported under a missing referenced file or a
// checksum mismatch). Validate fills ValidateReport::capabilities with this.
std::vector<Capability> CapabilitiesVerdict(const Snapshot& snapshot,
                                            const std::vector<Finding>& findings,
                                            const std::vector<UncheckedRule>& not_checked);

// Every rule ID validate can report, with severity, one-line description and hint (the source
// of docs/validate-rules.md), and what a face needs to know to run or explain it.
struct RuleInfo {
  std::string id;
  Severity severity = Severity::kError;
  std::string what;
  std::string hint;
  // Evaluated only when checksums are verified (ValidateOptions::verify_checksums, or --deep
  // for block checksums): a face re-checking such a finding must read every stored byte.
  bool needs_checksums = false;
  // Evaluated only with ValidateOptions::deep (every record decoded).
  bool needs_deep = false;
  // Evaluated only with ValidateOptions::against_job (restore rules against a new job).
  bool needs_against = false;
  // Evaluated only with ValidateOptions::since (positions against the replaced snapshot).
  bool needs_since = false;
  // Reported by `stats` (ComputeStats), not by Validate.
  bool from_stats = false;
  // The section of docs/validate-rules.md that lists the rule, as "validate-rules.md#<anchor>"
  // (relative to docs/; the anchor is the section heading's GitHub slug).
  std::string doc_anchor;
};
// The whole catalogue, by rule ID within each section (the order of docs/validate-rules.md).
const std::vector<RuleInfo>& AllRules();
// The rule `id` ("CKPT-F003"), or nullptr for an ID no rule has. The pointer stays valid for
// the life of the program.
const RuleInfo* FindRule(std::string_view id);

}  // namespace ckpt::ops
