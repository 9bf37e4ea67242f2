// SnapshotAsyncPart: the future-like result of a keyed backend's synchronous snapshot phase
// (KeyedStateBackend::SnapshotSync). The sync phase freezes what the snapshot will contain (heap:
// copy-on-write references; RocksDB: a hard-linked Checkpoint directory); Run() does the slow
// part on the async thread while processing goes on: encodes or uploads the files and returns the
// handles. Run() is called at most once, from one thread; destroying the part without running it
// releases what the sync phase pinned (e.g. removes the local checkpoint directory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

struct SnapshotWriteOptions {
  // Default: COMPRESSION_ZSTD (level 1).
  pb::Compression compression = pb::COMPRESSION_ZSTD;
  // Default: 128 KiB.
  uint32_t block_size_bytes = 128u << 10;
};

// What the async part produced. `file_index` fields of the handles index `files`.
struct KeyedSnapshotResult {
  std::vector<pb::KeyedStateHandle> handles;
  // EXCLUSIVE files relative to the snapshot directory; SHARED ones relative to the job's
  // shared/ directory (FORMAT.md §1), with created_by_checkpoint_id of the checkpoint that
  // uploaded them.
  std::vector<pb::FileEntry> files;
  // Bytes of every file referenced / only of the files this snapshot wrote.
  uint64_t state_size_bytes = 0;
  uint64_t checkpointed_size_bytes = 0;
};

class SnapshotAsyncPart {
 public:
  virtual ~SnapshotAsyncPart() = default;
  // Declared keyed states (timers included), as the metadata records them; a canonical record's
  // state_index and the RocksDB column-family map refer to this list.
  virtual const std::vector<pb::StateDescriptor>& states() const = 0;
  // Whether the snapshot holds anything (an empty heap snapshot writes no file).
  virtual bool empty() const = 0;
  // Writes the snapshot's files into `options.snapshot_dir` (and the job's shared/ directory);
  // `stem` ("<operator id hex>-<subtask>") prefixes every file name. On error, the files it wrote
  // are removed.
  virtual base::Result<KeyedSnapshotResult> Run(base::Fs& fs, const CheckpointOptions& options,
                                                const SnapshotWriteOptions& write,
                                                const std::string& stem) = 0;
};

}  // namespace ckpt::engine
