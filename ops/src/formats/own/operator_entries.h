// Private to ckpt::ops: the operator-state entries of a snapshot of our format, read from the
// records of an operator-state handle (FORMAT.md: OperatorStatePartition.entry_offsets name the
// records of each declared state). Shared by dump and positions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

// The OperatorState of `id_hex` in the snapshot's metadata, or nullptr.
const pb::OperatorState* OwnOperatorState(const Snapshot& snapshot, const std::string& id_hex);

// One entry: its state, the record's logical offset and length (length prefix included), and
// the decoded record (key for broadcast state, value).
struct OperatorStateEntry {
  const pb::StateDescriptor* state = nullptr;
  uint64_t logical_offset = 0;
  uint64_t record_length = 0;
  format::OperatorRecord record;
};

// Calls `visit` for each record of handle `h` whose logical offset `wanted` lists, in file
// order. Corruption naming the file for a record that does not decode; the file's open and
// read errors; Cancelled when `cancelled` says so; `visit`'s first error.
base::Status ForEachOperatorStateEntry(
    base::Fs& fs, const Snapshot& snapshot, const pb::OperatorStateHandle& h,
    const std::map<uint64_t, const pb::StateDescriptor*>& wanted,
    const std::function<bool()>& cancelled,
    const std::function<base::Status(const std::string& path, const OperatorStateEntry&)>& visit);

}  // namespace ckpt::ops::internal
