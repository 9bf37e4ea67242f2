// Writing a self-contained copy of a snapshot (shared by relocate, remap and rescale): choose
// EXCLUSIVE output paths for every file, copy (or hard-link) with size and XXH3 verification,
// `_metadata` last. Also a visitor over every file index a handle holds, for rewriting the file
// table. Private to ckpt::ops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/relocate.h"

namespace ckpt::ops::internal {

// Calls `fn` on every file index referenced by `op` (keyed, operator, channel, changelog and
// coordinator handles), allowing it to be rewritten in place.
void ForEachFileIndex(pb::OperatorState* op, const std::function<void(uint32_t*)>& fn);

// Keeps only the files whose indexes are in `keep` (a mask over metadata->files) and rewrites
// every handle's index accordingly.
void CompactFileTable(pb::CheckpointMetadata* metadata, const std::vector<bool>& keep);

// The relative EXCLUSIVE path each file gets in a self-contained copy: EXCLUSIVE files keep
// their path, SHARED go under "shared/", TASK_OWNED under "taskowned/", EXTERNAL under
// "external/<base name>"; clashes get a "-<n>" suffix. Parallel to metadata.files.
std::vector<std::string> PlanOutputPaths(const pb::CheckpointMetadata& metadata);

// Turns `metadata` into the metadata of a self-contained savepoint whose files sit at `paths`
// (from PlanOutputPaths): scope EXCLUSIVE, created by this snapshot; a checkpoint becomes a FULL
// savepoint. `provenance_key`/`source_dir` are recorded in properties.
void MakeSelfContained(pb::CheckpointMetadata* metadata, const std::vector<std::string>& paths,
                       const std::string& provenance_key, const std::string& source_dir);

// Describes the copy without doing it: resolves each file of `metadata` (as read from
// `source_dir`). Corruption naming the file if a reference cannot be resolved.
base::Result<std::vector<RelocatedFile>> PlanCopy(const std::string& source_dir,
                                                  const pb::CheckpointMetadata& metadata,
                                                  const std::vector<std::string>& paths);

// How the state files get into the copy.
enum class FileTransfer {
  kCopy,        // independent copies of the bytes
  kLinkOrCopy,  // hard links to the source's files (no bytes written), copies where the
                // filesystem cannot link them (another filesystem, no hard links)
};

struct CopyOptions {
  // Check each file's XXH3 against the metadata (sizes are always checked).
  bool verify_checksums = true;
  FileTransfer transfer = FileTransfer::kCopy;
};

struct CopyResult {
  uint64_t bytes_copied = 0;  // bytes written into copies
  size_t files_linked = 0;    // files that became hard links instead
  // False when the complete copy did not validate and was removed; `refused` says why, naming
  // the error findings of `verification`.
  bool published = false;
  std::string refused;
  // The validation of the copy, made before it was published (paths name the output).
  ValidateReport verification;
};

// Writes the `_metadata` of a copy into the given (temporary) directory.
using MetadataWriter = std::function<base::Status(const std::string& dir)>;

// The copy of the exclusive file `path` (relative to `source_dir`, `size_bytes` long) at the same
// relative path in the output: what a handle relative to `_metadata` (Flink's) needs.
RelocatedFile SamePathCopy(const std::string& source_dir, const std::string& path,
                           uint64_t size_bytes);

// A MetadataWriter that writes each of `new_files` (output-relative name, bytes; none if null),
// then `metadata_bytes` as `_metadata`, each atomically. Both are referenced, not copied: they
// must outlive the copy.
MetadataWriter WriteMetadataBytes(
    base::Fs& fs, const std::string& metadata_bytes,
    const std::vector<std::pair<std::string, std::string>>* new_files = nullptr);

// Builds the copy in `output_dir`.tmp (AlreadyExists if `output_dir` or the .tmp exists): brings
// in every planned file (copied or linked as `options` says), verifying its size, and its XXH3
// when `options.verify_checksums` (Corruption naming the source on a mismatch), syncs, writes
// `_metadata` with `write_metadata` last, then publishes it with PublishIfValid
// (output_publish.h): renamed to `output_dir` only if it validates without error; otherwise
// removed, with CopyResult::published false and the reason. On any failure the .tmp is removed
// and `output_dir` never appears. Callers check the output's place first (CheckOutputPlace).
base::Result<CopyResult> WriteSnapshotCopyWith(base::Fs& fs,
                                               const std::vector<RelocatedFile>& files,
                                               const std::string& output_dir,
                                               const MetadataWriter& write_metadata,
                                               const CopyOptions& options,
                                               const base::Progress& progress);

// As WriteSnapshotCopyWith, with `output_metadata` as our format's `_metadata`.
base::Result<CopyResult> WriteSnapshotCopy(base::Fs& fs, const std::vector<RelocatedFile>& files,
                                           const std::string& output_dir,
                                           const pb::CheckpointMetadata& output_metadata,
                                           const CopyOptions& options,
                                           const base::Progress& progress);

// Moves what the copy and its publication came to into a verb's result (RelocateResult,
// RemapResult, RescaleResult): bytes copied, written or refused, and the validation when the
// caller asked for it (`verify_output`) or when it is the reason nothing was written.
template <typename VerbResult>
void TakePublication(CopyResult&& copied, bool verify_output, VerbResult* result) {
  result->bytes_copied = copied.bytes_copied;
  result->written = copied.published;
  result->refused = std::move(copied.refused);
  if (verify_output || !copied.published) result->verification = std::move(copied.verification);
}

// AlreadyExists if `path` exists; OK if it does not; the Stat error otherwise.
base::Status CheckOutputAbsent(base::Fs& fs, const std::string& path);

}  // namespace ckpt::ops::internal
