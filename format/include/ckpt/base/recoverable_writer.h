// RecoverableWriter: files that a two-phase-commit sink writes on a store without rename (an
// object store), as Flink's RecoverableWriter. A file is written through a RecoverableStream and,
// at a checkpoint, closed into a RecoverableCommit: nothing is visible yet, but the commit holds
// everything needed to publish it later, from this process or after a restart (on S3: the key,
// the multipart upload id and the part ETags; every byte is uploaded before the checkpoint).
// Commit publishes it, idempotently. Uploads of attempts that failed before their checkpoint
// are found with ListOpen and dropped with Abort.
// Stores register a writer per scheme (ckpt::s3 for s3:, s3a:, s3p:); base depends on none.
// The POSIX filesystem has no RecoverableWriter: the file sink renames files there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"

namespace ckpt::base {

// A closed, not yet published file.
struct RecoverableCommit {
  std::string location;  // where the file is published (the whole location, scheme included)
  std::string upload_id;
  std::vector<std::string> part_etags;  // in part order, from part 1
  uint64_t size_bytes = 0;
  bool operator==(const RecoverableCommit&) const = default;
};

// An upload that was neither published nor dropped.
struct OpenUpload {
  std::string location;
  std::string upload_id;
  int64_t initiated_ms = 0;  // when it was started, ms since the epoch; 0 when unknown
};

// One file being written; used by one thread at a time.
class RecoverableStream {
 public:
  virtual ~RecoverableStream() = default;
  // Appends `data` (uploaded in parts as they fill). IOError naming the location on failure.
  virtual Status Write(std::string_view data) = 0;
  // Uploads what is buffered and returns the commit; the stream is done afterwards.
  virtual Result<RecoverableCommit> CloseForCommit() = 0;
  // Bytes written so far.
  virtual uint64_t size_bytes() const = 0;
};

class RecoverableWriter {
 public:
  virtual ~RecoverableWriter() = default;
  // Starts a file that Commit will publish at `location`.
  virtual Result<std::unique_ptr<RecoverableStream>> Open(const std::string& location) = 0;
  // Publishes `commit`. Idempotent: OK when the file was already published with exactly these
  // parts. NotFound when the upload is gone and the file is not there (the output was lost);
  // IOError otherwise.
  virtual Status Commit(const RecoverableCommit& commit) = 0;
  // Every open upload whose location starts with `prefix`.
  virtual Result<std::vector<OpenUpload>> ListOpen(const std::string& prefix) = 0;
  // Drops an open upload; OK when it is already gone.
  virtual Status Abort(const OpenUpload& upload) = 0;
};

// Resolves a location of a scheme to its writer (process-lifetime).
using RecoverableWriterResolver = std::function<Result<RecoverableWriter*>(std::string_view)>;

// Makes RecoverableWriterFor hand locations of `scheme` (lower-case, without ':') to `resolver`.
// Thread-safe; called at start-up by the library providing the scheme.
void RegisterRecoverableWriterScheme(const std::string& scheme,
                                     RecoverableWriterResolver resolver);

// Whether a writer is registered for the scheme of `location` (SchemeOf).
bool HasRecoverableWriter(std::string_view location);

// The writer for `location`. Unimplemented naming the scheme when none is registered for it
// (bare paths and file: have none); the resolver's errors otherwise.
Result<RecoverableWriter*> RecoverableWriterFor(std::string_view location);

}  // namespace ckpt::base
