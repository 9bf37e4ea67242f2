// Private to ckpt::ops: reading the bytes behind Flink state handles through the Fs seam, and
// the keyed-state meta information of a keyed handle.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/metadata.h"

namespace ckpt::ops::internal {

// The bytes of `h` (inline data, a whole file, or a segment of one), at most `max_bytes`.
// A file named by absolute URI (s3://...) is read on the Fs of its scheme (FsOfSnapshotFile).
// NotFound / IOError from the Fs (naming the path); InvalidArgument for a file on a filesystem
// with no Fs registered (naming its scheme).
base::Result<std::string> ReadStreamBytes(base::Fs& fs, const flink::Metadata& md,
                                          const flink::StreamHandle& h,
                                          uint64_t max_bytes = UINT64_MAX);

// Where the bytes of `h` live, for messages ("_metadata" for inline state).
std::string StreamName(const flink::Metadata& md, const flink::StreamHandle& h);

// The keyed backend meta information of `h`: the head of a key-group stream (tags 3/7/12), the
// meta handle of a RocksDB handle (5/11), or that of a changelog handle's first materialized
// handle (without one: the states its log registers, the key serializer from its timer
// states). NotFound if `h` has none.
base::Result<flink::KeyedBackendMeta> ReadKeyedMeta(base::Fs& fs, const flink::Metadata& md,
                                                    const flink::KeyedHandle& h);

}  // namespace ckpt::ops::internal
