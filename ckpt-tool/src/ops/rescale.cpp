// ops::RescaleMaxParallelism: dispatch on the snapshot's format.
#include "ckpt/ops/rescale.h"

#include "ckpt/format/layout.h"
#include "flink_model.h"
#include "flink_rescale.h"

namespace ckpt::ops {

base::Result<RescaleResult> RescaleMaxParallelism(base::Fs& fs, const std::string& snapshot,
                                                  const std::string& output_dir,
                                                  const RescaleOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto location, format::LocateSnapshot(fs, snapshot));
  if (internal::IsFlinkMetadataFile(fs, location.metadata)) {
    return internal::RescaleFlink(fs, location, output_dir, options);
  }
  return base::Status::Unimplemented(
      location.metadata +
      ": rescale-max-parallelism of a ckpt-format snapshot is not implemented yet (only Apache "
      "Flink canonical savepoints); restore it with its recorded max parallelism");
}

}  // namespace ckpt::ops
