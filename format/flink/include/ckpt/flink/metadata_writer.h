// Writes flink::Metadata back as the bytes of an Apache Flink `_metadata` file, in the metadata
// version it holds (2-7), the way Flink's MetadataV2..V7 serializers write it: a file read by
// ReadFlinkMetadata and written back unchanged is byte-identical. Byte grammar:
// docs/flink-format.md. Stateless functions; thread-safe.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/flink/metadata.h"

namespace ckpt::flink {

// The bytes of `md` as `_metadata` of version md.version. v4+: md.trailer (the Java-serialized
// CheckpointProperties) is copied verbatim. Subtask entries follow
// OperatorState::entry_order when it matches the subtasks, else ascending subtask index.
// Unimplemented for a version outside 2-7; InvalidArgument, naming the operator (and subtask)
// and the field, for what the version cannot hold (a uid in v2-v4, channel state in v2, a
// merged channel handle before v6, a ref checkpoint id before v7, a finished subtask in v2, a
// fully finished operator with coordinator state or subtasks, coordinator state that is not
// inline), a string Java's writeUTF cannot take, or a trailer before v4.
base::Result<std::string> SerializeFlinkMetadata(const Metadata& md);

// Serializes `md` and writes it to `path` atomically (temp file, fsync, rename, fsync of the
// directory: Fs::PublishAtomic), replacing an existing file. Errors as
// SerializeFlinkMetadata, IOError from the Fs.
base::Status WriteFlinkMetadata(base::Fs& fs, const Metadata& md, const std::string& path);

}  // namespace ckpt::flink
