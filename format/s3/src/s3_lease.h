// A lease: the lock an S3 store can offer (S3Fs::TryLockFile). S3 has no locks, so a holder
// keeps a small object at the lock's key that names it (a token unique to this lock) and the
// wall-clock time its hold expires, and renews it (a PUT) every third of its time to live while
// the lock object lives; dropping the lock deletes the object when it is still this holder's.
// A contender takes the lock when no object lies there, an empty one does (the lock file a POSIX
// engine leaves in a job directory that was copied to S3) or its expiry has passed.
//
// What it assumes (docs/object-storage.md): the clocks of the processes that share a lock differ
// by less than two thirds of the time to live (the margin a renewal leaves), and a holder is not
// stalled that long between renewals; two contenders racing for a free key are told apart by
// If-None-Match on stores that enforce it, and otherwise by reading the object back after the
// write (which leaves a window of one request's latency).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_location.h"

namespace ckpt::s3 {

// What a lease object says.
struct S3Lease {
  std::string owner;       // "<host>:<pid>:<random token>"
  int64_t expires_ms = 0;  // ms since the Unix epoch, the holder's clock
};

// "owner=...\nexpires_ms=...\n"; ParseS3Lease is its inverse (Corruption naming `where` for
// anything else).
std::string FormatS3Lease(const S3Lease& lease);
base::Result<S3Lease> ParseS3Lease(std::string_view text, const std::string& where);

// Takes the lease at `loc` for `ttl_ms` (renewed by a thread of the returned lock).
// FailedPrecondition naming the holder and its expiry while another holder's lease is unexpired
// (or another contender won the race); errors of the client otherwise.
base::Result<std::unique_ptr<base::FileLock>> TryTakeS3Lease(S3Client& client, S3Location loc,
                                                             const std::string& path,
                                                             int64_t ttl_ms);

}  // namespace ckpt::s3
