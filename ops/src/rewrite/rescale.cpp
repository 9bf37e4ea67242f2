// ops::RescaleMaxParallelism: dispatch on the snapshot's format.
#include "ckpt/ops/rescale.h"

#include "ckpt/format/layout.h"
#include "formats/flink/model.h"
#include "formats/flink/rescale.h"
#include "formats/own/rescale.h"

namespace ckpt::ops {

base::Result<RescaleResult> RescaleMaxParallelism(base::Fs& fs, const std::string& snapshot,
                                                  const std::string& output_dir,
                                                  const RescaleOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto location, format::LocateSnapshot(fs, snapshot));
  if (internal::IsFlinkMetadataFile(fs, location.metadata)) {
    return internal::RescaleFlink(fs, location, output_dir, options);
  }
  return internal::RescaleOwn(fs, location, output_dir, options);
}

}  // namespace ckpt::ops
