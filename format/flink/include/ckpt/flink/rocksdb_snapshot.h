// Reading the RocksDB instance of one Flink native (RocksDB) keyed handle — its SST files and
// MANIFEST/CURRENT/OPTIONS, as the handle's shared and private files name them — through
// Debian's librocksdb. The files' bytes are given in memory (read by the caller through the Fs
// seam) and copied into a RocksDB in-memory Env: the snapshot on disk is never opened by RocksDB,
// let alone modified. Every SST is first opened with SstFileReader (so an SST this RocksDB cannot
// read is reported naming the file and its table format version), then the instance is opened
// read-only with every column family and each is iterated in key order: RocksDB itself resolves
// versions across files, deletions and list-state merge operands (Flink's "stringappendtest"
// operator, ',' between elements; or the engine's own concatenating operator, when the tools read
// the engine's native RocksDB snapshots). Plain types only (no RocksDB in this header).
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::flink {

struct RocksDbFile {
  std::string local_name;  // as in the instance directory: 000012.sst, MANIFEST-000004, CURRENT
  std::string source;      // where the bytes came from (for messages)
  std::string bytes;
};

struct RocksDbEntry {
  std::string_view column_family;  // Flink: the state's name
  std::string_view key;
  std::string_view value;
};

using RocksDbSink = std::function<base::Status(const RocksDbEntry&)>;

// The list-state merge operator the instance was written with.
enum class RocksDbListMerge {
  kFlinkStringAppend,  // Flink: RocksDB's StringAppendTESTOperator, ',' between operands
  kConcatenate,        // this project's engine: operands appended as they are (ckpt.ListAppend)
};

// Calls `sink` for every live entry of every column family but "default", column families in
// name order. Corruption / Unimplemented naming the file (`source`) for an SST RocksDB cannot
// read (with its table format version), a missing CURRENT or MANIFEST, or a failed open.
base::Status ReadRocksDbSnapshot(const std::vector<RocksDbFile>& files, const RocksDbSink& sink,
                                 RocksDbListMerge merge = RocksDbListMerge::kFlinkStringAppend);

// The block-based table format version in an SST's footer (0 for the legacy footer), or -1 if
// `sst` does not end in a block-based table footer.
int SstFormatVersion(std::string_view sst);

// "RocksDB <major>.<minor>.<patch>": the library this reader is linked with.
std::string RocksDbVersion();

}  // namespace ckpt::flink
