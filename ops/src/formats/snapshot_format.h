// Private to ckpt::ops: the one seam between the verbs and the on-disk metadata formats. A
// snapshot's format is chosen once, when it is opened (FormatAt sniffs `_metadata`; a loaded
// Snapshot remembers it: FormatOf), and every verb asks that format for what differs between
// formats: loading into the plain model, dump, stats, diff --keys, the format's validate rules,
// the write verbs (remap, relocate, rescale-max-parallelism) and prune's restorability facts.
// Verbs outside formats/ never test which format they hold. Implementations live in
// formats/<format>/ and are listed once in formats/registry.cpp. Stateless and thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/snapshot_files_check.h"
#include "ckpt/ops/diff.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/relocate.h"
#include "ckpt/ops/remap.h"
#include "ckpt/ops/rescale.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/state_entries.h"
#include "ckpt/ops/stats.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops::internal {

class ValidateContext;

// What prune reads of one retained snapshot: its metadata (as our format's protobuf, so
// reachability works the same for every format) and the files a restore of it reads. A failure
// to list those files leaves the metadata readable: `restore_files_status` says why.
struct PruneFacts {
  pb::CheckpointMetadata metadata;
  std::vector<format::ExpectedFile> restore_files;
  base::Status restore_files_status;  // not OK: `restore_files` could not be listed
};

// PruneFacts of `metadata` (read from `dir`) and the files a restore of it reads, as listed.
PruneFacts MakePruneFacts(pb::CheckpointMetadata metadata,
                          base::Result<std::vector<format::ExpectedFile>> restore_files);

class SnapshotFormat {
 public:
  virtual ~SnapshotFormat() = default;

  // True if the file at `metadata_path` is this format's `_metadata` (reads at most its head;
  // false when it cannot be read). The registry asks each format in turn.
  virtual bool Recognizes(base::Fs& fs, const std::string& metadata_path) const = 0;

  // --- open -------------------------------------------------------------------------------

  // The plain model of the snapshot in `dir` whose metadata is `metadata_path`, with
  // `snapshot.raw` set (its format is this one). Errors as LoadSnapshot.
  virtual base::Result<Snapshot> Load(base::Fs& fs, const std::string& dir,
                                      const std::string& metadata_path,
                                      const LoadOptions& options) const = 0;

  // The model ls lists from: `_metadata` only, nothing else opened or checked.
  virtual base::Result<Snapshot> LoadForListing(base::Fs& fs, const std::string& dir,
                                                const std::string& metadata_path) const = 0;

  // --- read verbs -------------------------------------------------------------------------

  // ops::Dump of a snapshot of this format.
  virtual base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot,
                                      const DumpOptions& options, const DumpSink& sink,
                                      const base::Progress& progress) const = 0;

  // Fills `out` (states, key groups, entry counts) for the operator whose protobuf state is
  // `state`, as ops::ComputeStats reports it.
  virtual base::Status ScanOperatorStats(base::Fs& fs, const Snapshot& snapshot,
                                         const pb::OperatorState& state,
                                         const StatsOptions& options,
                                         const base::Progress& progress,
                                         OperatorStats* out) const = 0;

  // ops::StateValueFields of `state`, one of `op`'s declared states.
  virtual base::Result<StateValueFieldList> ValueFields(base::Fs& fs, const Snapshot& snapshot,
                                                        const OperatorInfo& op,
                                                        const StateInfo& state) const = 0;

  // Appends to `out` the connector positions (ops::ComputePositions) of the operators whose
  // state this format's decoders recognize; a connector state that cannot be decoded adds a
  // finding to `out->findings`. Errors: a state file that cannot be read at all; Cancelled.
  virtual base::Status Positions(base::Fs& fs, const Snapshot& snapshot,
                                 const base::Progress& progress, PositionsReport* out) const = 0;

  // True if this format's DiffKeys compares a snapshot of this format with one of `other`.
  virtual bool DiffsKeysWith(const SnapshotFormat& other) const = 0;

  // ops::DiffKeys of two loaded snapshots (this format handles the pair: DiffsKeysWith).
  virtual base::Result<KeyDiffSummary> DiffKeys(base::Fs& fs, const Snapshot& a,
                                                const Snapshot& b,
                                                const std::function<void(const KeyDiff&)>& sink,
                                                const base::Progress& progress) const = 0;

  // --- validate ---------------------------------------------------------------------------

  // Reads and checks `metadata` (open as `file`) of the snapshot in `dir`, adding this format's
  // metadata findings to `ctx`; the model if it could be built, nullopt if not.
  virtual base::Result<std::optional<Snapshot>> CheckMetadata(
      ValidateContext& ctx, const std::string& dir, const std::string& metadata,
      base::RandomAccessFile& file) const = 0;

  // Runs this format's rule groups over a snapshot CheckMetadata returned, including the
  // report's type label.
  virtual base::Status ValidateSnapshot(ValidateContext& ctx, const Snapshot& snapshot) const = 0;

  // Appends the capability rows this format adds after the verdict computed from the findings.
  virtual void AddCapabilities(std::vector<Capability>* caps) const = 0;

  // True if a restore of this format enforces the new max parallelism for every operator with
  // state (validate --against), not only where keyed state is involved.
  virtual bool RestoreChecksMaxParallelismOfEveryOperator() const = 0;

  // --- write verbs ------------------------------------------------------------------------

  virtual base::Result<RemapResult> Remap(base::Fs& fs, const format::SnapshotLocation& location,
                                          const std::string& output_dir,
                                          const RemapOptions& options) const = 0;
  virtual base::Result<RelocateResult> Relocate(base::Fs& fs,
                                                const format::SnapshotLocation& location,
                                                const std::string& output_dir,
                                                const RelocateOptions& options) const = 0;
  virtual base::Result<RescaleResult> Rescale(base::Fs& fs,
                                              const format::SnapshotLocation& location,
                                              const std::string& output_dir,
                                              const RescaleOptions& options) const = 0;

  // --- prune ------------------------------------------------------------------------------

  // The files a restore of `snapshot` (loaded from `dir`) reads (prune_restorable.h).
  virtual base::Result<std::vector<format::ExpectedFile>> RestoreFiles(
      const Snapshot& snapshot, const std::string& dir) const = 0;

  // What prune needs of the snapshot in `dir` whose metadata is `metadata_path`. Errors: the
  // metadata cannot be read (NotFound if it vanished).
  virtual base::Result<PruneFacts> ReadPruneFacts(base::Fs& fs, const std::string& dir,
                                                  const std::string& metadata_path) const = 0;
};

// The format of the `_metadata` at `metadata_path`: the first registered format that recognizes
// it; our own format (which recognizes every file, so a damaged one gets its checks) last.
const SnapshotFormat& FormatAt(base::Fs& fs, const std::string& metadata_path);

// The format `snapshot` was loaded with (our own for a model built without one).
const SnapshotFormat& FormatOf(const Snapshot& snapshot);

}  // namespace ckpt::ops::internal
