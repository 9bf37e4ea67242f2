// ops::RescaleMaxParallelism: the snapshot's format rescales it (SnapshotFormat::Rescale).
#include "ckpt/ops/rescale.h"

#include "ckpt/format/layout.h"
#include "formats/snapshot_format.h"

namespace ckpt::ops {

base::Result<RescaleResult> RescaleMaxParallelism(base::Fs& fs, const std::string& snapshot,
                                                  const std::string& output_dir,
                                                  const RescaleOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto location, format::LocateSnapshot(fs, snapshot));
  return internal::FormatAt(fs, location.metadata).Rescale(fs, location, output_dir, options);
}

}  // namespace ckpt::ops
