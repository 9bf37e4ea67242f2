// PositionsOwn: the connector positions of a snapshot of this format (ops::ComputePositions).
// Placeholder of the contract commit: decodes nothing yet; its decoders replace this body.
#include "formats/own/own_format.h"

namespace ckpt::ops::internal {

base::Status PositionsOwn(base::Fs&, const Snapshot&, const base::Progress&, PositionsReport*) {
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
