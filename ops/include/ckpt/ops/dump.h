// dump: everything a snapshot holds, operator by operator: keyed and operator state decoded
// through the snapshot's type descriptors (changelog state replayed to the values a restore
// sees, or its raw log with `history`), timers as timestamps, sink committables, coordinator
// state decoded with its declared type, and channel state (in-flight buffers, and the records in
// them when the reference engine wrote them). Streamed to a
// sink one entry at a time (constant memory for canonical state: one state-file block; a
// replayed changelog handle holds its log tail and one key group). With a key or key group,
// only that key group's section is read. Stateless; thread-safe given a thread-safe Fs;
// cancellable through Progress.
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
  // Operator: id hex, uid or name (Snapshot::FindOperator). Default: every operator.
  std::string operator_ref;
  // Only this state (by name). Default: all states of the operator.
  std::string state;
  // Only this key, given as JSON of the key type (e.g. 42, "user-1", [1,"a"]). Default: all.
  std::string key_json;
  // Only this key group. Default: all.
  std::optional<uint32_t> key_group;
  // Changelog state as its raw history (materialized entries, then every change of the log
  // tail in sequence order) instead of the replayed values. Default: false (replayed).
  bool history = false;
  // Keyed-state entries to pass over before the first one emitted, counted in emission order
  // and not decoded (a page of a browser over a large key group: page n skips n pages). Apache
  // Flink snapshots ignore it. Default: 0.
  uint64_t skip_keyed_entries = 0;
  // state, key_json or key_group set (requires operator_ref); entries that are not state
  // (committables, coordinator, channel state) never match a filter.
  bool filtered() const { return !state.empty() || !key_json.empty() || key_group.has_value(); }
};

// One decoded entry, valid only during the sink call.
struct DumpEntry {
  std::string operator_id;    // 32 hex digits
  std::string operator_name;  // OperatorLabel: name, else uid, else the ID
  std::string state;          // state entries only
  StateKind kind = StateKind::kUnspecified;
  std::optional<uint32_t> subtask;    // which subtask's handle it came from
  std::optional<uint32_t> key_group;  // keyed state
  std::string key_json;        // keyed state: the key; broadcast: the map key; else empty
  std::string namespace_json;  // keyed state ("null" for VOID)
  std::string user_key_json;   // map key; empty otherwise
  std::string timestamp_json;  // timers: the timer's timestamp (ms); empty otherwise
  // value / element / map value; "null" for timers; coordinator: decoded with value_type;
  // committable: an object (pending_path, final_path, size_bytes, checksum_xxh3,
  // checkpoint_id); channel: the buffer's bytes as a hex string; channel-record: the record's
  // value; channel-watermark: the watermark.
  std::string value_json;
  std::string value_type;      // coordinator: format::TypeName of its declared type, if any
  std::string channel;         // channel: "input <gate>/<channel>" or "output <p>/<sub>"
  // channel: index of the buffer within the channel; channel-record/-watermark: of the buffer
  // the element begins in.
  std::optional<uint32_t> buffer;
  // Where the entry comes from: "state" (the state's value; for a changelog handle, replayed),
  // "changelog" (with DumpOptions::history: one change of the log tail, applied in `sequence`
  // order on top of the materialized entries), "committable", "coordinator", "channel" (one
  // persisted in-flight buffer) and, for channel state the reference engine wrote (its
  // stream-element frames, format/stream_element.h), "channel-record" (key_json, value_json,
  // timestamp_json if the record has one) and "channel-watermark", after the channel's buffers.
  // Such an element is listed once, under the handle it begins in: a frame that begins in an
  // input channel's state and ends in its producer's output-subpartition state (FORMAT.md §8)
  // under the input channel.
  std::string source = "state";
  std::string change_op;  // changelog: "put", "delete", "append" or "clear"
  uint64_t sequence = 0;  // changelog
  // Where the entry's record lies, for keyed and operator state read from a state-file
  // container: the file (index into Snapshot::files) and the record's bytes in that file's
  // record stream, length prefix included (ops::LocateRecord maps them to file bytes). Unset
  // for replayed or logged changelog values, committables, channel state and Flink snapshots.
  std::optional<uint32_t> record_file;
  uint64_t record_offset = 0;
  uint64_t record_length = 0;
};

using DumpSink = std::function<base::Status(const DumpEntry& entry)>;

// Streams the matching entries to `sink`, operator by operator (snapshot order): the coordinator
// state, then per subtask (ascending) keyed state (key group, file order), operator state,
// committables and channel state; stops at the first sink error. NotFound for an unknown
// operator or state; InvalidArgument if a filter is given without an operator, --key does not
// parse as the key type or the key group is out of range; Unimplemented for keyed state in
// RocksDB's native format in a build without RocksDB; Corruption naming the file for malformed
// bytes; Cancelled.
// Returns the number of entries emitted (0 with a filter: nothing matched).
base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                            const DumpSink& sink, const base::Progress& progress = {});

}  // namespace ckpt::ops
