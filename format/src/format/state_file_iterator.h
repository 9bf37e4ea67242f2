// Private: the record iterator of StateFileReader. Walks blocks in order from a starting logical
// offset, one decompressed block in memory, and tags each record with its section.
// Not thread-safe: one iterator per thread.
#pragma once

#include <cstdint>
#include <memory>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/state_file.h"
#include "ckpt/format/state_file_reader.h"

namespace ckpt::format::internal {

// What a reader shares with its iterators (kept alive by them).
struct OpenStateFile {
  std::unique_ptr<base::RandomAccessFile> file;
  std::string path;
  StateFileIndex index;
};

// An iterator over at most `max_records` records starting at `logical_offset`. If that offset
// is not a record boundary: InvalidArgument when `caller_offset` (the caller chose it),
// Corruption otherwise (the index named it). Corruption naming file and block on bad blocks.
base::Result<std::unique_ptr<RecordIterator>> NewRecordIterator(
    std::shared_ptr<const OpenStateFile> file, uint64_t logical_offset, uint64_t max_records,
    bool caller_offset);

}  // namespace ckpt::format::internal
