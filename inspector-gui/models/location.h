// Where a location the user gives the inspector (File > Open, the command line, a dropped URL,
// the Diff page, a prune root) lives: its filesystem and the path on it, resolved once through
// base::ResolveFs. Everything below (loaders, models, views) is handed that Fs; nothing in the
// inspector picks a filesystem by itself. Callable from any thread.
#pragma once

#include <QString>

#include "ckpt/base/fs.h"

namespace ckpt::inspector {

// A resolved location: `fs` (process-lifetime) and `path` on it, or `error` when it does not
// resolve (an unknown scheme: the message names it and the schemes that are built in).
struct OpenedLocation {
  base::Fs* fs = nullptr;
  QString path;
  QString error;
  bool ok() const { return fs != nullptr; }
};

// Resolves `location` (a bare path or a file: URI is the POSIX filesystem). Never fails for a
// bare path; an unknown scheme or a malformed file: URI yields `error`.
OpenedLocation resolveLocation(const QString& location);

// `path` (an OpenedLocation::path) in the one spelling the window compares and shows: a local
// path through QDir::cleanPath; a location with a scheme ("s3://bucket/key") as it is, without
// trailing '/' after the key, since cleaning would fold its "//" and name another location.
QString cleanLocation(const QString& path);

}  // namespace ckpt::inspector
