// The damage matrix over the engine's own snapshots: each entry damages a copy of a snapshot
// (truncated, bit-flipped, appended, removed state files and _metadata, resized and missing sink
// part files, a changed max parallelism in the metadata) or changes the job it is restored into
// (changed uids, max parallelism, parallelism). `ckpt-tool validate --deep --against JOB` must
// exit 0 exactly when `ckpt-engine run JOB -s` restores the damaged snapshot.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ckpt/format/proto.h"

namespace ckpt::itcase {

// Files directly in `dir` whose names end with `suffix`, sorted.
std::vector<std::string> FilesEndingWith(const std::string& dir, const std::string& suffix);
// XORs 0x20 into the byte at `offset` (from the end when negative). "" or what went wrong.
std::string FlipByteAt(const std::string& path, int64_t offset_from_start_or_end);
// Truncates (delta < 0) or appends |delta| bytes. "" or what went wrong.
std::string ResizeBy(const std::string& path, int64_t delta);
// The first sink committable of the snapshot, nullptr if none.
const pb::SinkCommittable* FirstCommittable(const pb::CheckpointMetadata& md);
// The part file a committable names as it is on disk now: pending, else committed.
std::string PartFileOnDisk(const pb::SinkCommittable& c);
// Replaces the first `from` in `s` by `to`; false when `from` does not occur.
bool ReplaceFirst(std::string& s, const std::string& from, const std::string& to);
void CopyTree(const std::string& from, const std::string& to);

struct SnapshotDamage {
  std::string name;
  // Damages the copy `dir` of the snapshot (and/or the sink directory its committables name).
  // Returns "" when done, else why this damage does not apply to this snapshot (no such file).
  std::function<std::string(const std::string& dir, const pb::CheckpointMetadata& md)> damage;
  // Changes the restoring job's spec JSON; "" when done, else why it does not apply.
  std::function<std::string(std::string& json)> job_edit;
  bool allow_non_restored = false;
  // What the engine does with the keyed-sum job's snapshots of the equivalence ITCase
  // (heap backend, aligned, parallelism 2).
  bool restore_succeeds = false;
  // Only meaningful for a savepoint (it assumes a stop-with-savepoint's committed part files
  // or a second state file).
  bool savepoint_only = false;
};

// The matrix, in a fixed order: first the damages for every snapshot, then the savepoint-only
// ones. The job edits expect the spec's conventions of the keyed-sum job: the keyed operator
// `"uid": "sum",`, the source `"uid": "source",` and the spec starting `{"parallelism": N,`.
std::vector<SnapshotDamage> DamageMatrix();

}  // namespace ckpt::itcase
