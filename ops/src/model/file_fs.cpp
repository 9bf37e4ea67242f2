// FsOfSnapshotFile: see model/file_fs.h.
#include "model/file_fs.h"

#include <string>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/base/resolving_fs.h"

namespace ckpt::ops {

base::Fs& FsOfSnapshotFile(base::Fs& snapshot_fs, std::string_view snapshot_dir,
                           std::string_view path) {
  const std::string scheme = base::SchemeOf(path);
  if (scheme.empty() || scheme == "file" || scheme == base::SchemeOf(snapshot_dir)) {
    return snapshot_fs;
  }
  return base::ResolvingFs();
}

}  // namespace ckpt::ops
