// files: every file a snapshot references, with size, checksum, owner and whether it exists on
// disk with the recorded size. Stateless; thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct FileRow {
  uint32_t index = 0;
  std::string path;        // as recorded
  // Path relative to the snapshot directory ("../shared/x") or absolute, with the recorded bytes
  // (text renderers escape them: base::EscapeForText).
  std::string location;
  FileScope scope = FileScope::kUnspecified;
  FileKind kind = FileKind::kUnspecified;
  std::string owner;       // "exclusive", "shared (chk-7)", "task-owned", "external"
  uint64_t size_bytes = 0;
  uint64_t checksum_xxh3 = 0;
  int64_t created_by_checkpoint_id = 0;
  bool exists = false;
  int64_t actual_size = -1;  // -1 when missing or unresolvable
  std::vector<std::string> referenced_by;  // operator uid (or id) and subtask, e.g. "sum/2"
};

// Lists the file table of `snapshot` in index order and stats each file (no content reads).
// IOError if a stat fails for another reason than absence.
base::Result<std::vector<FileRow>> ListFiles(base::Fs& fs, const Snapshot& snapshot);

}  // namespace ckpt::ops
