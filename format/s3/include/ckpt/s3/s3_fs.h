// S3Fs: the Fs seam over S3 (or any S3-compatible store). Paths are whole locations
// ("s3://bucket/dir/file", s3a:// and s3p:// too), so one S3Fs serves every bucket and paths
// joined with base::JoinPath stay absolute. Thread-safe, as every Fs.
//
// What an object store can and cannot promise, per operation:
// - A "directory" is a key prefix: CreateDirs and SyncDir do nothing; a directory exists while
//   an object lies under it; RemoveDir of an absent or empty one is OK (the two cannot be told
//   apart) and FailedPrecondition while objects lie under it.
// - Written files become visible, whole, on Close() (one PUT, or a multipart upload completed
//   then; parts are uploaded in parallel as the data comes and aborted on failure or when the
//   file is destroyed unclosed). Sync() does nothing: nothing is visible before Close().
// - PublishAtomic is one PUT: atomic for that object. PublishDir (AlreadyExists when an object
//   lies under final_dir) copies the objects under tmp_dir to final_dir server-side, files named
//   "_metadata" last and created only where none exists (If-None-Match: *, so a concurrent
//   writer of the same final_dir is caught where the server enforces it), then deletes
//   tmp_dir's objects; a failure before the _metadata deletes what it copied. A reader that
//   waits for _metadata (as every snapshot reader does) sees all of the snapshot or none of it;
//   one that lists the directory mid-way may see part of it. The objects of a tree are deleted
//   with batch DeleteObjects, or one DELETE each from the first time the store refuses it.
// - Rename copies then deletes (not atomic). HardLink is Unimplemented (callers copy).
// - Locks are leases (s3_lease.h): TryLockFile writes a small object at `path` naming its holder
//   and an expiry config().lease_ttl_ms ahead, renewed while the lock lives and deleted when it
//   is dropped; FailedPrecondition while another holder's lease is unexpired. A holder killed
//   without dropping it blocks the key until its expiry passes. It assumes the clocks of the
//   processes sharing a lock agree to within two thirds of the time to live.
#pragma once

#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_location.h"

namespace ckpt::s3 {

class S3Fs : public base::Fs {
 public:
  // An Fs over `client` (which it owns).
  explicit S3Fs(std::unique_ptr<S3Client> client);
  ~S3Fs() override;

  S3Client& client() { return *client_; }

  // NotFound when no object has the key (FailedPrecondition when it is a prefix: a directory).
  base::Result<std::unique_ptr<base::RandomAccessFile>> OpenRead(const std::string& path) override;
  base::Result<std::unique_ptr<base::WritableFile>> OpenWrite(const std::string& path) override;
  // AlreadyExists when the object exists at open time or, on servers with conditional writes,
  // when another writer created it before Close().
  base::Result<std::unique_ptr<base::WritableFile>> OpenWriteExclusive(
      const std::string& path) override;
  base::Status Rename(const std::string& from, const std::string& to) override;
  base::Status SyncDir(const std::string& dir) override;
  base::Status CreateDirs(const std::string& dir) override;
  base::Status RemoveFile(const std::string& path) override;
  base::Status RemoveDir(const std::string& path) override;
  base::Result<std::vector<base::DirEntry>> ListDir(const std::string& dir) override;
  base::Result<base::FileInfo> Stat(const std::string& path) override;
  base::Status PublishAtomic(const std::string& path, std::string_view bytes) override;
  base::Status PublishDir(const std::string& tmp_dir, const std::string& final_dir) override;
  base::Result<std::unique_ptr<base::FileLock>> TryLockFile(const std::string& path) override;
  bool SupportsLocks() const override;

 private:
  // Every object under the directory `dir` (recursively): keys relative to it.
  base::Result<std::vector<std::string>> ObjectsUnder(const S3Location& dir);
  // Copies every object under `from` to `to` ("_metadata" last), then deletes the originals.
  // With `publish` each "_metadata" is created only where none exists (CreateObjectFrom), and a
  // failure before it deletes the copies made so far.
  base::Status MoveTree(const S3Location& from, const S3Location& to, bool publish);
  // Creates the object dst_key with the bytes of src_key only if no object has that key: a PUT
  // with If-None-Match: * after a HEAD (the HEAD alone on servers that refuse conditional
  // writes). AlreadyExists when it exists.
  base::Status CreateObjectFrom(const std::string& src_bucket, const std::string& src_key,
                                const std::string& dst_bucket, const std::string& dst_key);

  std::unique_ptr<S3Client> client_;
};

// Makes base::ResolveFs serve s3:, s3a: and s3p: locations with one process-wide S3Fs, created
// on first use from LoadS3Config(ProcessEnvironment()) (its error, e.g. no credentials, is
// returned to every resolve until the process restarts). Also registers the S3
// base::RecoverableWriter of those schemes (RegisterS3RecoverableWriters). Idempotent; thread-safe.
void RegisterS3Schemes();
// Makes base::RecoverableWriterFor serve s3:, s3a: and s3p: locations with multipart uploads
// through the process-wide S3Fs (s3_recoverable_writer.cpp).
void RegisterS3RecoverableWriters();

}  // namespace ckpt::s3
