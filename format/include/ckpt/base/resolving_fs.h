// ResolvingFs: one Fs over every filesystem base::ResolveFs knows, for an operation that reads on
// one and writes on another (a snapshot on S3 copied to a local directory). Each call resolves
// the location it is given and forwards to that location's Fs. Thread-safe, as every Fs.
#pragma once

#include "ckpt/base/fs.h"

namespace ckpt::base {

// The process-wide ResolvingFs. Its paths are locations as ResolveFs takes them (bare paths,
// file: URIs, registered schemes such as s3://), and the paths of its files and listings are the
// locations it was given. Errors: those of ResolveFs for a location it cannot resolve, else
// those of the Fs the call was forwarded to. A call naming two locations on different
// filesystems: HardLink is Unimplemented (callers copy the bytes), Rename and PublishDir are
// InvalidArgument naming both. SupportsLocks() is false: no one lock spans two filesystems.
Fs& ResolvingFs();

}  // namespace ckpt::base
