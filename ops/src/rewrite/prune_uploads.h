// The multipart uploads an object store holds open under a checkpoint root, placed in the
// root's jobs: the input of prune's last phase (ops/prune.h). Private to ckpt::ops.
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/recoverable_writer.h"
#include "rewrite/prune_scan.h"

namespace ckpt::ops::internal {

struct PlacedUpload {
  base::OpenUpload upload;
  std::string rel;  // its location relative to the root
  // The job directory holding it (index into ScannedRoot::jobs), -1 when none does.
  int job = -1;
  // Inside that job's checkpoint storage: a chk-*, shared/ or taskowned/ directory.
  bool in_checkpoint_storage = false;
};

struct OpenUploads {
  std::vector<PlacedUpload> uploads;  // by rel
  // Why they could not be listed (e.g. no permission to list uploads); empty when they were or
  // when the root's scheme has no uploads (a local directory).
  std::string listing_error;
};

// Lists the uploads open under `scan.abs_root` through the scheme's base::RecoverableWriter.
OpenUploads ListOpenUploads(const ScannedRoot& scan);

}  // namespace ckpt::ops::internal
