// dump: the keys and values of one operator's state, decoded through the snapshot's type
// descriptors, streamed to a sink one record at a time (constant memory: one state-file block).
// With a key or key group, only that key group's section is read. Stateless; thread-safe given
// a thread-safe Fs; cancellable through Progress.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct DumpOptions {
  // Operator: id hex, uid or name (Snapshot::FindOperator). Required.
  std::string operator_ref;
  // Only this state (by name). Default: all states of the operator.
  std::string state;
  // Only this key, given as JSON of the key type (e.g. 42, "user-1", [1,"a"]). Default: all.
  std::string key_json;
  // Only this key group. Default: all.
  std::optional<uint32_t> key_group;
};

// One decoded entry, valid only during the sink call.
struct DumpEntry {
  std::string state;
  StateKind kind = StateKind::kUnspecified;
  std::optional<uint32_t> subtask;    // which subtask's handle it came from
  std::optional<uint32_t> key_group;  // keyed state
  std::string key_json;        // keyed state: the key; broadcast: the map key; else empty
  std::string namespace_json;  // keyed state ("null" for VOID)
  std::string user_key_json;   // map/timers; empty otherwise
  std::string value_json;      // value / element / map value; "null" for timers
  // Where the entry comes from: "state" (a snapshot of the state) or "changelog" (a change of
  // the changelog backend's log tail, to be applied in `sequence` order on top of the
  // materialized state).
  std::string source = "state";
  std::string change_op;  // changelog: "put", "delete", "append" or "clear"
  uint64_t sequence = 0;  // changelog
};

using DumpSink = std::function<base::Status(const DumpEntry& entry)>;

// Streams the matching entries in (subtask, key group, file order) order to `sink`, stopping at
// the first sink error. NotFound for an unknown operator or state; InvalidArgument if --key does
// not parse as the key type or the key group is out of range; Unimplemented for keyed state in
// RocksDB's native format; Corruption naming the file for malformed bytes; Cancelled.
// Returns the number of entries emitted.
base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                            const DumpSink& sink, const base::Progress& progress = {});

}  // namespace ckpt::ops
