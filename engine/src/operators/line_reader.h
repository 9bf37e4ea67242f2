// LineReader: reads '\n'-terminated lines of one file through base::Fs, starting at a byte
// offset, and reports the offset just after the last line it returned — the position a source
// stores in its state so a restore re-reads exactly the lines not yet emitted. A last line
// without '\n' is returned at end of file; a trailing '\r' is dropped. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::engine::operators {

class LineReader {
 public:
  // Opens `path` and positions at `offset` (which must be a line start). NotFound if the file is
  // gone; InvalidArgument if `offset` is beyond its end.
  static base::Result<std::unique_ptr<LineReader>> Open(base::Fs& fs, const std::string& path,
                                                        uint64_t offset);

  // Reads the next line into `line`. Returns false at end of file. IOError on read errors,
  // InvalidArgument naming the file if one line exceeds 64 MiB.
  base::Result<bool> Next(std::string* line);

  // Offset of the first byte not yet returned as part of a line.
  uint64_t offset() const { return offset_; }
  const std::string& path() const { return file_->path(); }

 private:
  explicit LineReader(std::unique_ptr<base::RandomAccessFile> file, uint64_t offset)
      : file_(std::move(file)), offset_(offset), read_pos_(offset) {}

  std::unique_ptr<base::RandomAccessFile> file_;
  uint64_t offset_;    // file offset of buffer_[pos_]
  uint64_t read_pos_;  // file offset of the byte after buffer_'s end
  std::string buffer_;
  size_t pos_ = 0;
};

// The regular files of `dir` (not dot files, not directories), as full paths sorted by name.
// NotFound if `dir` is missing.
base::Result<std::vector<std::string>> ListInputFiles(base::Fs& fs, const std::string& dir);

}  // namespace ckpt::engine::operators
