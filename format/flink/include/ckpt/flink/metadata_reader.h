// Reads an Apache Flink `_metadata` file (checkpoint or savepoint, metadata versions 2-7) into
// flink::Metadata, through the Fs seam, without a JVM. Byte grammar: docs/flink-format.md.
// Stateless functions; thread-safe given a thread-safe Fs.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/flink/metadata.h"

namespace ckpt::flink {

// True if `head` (the first bytes of a file, at least 4) starts with Flink's metadata magic
// 0x4960672D.
bool HasFlinkMagic(std::string_view head);

// Decodes the bytes of a `_metadata` file. `path` names it in errors; relative handles are
// checked (never absolute, no "."/".." component) but not resolved. Corruption naming `path`
// and the byte offset for bad magic, truncation, an impossible length or count, an unknown tag,
// an escaping relative path or trailing garbage; Unimplemented for version 1 ("Flink 1.1/1.2
// savepoint, not supported") and for versions newer than 7.
base::Result<Metadata> ParseFlinkMetadata(std::string_view bytes, const std::string& path);

// Every byte of a v4+ file ends with its CheckpointProperties trailer, which Flink's restore
// reads in full. ParseFlinkMetadata keeps a file whose trailer is missing, cut short, undecodable
// or followed by more bytes readable (its operators are intact) and records why in
// Metadata::properties_error; this says whether the file is whole: OK for v2/v3 and for decoded
// properties, otherwise Corruption with that message (path and byte offset).
base::Status PropertiesStatus(const Metadata& md);

// Receives the operator states of a `_metadata` one at a time, in file order. The object is
// refilled for the next operator (its memory reused): read it or move from it, but keep no
// reference into it. A non-OK status stops the parse and is returned.
using OperatorVisitor = std::function<base::Status(OperatorState&)>;

// As ParseFlinkMetadata, handing each operator state to `visit` instead of keeping it: the
// result's `operators` stays empty. Decoded, a 10,000-subtask file is tens of megabytes; one
// operator at a time, what the largest operator needs. Errors as ParseFlinkMetadata, or the
// first error `visit` returns.
base::Result<Metadata> ParseFlinkMetadata(std::string_view bytes, const std::string& path,
                                          const OperatorVisitor& visit);

// Reads and decodes `metadata_path` (the `_metadata` file itself). IOError / NotFound from the
// Fs, otherwise as ParseFlinkMetadata. Sets Metadata::dir to the file's directory.
base::Result<Metadata> ReadFlinkMetadata(base::Fs& fs, const std::string& metadata_path);

// The bytes of the file at `metadata_path`. IOError / NotFound from the Fs.
base::Result<std::string> ReadFlinkMetadataBytes(base::Fs& fs, const std::string& metadata_path);

// The directory of `metadata_path`, the base of its relative handles (Metadata::dir).
std::string FlinkMetadataDir(const std::string& metadata_path);

// The local path of a file handle: tag 6 → <dir>/<relative>; tag 2 and segment files → the
// path by base::LocalPathOf's file: rule. InvalidArgument (naming the path) for a handle of a
// non-local file system (hdfs://, s3://, ...), a file: URI naming another host, a path that is
// not absolute, or a non-file handle.
base::Result<std::string> LocalPath(const Metadata& md, const StreamHandle& handle);

// Where the file behind a file handle lives, as base::ResolveFs takes it: LocalPath's answer for
// a relative handle and for a local absolute one (a bare path or a file: URI); an absolute
// handle of another scheme (s3://bucket/key, s3a://, ...) as written, when base::ResolveFs
// resolves it. InvalidArgument as LocalPath, and base::ResolveFs's error (which names the
// scheme and the registered ones) for a scheme no filesystem is registered for.
base::Result<std::string> HandleLocation(const Metadata& md, const StreamHandle& handle);

// Corruption unless `path` is a non-empty relative path without "", "." or ".." components,
// backslashes or NUL: what a RelativeFileStateHandle may hold.
base::Status CheckRelativeHandlePath(std::string_view path);

}  // namespace ckpt::flink
