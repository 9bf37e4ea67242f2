// Private to ckpt::ops: whether a checkpoint prune found would restore, decided by the check a
// restore makes (format/snapshot_files_check.h: every referenced file present with its recorded
// size, and its checksum where the format records one) and, for --deep, by validate's full
// decode. Both formats: our file table, and the file handles of an Apache Flink `_metadata`.
// Stateless; thread-safe given a thread-safe Fs.
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/snapshot_files_check.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

// The files a restore of `snapshot` (loaded from `dir`) reads: for our format its file table
// (with checksums), for Flink every file handle (sizes only: Flink records no checksums; the
// size of a changelog or segment file is a lower bound). Handles of a non-local file system are
// left out: they cannot be checked here, nor deleted. Corruption naming the reference if one
// escapes its directory.
base::Result<std::vector<format::ExpectedFile>> RestoreFiles(const Snapshot& snapshot,
                                                             const std::string& dir);

// Why the snapshot in `dir` would not restore, "" if it would, in words a reader of prune's
// plan understands ("missing shared/x.sst", "... has 10 bytes, the metadata records 20"). A
// file that cannot be read counts as damage: a restore could not read it either. `deep` adds
// validate --deep: every record decoded, and its "restore" verdict must be yes.
std::string UnrestorableReason(base::Fs& fs, const std::string& dir,
                               const std::vector<format::ExpectedFile>& files, bool deep);

}  // namespace ckpt::ops::internal
