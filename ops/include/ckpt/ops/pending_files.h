// pending_files: the files a two-phase-commit sink recorded as pending in a snapshot (closed at
// the barrier, committed by renaming on the checkpoint-complete notification or on restore),
// each with what is on disk now: whether the pending file and the final file exist. Reads only
// file metadata (Stat) through the Fs seam, and on an object store the list of open uploads
// (base::RecoverableWriter); stateless; thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

enum class PendingFileState {
  kPending,    // the pending file exists, the final one does not: a restore commits it
  kCommitted,  // the final file exists, the pending one does not: already committed
  kBoth,       // both exist (a commit in progress, or output written twice)
  kMissing,    // neither exists: a restore from this snapshot fails to commit it
};
std::string_view PendingFileStateName(PendingFileState s);  // "pending", "committed", ...

struct PendingFile {
  std::string operator_id_hex;
  std::string operator_name;  // OperatorLabel: name, else uid, else the ID
  uint32_t subtask = 0;
  Committable committable;    // as recorded (paths as the sink wrote them)
  bool pending_exists = false;
  bool final_exists = false;
  // Size on disk of the pending file (else of the final one) when either exists.
  std::optional<uint64_t> size_on_disk_bytes;
  PendingFileState state = PendingFileState::kMissing;
  // The size on disk differs from the recorded size (a truncated or rewritten part file).
  bool size_mismatch() const {
    return size_on_disk_bytes && *size_on_disk_bytes != committable.size_bytes;
  }
};

// Every committable of every subtask, operator by operator (snapshot order), subtask
// ascending, in recorded order, with what Stat finds now. A path that Stat cannot reach for
// another reason than NotFound (permissions, I/O) is an IOError naming it; Cancelled.
base::Result<std::vector<PendingFile>> ListPendingFiles(base::Fs& fs, const Snapshot& snapshot,
                                                        const base::Progress& progress = {});

// Whether the multipart upload of `c` (c.is_upload()) is still open on its store, i.e. a restore
// can complete it. Unimplemented naming the scheme when this process has no writer for the
// store of c.final_path; the store's errors (naming the location) otherwise.
base::Result<bool> PendingUploadIsOpen(const Committable& c);

}  // namespace ckpt::ops
