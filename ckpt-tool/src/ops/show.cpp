// show --format json: protobuf's canonical JSON mapping of the whole CheckpointMetadata, printed
// by proto_json.cpp (byte-identical to protobuf's printer, ~10x faster on large metadata).
#include "ckpt/ops/show.h"

#include "proto_json.h"
#include "snapshot_raw.h"

namespace ckpt::ops {

base::Result<std::string> MetadataJson(const Snapshot& snapshot) {
  std::string json;
  internal::AppendProtoJson(RawMetadata(snapshot), &json);
  return json;
}

}  // namespace ckpt::ops
