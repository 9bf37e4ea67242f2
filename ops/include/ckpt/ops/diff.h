// Diff: what changed between two snapshots — operators added, removed or changed (ID, uid,
// parallelism, max parallelism), size deltas per operator and state, files added, removed and
// shared — and, with DiffKeys, keyed entries added, removed or changed, found by a streaming
// merge one key group at a time (memory bounded by the largest key group, never a whole state).
// Stateless functions; thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// kSame is only ever the verdict of a comparison of values (diff --keys); kSizeUnchanged says
// that sizes and entry counts are equal but values were not compared.
enum class DiffChange { kSame, kAdded, kRemoved, kChanged, kSizeUnchanged };

struct StateSizeDiff {
  std::string name;
  // added/removed declaration, changed size/kind/entries, or kSizeUnchanged (values not
  // compared by Diff; DiffKeys compares them).
  DiffChange change = DiffChange::kSizeUnchanged;
  std::string kind_a, kind_b;             // StateKindName; empty on the side that lacks it
  uint64_t entries_a = 0, entries_b = 0;
  uint64_t bytes_a = 0, bytes_b = 0;      // logical record bytes
  // False where that side's reader measures no single state (StateStats::bytes_known): its
  // bytes are unknown, not 0, and are not compared.
  bool bytes_known_a = true, bytes_known_b = true;
};

struct OperatorDiff {
  DiffChange change = DiffChange::kSame;
  std::string name;  // from B if present, else A
  std::string id_a, id_b;    // empty on the side that lacks the operator
  std::string uid_a, uid_b;
  uint32_t parallelism_a = 0, parallelism_b = 0;
  uint32_t max_parallelism_a = 0, max_parallelism_b = 0;
  uint64_t bytes_a = 0, bytes_b = 0;  // on-disk bytes of its files + inline coordinator state
  std::string matched_by;             // "id", "spec id", "name" (how A and B were paired)
  std::vector<std::string> changes;   // e.g. "parallelism 2 -> 4", "uid a -> b"
  std::vector<StateSizeDiff> states;  // union of both sides' declared states, sorted by name
};

struct FileDiff {
  std::string path;  // resolved path (as reachable from the given snapshot paths)
  DiffChange change = DiffChange::kSame;  // kSame = shared by both; kChanged = same path,
                                          // different size or checksum
  std::string scope;  // FileScopeName
  uint64_t size_a = 0, size_b = 0;
};

struct DiffOptions {
  // Scan keyed records for per-state entries and bytes. Default: true.
  bool per_state = true;
  // Progress and cancellation (state-file scans). Default: none.
  base::Progress progress;
  // Uids of the job that name operators whose metadata records none (LoadOptions::uids).
  std::vector<std::string> uids;
};

struct DiffResult {
  std::string a, b;  // snapshot directories
  int64_t checkpoint_id_a = 0, checkpoint_id_b = 0;
  std::vector<OperatorDiff> operators;  // every operator of either side, B's order then A-only
  std::vector<FileDiff> files;          // sorted by path
  size_t files_added = 0, files_removed = 0, files_shared = 0, files_changed = 0;
  uint64_t bytes_a = 0, bytes_b = 0;    // file-table totals
  // How far each source's reading advanced from A to B (ComparePositions over both sides'
  // ComputePositions), sorted by operator, then split.
  std::vector<PositionAdvance> positions;
  // CKPT-C001 findings of either side: connector state that could not be decoded.
  std::vector<Finding> position_findings;
  // Any operator or state change, or a file whose content (size, XXH3) the other side lacks.
  // Files that only moved (a relocated copy) do not count, nor do positions (a running job's
  // sources always advance).
  bool different = false;
};

// Compares the snapshots at `a` and `b` (directories or `_metadata` files). Operators are paired
// by ID, then (for an ID change) by spec id, then by name when both are unique. NotFound /
// Corruption (naming the file) / IOError from loading; Corruption if a state file cannot be read
// for per-state sizes; Cancelled.
base::Result<DiffResult> Diff(base::Fs& fs, const std::string& a, const std::string& b,
                              const DiffOptions& options = {});

// One keyed entry that differs. JSON renderings decoded through the state's declared types.
struct KeyDiff {
  DiffChange change = DiffChange::kAdded;
  std::string operator_name;  // B's, as OperatorLabel names it: name, else uid, else the ID
  std::string operator_id;  // B's ID (A's for removed operators never reach here)
  std::string state;
  uint32_t key_group = 0;
  std::string key_json;
  std::string namespace_json;  // "null" for the void namespace
  std::string user_key_json;   // map key / timer timestamp; empty if none
  std::string value_a_json;    // empty when added
  std::string value_b_json;    // empty when removed
  std::string timestamp_json;  // Flink timers: the timer's timestamp (ms); empty otherwise
};

// The verdict on one keyed state of a paired operator: compared entry by entry (counts), or not
// compared at all (native RocksDB handles in a build without RocksDB, a max-parallelism change) and then never "same".
struct StateComparison {
  std::string operator_name;  // B's, as OperatorLabel names it
  std::string state;
  bool compared = false;
  uint64_t added = 0, removed = 0, changed = 0, same = 0;
};

struct KeyDiffSummary {
  uint64_t added = 0, removed = 0, changed = 0, same = 0;
  std::vector<StateComparison> states;  // operators in pairing order, states by name
  std::vector<std::string> notes;  // e.g. states or operators that could not be compared
  // True if at least one keyed state was compared entry by entry.
  bool any_compared() const;
};

// Streams the keyed entries that differ between `a` and `b` to `sink`, operator by operator
// (paired as in Diff), state by state, key group by key group in ascending order; within a key
// group, ordered by (state, key, namespace, user key) bytes. Canonical key-group handles are
// read as they are and changelog handles replayed (materialized base + log tail), so values are
// those a restore would see, native RocksDB handles through RocksDB's own reader (in a build
// without RocksDB their operators' states are reported as not compared, and in the notes).
// Errors as Diff.
base::Result<KeyDiffSummary> DiffKeys(base::Fs& fs, const std::string& a, const std::string& b,
                                      const std::function<void(const KeyDiff&)>& sink,
                                      const base::Progress& progress = {});

// "same", "added", "removed", "changed", "size-unchanged".
std::string_view DiffChangeName(DiffChange c);

}  // namespace ckpt::ops
