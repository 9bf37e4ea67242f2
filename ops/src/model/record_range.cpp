#include "ckpt/ops/record_range.h"

namespace ckpt::ops {

std::optional<RecordRange> LocateRecord(const FileLayout& layout, ByteRange logical) {
  if (!layout.container || logical.length == 0) return std::nullopt;
  const BlockLayout* b = layout.BlockAtLogical(logical.offset);
  if (b == nullptr || logical.end() > b->logical_offset + b->raw_length) return std::nullopt;
  RecordRange r;
  r.logical = logical;
  r.block = b->index;
  r.in_block = {logical.offset - b->logical_offset, logical.length};
  r.block_stored = b->stored;
  // Stored = raw only for an uncompressed block; then record-stream bytes map 1:1 to the file.
  if (layout.compression == "none" && b->stored.length == b->raw_length) {
    r.file = ByteRange{b->stored.offset + r.in_block.offset, logical.length};
  }
  return r;
}

}  // namespace ckpt::ops
