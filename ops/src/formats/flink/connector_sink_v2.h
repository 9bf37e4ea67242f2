// Private to ckpt::ops: Flink's sink V2 committer state, CommittableCollectorSerializer v2
// (magic 0xb91f252c): per checkpoint, per upstream subtask, the committables still to commit,
// each as the sink's own SimpleVersioned bytes. Pure; thread-safe. docs/flink-format.md.
#pragma once

#include <cstdint>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/flink/data_input.h"
#include "formats/flink/connector_common.h"

namespace ckpt::ops::internal::connector {

struct PendingCommittable {
  int64_t checkpoint_id = 0;
  int32_t subtask = -1;  // the writer subtask that produced it
  Versioned committable;  // the sink's committable serializer's version and bytes
};

base::Result<std::vector<PendingCommittable>> DecodeCommittableCollector(int32_t version,
                                                                         flink::DataInput& in);

}  // namespace ckpt::ops::internal::connector
