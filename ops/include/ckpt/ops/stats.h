// stats: where a snapshot's bytes are (by operator, state and key group, and the in-flight data
// of unaligned checkpoints by edge), key-group skew, and union state whose entry count is far
// above parallelism. Reads state-file footers (sizes per
// key group) and, for per-state sizes of keyed state, streams the records once.
// Stateless; thread-safe given a thread-safe Fs; cancellable through Progress.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/in_flight.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct StatsOptions {
  // Scan keyed records to attribute bytes and entries to each state. Default: true.
  bool per_state = true;
  // Key groups listed as largest in the skew report. Default: 5.
  uint32_t top_key_groups = 5;
  // Skew finding when the largest key group exceeds this multiple of the median. Default: 10.
  double skew_factor = 10.0;
  // Union-state finding when entries per subtask exceed this multiple of parallelism.
  // Default: 10.
  double union_factor = 10.0;
  // Largest keys listed per keyed state and per operator (all its keyed states together), by
  // serialized size; the scan holds at most this many keys per list besides one key group's.
  // Default: 0 (keys are not ranked).
  uint32_t top_keys = 0;
  // With a value: the TTL report (docs/state-insights.md). Each value of a state with a TTL
  // (Apache Flink StateTtlConfig) is expired at this time (epoch ms) when its last access +
  // `ttl_ms` <= it (TtlUtils.expired). Default: none (no TTL report).
  std::optional<int64_t> ttl_expired_at_ms;
  // The states' TTL in ms (the snapshot does not record it); > 0 with ttl_expired_at_ms.
  int64_t ttl_ms = 0;
};

// With StatsOptions::ttl_expired_at_ms: the TTL-wrapped values of one state. A value is a value
// state's value, a list state's element or a map state's entry; its bytes are its serialized
// last-access timestamp and user value.
struct TtlStats {
  uint64_t entries = 0;
  uint64_t expired_entries = 0;
  uint64_t bytes = 0;
  uint64_t expired_bytes = 0;
  int64_t min_last_access = 0;  // epoch ms; 0 when there are no entries
  int64_t max_last_access = 0;
};

// One key's bytes in a state (or in all keyed states of an operator): the serialized key,
// namespace, map key and value of every entry of the key (no framing, no key-group prefix).
struct KeySize {
  std::string key_json;  // the key as dump prints it
  uint32_t key_group = 0;
  uint64_t bytes = 0;
  uint64_t entries = 0;
};

struct StateStats {
  std::string name;
  StateKind kind = StateKind::kUnspecified;
  uint64_t entries = 0;     // records (keyed) or entries (operator state)
  uint64_t bytes = 0;       // logical (uncompressed) record bytes
  // On-disk bytes: each file's size split among the states by their share of its logical
  // record bytes (docs/sizes.md), so an operator's states never add up to more than its
  // file_bytes. 0 when per_state is off.
  uint64_t file_bytes = 0;
  uint64_t checkpointed_file_bytes = 0;  // the part of file_bytes in files this snapshot wrote
  // False when the reader of the snapshot's format does not measure single states (Apache
  // Flink): bytes, file_bytes and checkpointed_file_bytes are then unknown, not 0.
  bool bytes_known = true;
  // With top_keys: the largest keys of this keyed state, largest first; ties in the order of the
  // serialized key (our format) or of the key's JSON (Apache Flink).
  std::vector<KeySize> largest_keys;
  // With ttl_expired_at_ms: whether the state's values carry a TTL (their serializer snapshot is
  // Flink's TtlSerializerSnapshot), and if so their expiry.
  bool ttl = false;
  TtlStats ttl_stats;
};

struct KeyGroupStats {
  uint32_t key_group = 0;
  uint64_t bytes = 0;       // logical bytes of the section
  uint64_t records = 0;
};

struct OperatorStats {
  std::string id_hex;
  std::string name;
  std::string uid;
  UidOrigin uid_origin = UidOrigin::kRecorded;  // OperatorInfo::uid_origin
  uint32_t parallelism = 0;
  uint32_t max_parallelism = 0;
  uint64_t file_bytes = 0;        // on-disk bytes of its files (OperatorInfo::total_bytes)
  uint64_t keyed_logical_bytes = 0;
  std::vector<StateStats> states;          // declared order
  std::vector<KeyGroupStats> key_groups;   // ascending; only groups with data
  uint64_t median_key_group_bytes = 0;
  std::vector<KeyGroupStats> largest_key_groups;  // top N by bytes, ties by key group
  double skew = 0.0;  // largest / median (0 when no keyed data)
  // With top_keys: the largest keys over all keyed states, ordered as StateStats::largest_keys.
  std::vector<KeySize> largest_keys;
  // With top_keys: empty when every keyed entry was attributed to its key; otherwise why some
  // keyed bytes could not be (then largest_keys covers only the rest).
  std::string largest_keys_unknown;
  // With ttl_expired_at_ms: empty when every TTL value of the operator was read; otherwise why
  // some were not (then ttl_stats cover only the rest).
  std::string ttl_unknown;
};

using EdgeInFlightStats = EdgeInFlight;

struct StatsReport {
  uint64_t total_file_bytes = 0;  // the snapshot's full size (Snapshot::full_size_bytes)
  // `_metadata`'s bytes that are no operator's inline state (Snapshot::metadata_own_bytes).
  uint64_t metadata_own_bytes = 0;
  std::vector<OperatorStats> operators;  // snapshot order
  // In-flight data by edge (ComputeInFlightByEdge).
  std::vector<EdgeInFlight> in_flight;
  uint64_t unattributed_in_flight_bytes = 0;
  std::vector<Finding> findings;         // CKPT-S001 skew, CKPT-S002 union state; sorted
};

// Parses a point in time for StatsOptions::ttl_expired_at_ms: ISO-8601 UTC
// ("2026-12-08T01:00:00Z", optionally with up to 3 fraction digits: ".250Z") or epoch
// milliseconds ("1796691600000"). InvalidArgument naming `text` otherwise.
base::Result<int64_t> ParseTimeMs(std::string_view text);

// Computes statistics of a loaded snapshot. Corruption (naming the file) if a state file cannot
// be read; Cancelled if `progress` is cancelled.
base::Result<StatsReport> ComputeStats(base::Fs& fs, const Snapshot& snapshot,
                                       const StatsOptions& options = {},
                                       const base::Progress& progress = {});

}  // namespace ckpt::ops
