// ops::Remap: the snapshot's format rewrites it (SnapshotFormat::Remap).
#include "ckpt/ops/remap.h"

#include "ckpt/format/layout.h"
#include "formats/snapshot_format.h"

namespace ckpt::ops {

std::string_view RemapActionName(RemapAction action) {
  switch (action) {
    case RemapAction::kKeep: return "keep";
    case RemapAction::kRename: return "rename";
    case RemapAction::kDrop: return "drop";
  }
  return "keep";
}

base::Result<RemapResult> Remap(base::Fs& fs, const std::string& snapshot,
                                const std::string& output_dir, const RemapOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto location, format::LocateSnapshot(fs, snapshot));
  return internal::FormatAt(fs, location.metadata).Remap(fs, location, output_dir, options);
}

}  // namespace ckpt::ops
