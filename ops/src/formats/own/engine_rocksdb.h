// The keyed state of one native RocksDB handle written by this project's engine (FORMAT.md
// "RocksDB native keyed state"): its SST and meta files read through the Fs seam into RocksDB's
// in-memory Env (flink::ReadRocksDbSnapshot, with the engine's list merge operator), every SST
// first opened with SstFileReader; keys decoded with format/rocksdb_key_layout.h. The snapshot
// on disk is never opened by RocksDB. Private to ckpt::ops.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/status.h"
#include "formats/own/keyed_replay.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {

// Every live entry of `handle`, by key group, each key group's entries ordered by (state index,
// RocksDB key order): the order of a canonical snapshot of the same state. LIST values are the
// whole list (as a canonical record holds it). Unimplemented when this build has no RocksDB;
// Corruption naming the file or the handle for an unreadable SST, a column family no declared
// state names, or a key of another layout.
base::Status ReadEngineRocksDb(base::Fs& fs, const Snapshot& snapshot, const pb::OperatorState& op,
                               const pb::RocksDbStateHandle& handle,
                               std::map<uint32_t, std::vector<KeyedValue>>* out);

}  // namespace ckpt::ops::internal
