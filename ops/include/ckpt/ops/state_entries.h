// State entries: what a snapshot's metadata alone says about the entries of one operator's
// state (how many there are, per key group, and whether that count is exact) and which filters
// a read of that state (Dump) supports, so a browser can size its table and offer the right
// filters before reading a byte of state. Plain functions over the loaded model; stateless and
// thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// True for the keyed kinds whose state-file records are one entry each (value, map, reducing,
// aggregating), so a key group's record count in the container index is its entry count. List
// state (one record, many elements) and timers are not.
bool HasExactEntryCount(StateKind kind);

// The entries of operator `operator_ref`'s keyed state `state` (empty = all its states), from
// the key-group record counts of its handles.
struct StateEntryCount {
  // True when `entries` and every value of `key_group_entries` are the exact number of entries
  // a Dump of this operator and state (without key filter, changelog replayed) emits: every
  // handle is a key-groups handle that records its per-group counts, the operator declares one
  // keyed state, and its kind has exact counts (HasExactEntryCount).
  bool exact = false;
  // Sum of `key_group_entries`: the entry count when `exact`; otherwise only the records the
  // indexes count, which is not an entry count.
  uint64_t entries = 0;
  // Every key group that may hold entries (those an index records as empty are left out), with
  // the records its index counts (0 where none is recorded).
  std::map<uint32_t, uint64_t> key_group_entries;
  // Why the count is not exact ("operator x declares 2 keyed states", "subtask 1 has a rocksdb
  // handle", ...); empty when `exact`, or when the selection has no keyed state.
  std::string not_exact_reason;
  // False when the selected state(s) are not keyed (operator or broadcast state): nothing is
  // counted per key group then.
  bool keyed = false;
};

// Counts the entries of `state` of `operator_ref` (id hex, uid or name) from the metadata.
// NotFound for an unknown operator, or a state the operator does not declare; InvalidArgument
// for an ambiguous name (Snapshot::FindOperator).
base::Result<StateEntryCount> CountStateEntries(const Snapshot& snapshot,
                                                const std::string& operator_ref,
                                                const std::string& state = "");

// Which key filters a Dump of `state` (empty = all states) of `operator_ref` accepts.
struct KeyFilterSupport {
  // DumpOptions::key_json: the selection has keyed state, so an exact key (JSON of its key
  // type) can be hashed to its key group and sought.
  bool exact_key = false;
  // DumpOptions::key_group: the selection has keyed state.
  bool key_group = false;
  std::string key_type;  // the keyed state's key type (format::TypeName); empty if not keyed
  std::string reason;    // why not, when exact_key is false
};

// NotFound / InvalidArgument as CountStateEntries.
base::Result<KeyFilterSupport> KeyFilterSupportOf(const Snapshot& snapshot,
                                                  const std::string& operator_ref,
                                                  const std::string& state = "");

// The fields of one state's values, so a browser can show one column per field: their names
// and where each sits in an entry's DumpEntry::value_json.
struct StateValueFieldList {
  // Where field i sits in a value_json.
  enum class Layout {
    kNone,          // not a composite with known fields: `names` is empty
    kObjectMember,  // the member names[i] of a JSON object (our named tuples, Flink Pojos)
    kArrayElement,  // element i of a JSON array (Flink Tuples: names f0..fN)
    kRowField,      // element i of the array "fields" of {"kind":..,"fields":[..]} (Flink Rows,
                    // whose snapshot holds no field names: f0..fN)
  };
  Layout layout = Layout::kNone;
  // Field names in value_json order; empty when the value is not a composite with known fields.
  std::vector<std::string> names;
};

// The fields of the values of `state` of `operator_ref` (id hex, uid or name): our format's
// tuples whose fields are all named (rendered as JSON objects), and Flink's Pojo, Tuple and Row
// serializers the reader decodes. An empty `state` selects the operator's one state (no fields
// when it declares several). For list state the fields are those of one element when a Dump
// emits one element per entry (our format, Flink operator state), none for Flink keyed list
// state (one entry holds the whole list); for map state those of the map's values. Flink
// keyed states read the serializers from the head of one keyed state file through `fs`; Flink
// operator state is not read (no fields). NotFound / InvalidArgument as CountStateEntries;
// IOError / Corruption when a Flink state file head cannot be read.
base::Result<StateValueFieldList> StateValueFields(base::Fs& fs, const Snapshot& snapshot,
                                                   const std::string& operator_ref,
                                                   const std::string& state);

}  // namespace ckpt::ops
