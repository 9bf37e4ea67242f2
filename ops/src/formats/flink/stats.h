// Private to ckpt::ops: stats over an Apache Flink snapshot. Key-group sizes come from the
// key-group offsets Flink records in `_metadata` (no state bytes are read); entries of
// operator state from its partition offsets; keyed entries (per state and key group) are counted
// by decoding the keyed state as dump does (heap, full and RocksDB layouts).
#pragma once

#include <map>
#include <optional>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/status.h"
#include "ckpt/flink/metadata.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"

namespace ckpt::ops::internal {

// Adds the key groups of operator `id_hex` to `groups` (by key group) and the operator-state
// entry counts to `out->states` (matched by name).
base::Status ScanFlinkOperator(const flink::Metadata& md, const std::string& id_hex,
                               std::map<uint32_t, KeyGroupStats>* groups, OperatorStats* out);

// Counts the keyed entries of operator `id_hex` of `snapshot` into `out->states[].entries` and
// `groups[].records` (groups already listed). A layout dump does not decode (changelog) or a missing file leaves the
// counts at 0; Corruption from the state bytes is returned. With `top_keys` > 0 the same pass
// ranks the largest keys into `out->largest_keys` and `out->states[].largest_keys` (and says in
// `out->largest_keys_unknown` what it could not attribute). With `expired_at_ms` it fills each
// state's `ttl` and `ttl_stats` (expired: last access + `ttl_ms` <= `expired_at_ms`) and
// `out->ttl_unknown`.
base::Status CountFlinkKeyedEntries(base::Fs& fs, const Snapshot& snapshot, const std::string& id_hex,
                                    std::map<uint32_t, KeyGroupStats>* groups, OperatorStats* out,
                                    const base::Progress& progress, uint32_t top_keys = 0,
                                    std::optional<int64_t> expired_at_ms = std::nullopt,
                                    int64_t ttl_ms = 0);

}  // namespace ckpt::ops::internal
