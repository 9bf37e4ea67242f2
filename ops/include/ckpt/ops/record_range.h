// record_range: where one record of a state-file container lies, for the inspector's linked hex
// view: its bytes in the record stream, the block that holds it, and, for a block stored without
// compression, its exact bytes in the file. The record's logical range comes from ops::Dump
// (DumpEntry::record), so nothing is read twice. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "ckpt/ops/file_layout.h"

namespace ckpt::ops {

struct RecordRange {
  ByteRange logical;    // in the record stream, length prefix included
  uint32_t block = 0;   // the block holding it (a record never straddles two blocks)
  ByteRange in_block;   // within that block's decompressed bytes
  // The record's own file bytes when its block is stored uncompressed; nullopt for a compressed
  // block (its bytes exist only after decompression: show `block_stored` or the block's
  // decompressed bytes with `in_block`).
  std::optional<ByteRange> file;
  ByteRange block_stored;  // the holding block's stored bytes in the file (after its header)
};

// Locates the record at record-stream bytes `logical` in `layout`. nullopt when the layout is
// not a container, or `logical` is empty or not inside one block (not a record of this file).
std::optional<RecordRange> LocateRecord(const FileLayout& layout, ByteRange logical);

}  // namespace ckpt::ops
