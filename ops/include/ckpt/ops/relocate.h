// Relocate: copies a savepoint, or turns a retained checkpoint into a self-contained savepoint, in
// a new directory. Every referenced file is copied with its size and XXH3 checked on the way and
// recorded as EXCLUSIVE with a relative path; `_metadata` is written last, atomically. The input
// is never modified. Stateless function; thread-safe for distinct output directories.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops {

struct RelocateOptions {
  // Plan only: nothing is created or copied; the result lists what would be. Default: false.
  bool dry_run = false;
  // Bytes copied so far / total; cancellation is checked between 1 MiB blocks (the partial
  // output directory is then removed). Default: none.
  base::Progress progress;
  // Return the validation of the output in RelocateResult::verification. The output is always
  // validated before it is published (and not published with an error finding); this only
  // asks for the report when it was. Default: false.
  bool verify_output = false;
};

// One file of the output snapshot.
struct RelocatedFile {
  std::string source_path;     // where it was read from (resolved)
  std::string output_path;     // relative to the output directory (its EXCLUSIVE path)
  std::string original_scope;  // "exclusive", "shared", "task-owned" or "external"
  uint64_t size_bytes = 0;
  uint64_t checksum_xxh3 = 0;
};

struct RelocateResult {
  std::string source_dir;
  std::string output_dir;
  int64_t checkpoint_id = 0;
  bool converted_checkpoint = false;  // the input was a checkpoint; the output is a savepoint
  bool dry_run = false;
  std::vector<RelocatedFile> files;   // in file-table order
  uint64_t total_bytes = 0;           // sum of the files' sizes
  uint64_t bytes_copied = 0;          // 0 for a dry run
  // True once the output is published. False for a dry run, and when the complete copy did not
  // validate (an input with an error finding makes such a copy): then it was removed, nothing
  // is at `output_dir`, `refused` names the error findings and `verification` holds them all.
  bool written = false;
  std::string refused;
  // The output's snapshot type, e.g. "savepoint (native, full, aligned)": the copy keeps the
  // input's true kind (changelog or RocksDB handles make a native savepoint, never canonical).
  std::string output_type;
  // With verify_output, or when the output was refused, the validation of the output.
  std::optional<ValidateReport> verification;
  // How copied files were verified: "checksums" (our format: sizes and XXH3) or "sizes" (an
  // Apache Flink snapshot, which records no checksums).
  std::string copies_verified_by = "checksums";
};

// Copies the snapshot at `snapshot` (directory or its `_metadata`) to `output_dir`, which must not
// exist; the copy is built in `output_dir`.tmp, validated and renamed, so `output_dir` appears only
// complete and valid (see RelocateResult::written). Returns what was copied. InvalidArgument if
// `output_dir` is the input, inside or around it, or inside another snapshot or checkpoint storage
// (chk-<n>/, shared/, taskowned/); NotFound if the input has no `_metadata`; Corruption (naming the
// file) if its metadata is damaged or a referenced file is missing or does not match its recorded
// size or checksum — the partial output is then removed; AlreadyExists if `output_dir` exists;
// IOError if the filesystem refuses; Cancelled via `options.progress`.
base::Result<RelocateResult> Relocate(base::Fs& fs, const std::string& snapshot,
                                      const std::string& output_dir,
                                      const RelocateOptions& options = {});

}  // namespace ckpt::ops
