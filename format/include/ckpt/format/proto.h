// The generated protobuf types of the documented format (format/proto/ckpt/format/v1/*.proto),
// under the short alias ckpt::pb. Only format/, engine/ and ops' private sources include this;
// ops public headers never do.
#pragma once

#include "ckpt/format/v1/job_spec.pb.h"
#include "ckpt/format/v1/metadata.pb.h"
#include "ckpt/format/v1/types.pb.h"

namespace ckpt {
namespace pb = ::ckpt::format::v1;
}  // namespace ckpt
