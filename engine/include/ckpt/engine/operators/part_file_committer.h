// The commit and recovery half of the two-phase-commit file sink: commits a
// pending part file by renaming it to its final name, idempotently, and on restore discards the
// in-progress files written after the restored snapshot. Stateless functions over base::Fs; safe
// to call from several threads as long as no two callers own the same subtask's files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::engine::operators {

// A part file closed at a barrier and waiting for its checkpoint to complete. Mirrors the
// format's SinkCommittable.
struct PendingPartFile {
  std::string pending_path;  // absolute path of the closed ".part-...inprogress" file; empty on
                             // an object store
  std::string final_path;    // absolute path (location) it is renamed to / published at on commit
  uint64_t size_bytes = 0;
  uint64_t checksum_xxh3 = 0;  // XXH3-64 of the file's bytes
  int64_t checkpoint_id = 0;   // the checkpoint whose completion commits it
  // On an object store: the multipart upload of final_path holding the bytes, and its parts'
  // ETags in order (multipart_part_files.h). Empty on a filesystem.
  std::string upload_id = {};
  std::vector<std::string> part_etags = {};
  bool operator==(const PendingPartFile&) const = default;
};

// Renames `file.pending_path` to `file.final_path` and syncs the directory. Idempotent: OK if the
// pending file is gone and the final file exists (committed before a failure). Returns
// Corruption naming the file if the file on disk does not have the recorded size (it was
// truncated or replaced), NotFound naming both paths if neither exists (the output was lost),
// IOError if the filesystem refuses.
base::Status CommitPendingPartFile(base::Fs& fs, const PendingPartFile& file);

// What RecoverPartFiles did.
struct PartFileRecovery {
  uint64_t committed = 0;  // pending files renamed now (not counting ones already committed)
  std::vector<std::string> discarded;  // in-progress files removed, sorted
  // The first part number subtask `subtask` may use: above every pending file of the restored
  // snapshot and every committed file of that subtask already in the directory, so nothing
  // committed is ever overwritten.
  uint64_t next_part_number = 0;
};

// Restore of subtask `subtask` of `parallelism` of the sink with `uid` writing into `dir`:
// 1. commits every file of `restored_pending` (CommitPendingPartFile; the caller passes the
//    pending files this subtask owns);
// 2. removes each ".part-<uid>-<k>-<n>.inprogress" in `dir` with k % parallelism == subtask that
//    is not a pending path of `restored_pending` — output written after the snapshot, which the
//    restored job writes again. Subtasks of a larger old parallelism are owned by k % parallelism
//    so that a rescale leaves no orphans, and no two subtasks touch the same file.
// Creates `dir` if missing. Errors: as CommitPendingPartFile, IOError from listing or removing.
base::Result<PartFileRecovery> RecoverPartFiles(base::Fs& fs, const std::string& dir,
                                                const std::string& uid, uint32_t subtask,
                                                uint32_t parallelism,
                                                const std::vector<PendingPartFile>& restored_pending);

}  // namespace ckpt::engine::operators
