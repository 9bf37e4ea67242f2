// file_layout: the byte map of one snapshot file for linked views (the inspector's hex view):
// where each state-file container block and each section (key group, operator state, channel)
// lies in the file, a block's decompressed bytes, and the byte range a finding points at.
// Stateless functions over plain types; thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// Bytes [offset, offset + length) of a file or of a block's decompressed record stream.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t end() const { return offset + length; }
  bool operator==(const ByteRange&) const = default;
};

// One block of a state-file container.
struct BlockLayout {
  uint32_t index = 0;
  ByteRange header;         // the 24-byte block header in the file
  ByteRange stored;         // the stored (compressed or not) bytes after the header
  uint32_t raw_length = 0;  // bytes after decompression
  uint32_t record_count = 0;
  uint64_t logical_offset = 0;  // of the block's first record in the record stream
  // With DescribeFileLayout(verify_blocks = true): whether its checksum matches; else unset.
  std::optional<bool> checksum_ok;
  // The whole block in the file: header and stored bytes.
  ByteRange whole() const { return {header.offset, header.length + stored.length}; }
};

// One section (key group for keyed state) of a container.
struct SectionLayout {
  uint32_t section_id = 0;
  ByteRange logical;  // in the record stream, length prefixes included
  uint64_t record_count = 0;
  uint32_t first_block = 0;  // blocks holding its records (inclusive)
  uint32_t last_block = 0;
  ByteRange stored;          // file bytes of those blocks, headers included
};

struct FileLayout {
  std::string path;  // as opened
  uint64_t file_size = 0;
  // False for a file that is not a state-file container (e.g. a RocksDB SST, a changelog
  // segment): then only file_size is set and the file is one opaque range.
  bool container = false;
  std::string compression;  // "none" or "zstd" (containers)
  ByteRange file_header;    // containers: the 16-byte header
  ByteRange footer;         // containers: index and trailer, after the last block
  std::vector<BlockLayout> blocks;      // in file order
  std::vector<SectionLayout> sections;  // ascending section id
  uint64_t logical_size = 0;

  // The section with this id, or nullptr.
  const SectionLayout* FindSection(uint32_t section_id) const;
  // The block holding record-stream offset `logical_offset`, or nullptr past the end.
  const BlockLayout* BlockAtLogical(uint64_t logical_offset) const;
};

// The layout of the file at `path` (a resolved snapshot file path). A file that does not start
// with the container magic is reported with container = false (not an error). With
// `verify_blocks`, every block's checksum is computed (reads every stored byte once).
// NotFound if absent; IOError; Corruption naming the file for a container whose footer is bad;
// Cancelled.
base::Result<FileLayout> DescribeFileLayout(base::Fs& fs, const std::string& path,
                                            bool verify_blocks = false,
                                            const base::Progress& progress = {});

// The decompressed bytes of block `block` of the container at `path`: its records, each with its
// varint length prefix, exactly the record stream bytes [logical_offset, + raw_length).
// InvalidArgument for a block index out of range or a file that is not a container;
// Corruption naming the file and block when the block fails its checksum or does not decode.
base::Result<std::string> ReadBlockRecords(base::Fs& fs, const std::string& path,
                                           uint32_t block);

// Where in `snapshot` file `file_index` a keyed-state section of key group `key_group` lies:
// the section of that key group in the file's layout (nullptr when the file has none).
const SectionLayout* KeyGroupSection(const FileLayout& layout, uint32_t key_group);

// The file bytes a finding on this file points at, narrowest first: the key group's section
// (Location::key_group), else the first block whose checksum fails (needs a layout described
// with verify_blocks; rules CKPT-F003/F006), else the whole file. nullopt when the finding
// names another file or no file.
struct FindingRange {
  ByteRange range;
  std::optional<uint32_t> block;    // set when the range is one block
  std::optional<uint32_t> section;  // set when the range is a section
  std::string what;                 // "key group 12", "block 3 (checksum mismatch)", "file"
};
std::optional<FindingRange> RangeOfFinding(const Snapshot& snapshot, const FileLayout& layout,
                                           const Finding& finding);

}  // namespace ckpt::ops
