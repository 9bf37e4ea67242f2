// The two-phase-commit file sink on an object store (a location with a base::RecoverableWriter,
// e.g. s3://bucket/out): a part file in progress is a multipart upload of the object at its
// final key "part-<uid>-<subtask>-<n>" (invisible until completed); at a barrier every byte is
// uploaded and the file becomes a PendingPartFile whose final_path is that location, with the
// upload's id and part ETags (pending_path is empty).
// Committing completes the upload (idempotently); recovery commits the restored pending files
// and aborts the sink's other open uploads of the subtasks it owns. Not thread-safe per writer;
// the functions are stateless.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/base/recoverable_writer.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/operators/part_file_committer.h"

namespace ckpt::engine::operators {

// The commit a PendingPartFile of an object store records. Corruption naming its location when
// it records no upload id or no parts.
base::Result<base::RecoverableCommit> MultipartCommitOf(const PendingPartFile& file);

// Completes the upload of `file`; OK when it was completed before. Errors: MultipartCommitOf's,
// RecoverableWriter::Commit's (NotFound: the output was lost).
base::Status CommitMultipartPartFile(base::RecoverableWriter& writer, const PendingPartFile& file);

// Restore of subtask `subtask` of `parallelism` of the sink `uid` writing to `dir` on an object
// store: commits `restored_pending`, then aborts every open upload of "part-<uid>-<k>-<n>" under
// `dir` with k % parallelism == subtask that `restored_pending` does not record (written after
// the snapshot; the restored job writes it again). `fs` lists the committed objects for
// next_part_number. `discarded` lists the aborted uploads' locations; `committed` counts every
// restored pending file (an object store does not tell a completion now from an earlier one).
base::Result<PartFileRecovery> RecoverMultipartPartFiles(
    base::RecoverableWriter& writer, base::Fs& fs, const std::string& dir, const std::string& uid,
    uint32_t subtask, uint32_t parallelism, const std::vector<PendingPartFile>& restored_pending);

// Writes lines into multipart uploads "part-<uid>-<subtask>-<n>" under `dir`.
class MultipartPartFileWriter {
 public:
  MultipartPartFileWriter(base::RecoverableWriter& writer, std::string dir, std::string uid,
                          uint32_t subtask, uint64_t next_part_number);

  // Appends `line` and '\n', starting an upload if none is open.
  base::Status WriteLine(std::string_view line);
  // Uploads what is left and returns the open file as pending for `checkpoint_id`; nullopt if
  // none is open.
  base::Result<std::optional<PendingPartFile>> CloseForCommit(int64_t checkpoint_id);
  // Drops the open file: its upload stays open until the next restore aborts it.
  void Abandon();

 private:
  base::RecoverableWriter& writer_;
  std::string dir_;
  std::string uid_;
  uint32_t subtask_;
  uint64_t next_part_number_;
  std::unique_ptr<base::RecoverableStream> stream_;
  std::string location_;
  base::Xxh3Stream checksum_;
  std::string line_;
};

}  // namespace ckpt::engine::operators
