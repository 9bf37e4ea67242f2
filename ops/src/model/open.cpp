// Open: snapshot or root, decided once.
#include "ckpt/ops/open.h"

#include "ckpt/format/layout.h"

namespace ckpt::ops {

base::Result<Opened> Open(base::Fs& fs, const std::string& path) {
  return Open(fs, path, LoadOptions{});
}

base::Result<Opened> Open(base::Fs& fs, const std::string& path, const LoadOptions& options) {
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(path));
  Opened opened;
  bool snapshot = !info.is_dir;
  if (!snapshot) {
    auto md = fs.Stat(base::JoinPath(path, format::kMetadataFileName));
    snapshot = md.ok() && !md->is_dir;
  }
  if (snapshot) {
    CKPT_ASSIGN_OR_RETURN(Snapshot s, LoadSnapshot(fs, path, options));
    opened.snapshot = std::move(s);
    return opened;
  }
  CKPT_ASSIGN_OR_RETURN(opened.jobs, ListRoot(fs, path));
  return opened;
}

}  // namespace ckpt::ops
