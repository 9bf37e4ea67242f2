// Which filesystem a location lives on, decided in one place.
//
// Every face (ckpt-tool, ckpt-inspector) and the engine turn a user-given location (a bare path,
// a "file:" URI, "s3://bucket/key") into an Fs and a path on it here, and nowhere else.
// Built-in schemes: bare paths and "file:" (the POSIX filesystem). Libraries beside base add
// schemes with RegisterFsScheme (ckpt::s3: s3, s3a, s3p), so base depends on none of them. An
// unknown scheme is an error that names it and lists the schemes there are.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::base {

struct ResolvedLocation {
  Fs* fs = nullptr;  // process-lifetime; never null on success
  std::string path;  // the location as that Fs names it (for POSIX: an absolute or relative path)
};

// The one "file:" URI rule: "file:/a/b", "file:///a/b" and "file://localhost/a/b" are /a/b. No
// percent-decoding: Flink writes paths into _metadata and its REST answers as Path strings, not
// encoded URIs, so "%20" stays three characters. A bare path is returned as it is.
// InvalidArgument for a file: URI naming another host, a relative file: path, an embedded NUL,
// and for a location with any other scheme (naming the scheme).
Result<std::string> LocalPathOf(std::string_view location);

// The scheme of `location` ("file", "s3", ...), lower-cased, or "" for a bare path. A scheme is
// letters, digits, '+', '-', '.' starting with a letter, followed by ':' (RFC 3986), and is at
// least two characters long, so "C:/x" is not mistaken for one.
std::string SchemeOf(std::string_view location);

// The schemes ResolveFs accepts, for error messages and --help: "file" and every registered
// scheme, sorted.
std::vector<std::string> BuiltInSchemes();

// Resolves a location of a registered scheme (the whole location, scheme included) to its Fs
// (process-lifetime) and the path on it; the errors are the resolver's own.
using FsSchemeResolver = std::function<Result<ResolvedLocation>(std::string_view location)>;

// Makes ResolveFs hand locations of `scheme` (lower-case, without ':'; not "file") to
// `resolver`, replacing an earlier registration of it. Thread-safe; typically called once at
// start-up by the binary that links the library providing the scheme.
void RegisterFsScheme(const std::string& scheme, FsSchemeResolver resolver);

// Resolves `location` to its filesystem and the path on it. Bare paths and file: URIs resolve
// to Fs::Default(); a registered scheme to its resolver. InvalidArgument naming the scheme and
// BuiltInSchemes() otherwise.
Result<ResolvedLocation> ResolveFs(std::string_view location);

}  // namespace ckpt::base
