// RefuseLinksInPaths: a snapshot's files are reached only through its own real directories.
// Fs::OpenRead refuses a link as the last path component (O_NOFOLLOW); this pass covers the
// directories in between, e.g. a `shared/` that is a link to somewhere else.
#include <map>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

// Empty if `dir` is a real directory (or absent: the file is then missing, CKPT-F001);
// otherwise why it may not be passed through.
std::string Obstacle(base::Fs& fs, const std::string& dir) {
  auto info = fs.LinkStat(dir);
  if (!info.ok()) return {};
  if (info->type == base::FileType::kSymlink) {
    return dir + " is a symbolic link; links in a snapshot are not followed";
  }
  if (info->type != base::FileType::kDirectory) {
    return dir + " is a " + std::string(base::FileTypeName(info->type)) + ", not a directory";
  }
  return {};
}

}  // namespace

void RefuseLinksInPaths(base::Fs& fs, Snapshot* snapshot) {
  std::map<std::string, std::string> checked;  // directory -> obstacle ("" = fine)
  const std::string parent = base::DirName(snapshot->dir);
  for (SnapshotFile& f : snapshot->files) {
    if (f.resolved_path.empty()) continue;
    // As format::ResolveFile lays them out: the directory nothing above is checked, and the
    // path below it.
    std::string root;
    std::string below;
    switch (f.scope) {
      case FileScope::kExclusive:
        root = snapshot->dir;
        below = f.path;
        break;
      case FileScope::kShared:
        root = parent;
        below = base::JoinPath(format::kSharedDirName, f.path);
        break;
      case FileScope::kTaskOwned:
        root = parent;
        below = base::JoinPath(format::kTaskOwnedDirName, f.path);
        break;
      default:
        continue;  // EXTERNAL: outside the snapshot, named by absolute path
    }
    for (size_t slash = below.find('/'); slash != std::string::npos;
         slash = below.find('/', slash + 1)) {
      const std::string dir = base::JoinPath(root, std::string_view(below).substr(0, slash));
      auto it = checked.find(dir);
      if (it == checked.end()) it = checked.emplace(dir, Obstacle(fs, dir)).first;
      if (!it->second.empty()) {
        f.resolve_error = it->second;
        f.link_in_path = true;
        f.resolved_path.clear();
        break;
      }
    }
  }
}

}  // namespace ckpt::ops
