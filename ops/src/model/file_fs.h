// Private to ckpt::ops: which Fs reads a file a snapshot references. A snapshot is opened on one
// Fs, but an Apache Flink handle may name its file by absolute URI on another filesystem (a
// checkpoint's s3://bucket/.../shared/<uuid>); such a file is read on the Fs base::ResolveFs
// gives its scheme. Stateless; thread-safe.
#pragma once

#include <string_view>

#include "ckpt/base/fs.h"

namespace ckpt::ops {

// The Fs to read `path`, a file of the snapshot in `snapshot_dir` opened on `snapshot_fs`: a
// location whose scheme is neither file: nor the scheme of `snapshot_dir` (an s3:// handle of a
// local snapshot, an s3a:// handle of one opened as s3://) is read through base::ResolvingFs(),
// which resolves it; every other path (bare, file:, the snapshot's own scheme) on `snapshot_fs`,
// as before. Never fails: an unresolvable location fails when the returned Fs is used, with
// base::ResolveFs's error.
base::Fs& FsOfSnapshotFile(base::Fs& snapshot_fs, std::string_view snapshot_dir,
                           std::string_view path);

}  // namespace ckpt::ops
