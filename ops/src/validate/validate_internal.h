// Private to ckpt::ops: the context shared by the validate_*.cpp rule groups.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops {
// "savepoint (canonical, full, aligned)", "checkpoint (incremental, unaligned)" (validate.cpp).
std::string SnapshotTypeLabel(const Snapshot& snapshot);
}  // namespace ckpt::ops

namespace ckpt::ops::internal {

class ValidateContext {
 public:
  ValidateContext(base::Fs& fs, const ValidateOptions& options, const base::Progress& progress,
                  ValidateReport* report)
      : fs_(fs), options_(options), progress_(progress), report_(report) {}

  base::Fs& fs() const { return fs_; }
  const ValidateOptions& options() const { return options_; }
  const base::Progress& progress() const { return progress_; }
  ValidateReport& report() const { return *report_; }

  // Adds a finding of `rule` with the rule's one severity and hint (AllRules).
  void Add(const std::string& rule, Location location, std::string message);
  // Records that `rule` was evaluated (for JUnit's passing testcases).
  void Checked(const std::string& rule);
  // Records that `rule` applies at `location` but cannot be evaluated on this host. Not a
  // finding: the report says so in its own state (ValidateReport::not_checked).
  void NotChecked(const std::string& rule, Location location, std::string reason);

 private:
  base::Fs& fs_;
  const ValidateOptions& options_;
  const base::Progress& progress_;
  ValidateReport* report_;
};

// Location helpers.
Location OperatorLocation(const OperatorInfo& op);
Location FileLocation(const SnapshotFile& file);
// The file's path as seen from the snapshot directory ("x", "../shared/x", "/abs/x").
std::string PathFromSnapshot(const SnapshotFile& file);

// Rule groups shared by every format (each format's own are in formats/<format>/). Each adds
// findings to `ctx` and never fails on bad snapshot bytes; a non-OK status means the work was
// cancelled or an I/O error other than absence occurred.
// Reads `_metadata` itself and reports envelope problems through the snapshot's format; returns
// the loaded snapshot, or nullopt (with findings) if it cannot be decoded.
base::Result<std::optional<Snapshot>> CheckMetadata(ValidateContext& ctx, const std::string& path);
// Rules over the metadata alone: subtask indices, parallelism, key-group coverage, savepoint
// self-containment, file references and their use.
void CheckStructure(ValidateContext& ctx, const Snapshot& snapshot);
// --since A: CKPT-R001/R002 from the positions of A and of `snapshot` (validate_since.cpp).
// A's load errors (naming it), I/O errors reading either side's connector state; Cancelled.
base::Status CheckSince(ValidateContext& ctx, const Snapshot& snapshot);
// --against JOB.json (the format says whether its restore checks max parallelism for every
// operator: SnapshotFormat::RestoreChecksMaxParallelismOfEveryOperator).
base::Status CheckAgainst(ValidateContext& ctx, const Snapshot& snapshot);

}  // namespace ckpt::ops::internal
