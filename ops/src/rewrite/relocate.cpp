// ops::Relocate: the snapshot's format copies it (SnapshotFormat::Relocate).
#include "ckpt/ops/relocate.h"

#include "ckpt/format/layout.h"
#include "formats/snapshot_format.h"

namespace ckpt::ops {

base::Result<RelocateResult> Relocate(base::Fs& fs, const std::string& snapshot,
                                      const std::string& output_dir,
                                      const RelocateOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto location, format::LocateSnapshot(fs, snapshot));
  return internal::FormatAt(fs, location.metadata).Relocate(fs, location, output_dir, options);
}

}  // namespace ckpt::ops
