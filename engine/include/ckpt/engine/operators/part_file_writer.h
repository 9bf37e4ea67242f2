// The write half of the two-phase-commit file sink: appends lines to the subtask's current
// ".part-<uid>-<subtask>-<n>.inprogress" file (opened lazily, buffered) and, at a barrier, closes
// it into a PendingPartFile. Not thread-safe: owned by one subtask.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/operators/part_file_committer.h"

namespace ckpt::engine::operators {

class PartFileWriter {
 public:
  // Writes into `dir` (which must exist) starting at part number `next_part_number`.
  // `buffer_bytes`: bytes collected before one Append to the file. Default: 64 KiB.
  PartFileWriter(base::Fs& fs, std::string dir, std::string uid, uint32_t subtask,
                 uint64_t next_part_number, size_t buffer_bytes = 64 * 1024);
  ~PartFileWriter();
  PartFileWriter(const PartFileWriter&) = delete;
  PartFileWriter& operator=(const PartFileWriter&) = delete;

  // Appends `line` and a '\n', opening a new in-progress file if none is open. AlreadyExists if
  // the in-progress name is taken (a recovery bug, never overwritten), IOError on write failure.
  base::Status WriteLine(std::string_view line);

  // Flushes, syncs and closes the open file and returns it as pending for `checkpoint_id`;
  // nullopt if no file is open (nothing was written since the last close). IOError on failure.
  base::Result<std::optional<PendingPartFile>> CloseForCommit(int64_t checkpoint_id);

  // Drops the open file without making it pending (on failure/cancel): it stays on disk as an
  // in-progress file for the next restore to discard.
  void Abandon();

  bool has_open_file() const { return file_ != nullptr; }
  // Bytes in the open file including the unflushed buffer; 0 if none is open.
  uint64_t open_file_bytes() const { return file_ ? written_bytes_ + buffer_.size() : 0; }
  uint64_t next_part_number() const { return next_part_number_; }

 private:
  base::Status Flush();

  base::Fs& fs_;
  std::string dir_;
  std::string uid_;
  uint32_t subtask_;
  uint64_t next_part_number_;
  size_t buffer_bytes_;

  std::unique_ptr<base::WritableFile> file_;
  uint64_t open_part_number_ = 0;
  uint64_t written_bytes_ = 0;
  std::string buffer_;
  base::Xxh3Stream checksum_;
};

}  // namespace ckpt::engine::operators
