// SilenceLibraryLogs: the one place ops touches protobuf's logging.
#include "ckpt/ops/logging.h"

#include <google/protobuf/stubs/logging.h>

namespace ckpt::ops {

void SilenceLibraryLogs() { google::protobuf::SetLogHandler(nullptr); }

}  // namespace ckpt::ops
