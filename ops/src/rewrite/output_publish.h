// The tail every verb that writes a new snapshot shares (relocate, remap,
// rescale-max-parallelism; our format and Apache Flink's): where its output may go, and
// publishing the output only once it validates. Private to ckpt::ops. Stateless functions.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops::internal {

// OK if a new snapshot made from the snapshot in `input_dir` may be written at `output_dir`.
// Refused with InvalidArgument (naming both paths and the reason) when `output_dir`, after
// resolving `..` and symbolic links (lexically for a location with a scheme, such as
// s3://bucket/key), is the input, inside it or an ancestor of it, or lies inside
// another snapshot (a directory holding `_metadata`) or inside a job directory's chk-<n>/,
// shared/ or taskowned/: the input must never change, and checkpoint storage belongs to the
// engine and to prune, which delete what no retained `_metadata` references. AlreadyExists if
// `output_dir` exists; the Stat error if it cannot be told.
base::Status CheckOutputPlace(base::Fs& fs, const std::string& input_dir,
                              const std::string& output_dir);

// What PublishIfValid did.
struct Publication {
  bool published = false;
  // Why nothing was published: the error findings of the output, named.
  std::string refused;
  // The validation of the output (paths name `output_dir`, where it is or would have been).
  ValidateReport verification;
};

// Validates the complete snapshot built in `tmp_dir` (ops::Validate, default options, as
// `ckpt-tool validate` runs it). Without an error finding it renames `tmp_dir` to `output_dir`
// and syncs the parent: published. With one it removes `tmp_dir` and publishes nothing, the
// reason in `refused`. Errors (IOError, Cancelled) leave `tmp_dir` to the caller to remove.
base::Result<Publication> PublishIfValid(base::Fs& fs, const std::string& tmp_dir,
                                         const std::string& output_dir,
                                         const base::Progress& progress);

}  // namespace ckpt::ops::internal
