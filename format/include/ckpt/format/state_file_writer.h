// StateFileWriter: streams records into a state-file container with bounded memory (one block
// buffered). Records are grouped in sections with strictly increasing ids. Not thread-safe: one
// writer per file, used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/state_file.h"

namespace ckpt::format {

struct StateFileWriterOptions {
  // What the container holds. Required (not FILE_KIND_UNSPECIFIED).
  pb::FileKind kind = pb::FILE_KIND_UNSPECIFIED;
  // Default: COMPRESSION_ZSTD.
  pb::Compression compression = pb::COMPRESSION_ZSTD;
  // zstd level for COMPRESSION_ZSTD. Default: 1 (fast; checkpoints are on the hot path).
  int zstd_level = 1;
  // Uncompressed bytes buffered before a block is compressed and written. Default: 128 KiB.
  uint32_t block_size_bytes = 128u << 10;
};

// What Finish() reports; matches the FileEntry the metadata records for this file.
struct StateFileSummary {
  std::string path;
  uint64_t size_bytes = 0;
  uint64_t checksum_xxh3 = 0;   // XXH3-64 of the whole file
  uint64_t record_count = 0;
  uint64_t logical_size = 0;
  pb::Compression compression = pb::COMPRESSION_UNSPECIFIED;
};

class StateFileWriter {
 public:
  // Creates `path` exclusively (AlreadyExists if it exists). InvalidArgument on bad options.
  static base::Result<std::unique_ptr<StateFileWriter>> Create(base::Fs& fs, std::string path,
                                                               StateFileWriterOptions options);
  virtual ~StateFileWriter() = default;

  // Starts a new section. `section_id` must be greater than every earlier one
  // (InvalidArgument otherwise). Records added before any BeginSection go to section 0.
  virtual base::Status BeginSection(uint32_t section_id) = 0;
  // Appends one record (opaque bytes, see records.h for the record layouts) to the current
  // section and returns its logical offset. InvalidArgument if larger than kMaxBlockRawBytes.
  virtual base::Result<uint64_t> Add(std::string_view record) = 0;
  // Logical offset the next record will get.
  virtual uint64_t logical_offset() const = 0;
  // Writes the last block, the footer index and the trailer, fsyncs and closes.
  virtual base::Result<StateFileSummary> Finish() = 0;
  // Closes and deletes the partial file (for aborted checkpoints). Safe after a failure.
  virtual void Abandon() = 0;
};

}  // namespace ckpt::format
