// Finding the newest usable snapshot of a job on disk (`--from-latest <checkpoint-dir>/<job-id>`),
// e.g. after a kill -9. Candidates are every snapshot the job wrote or restored from:
//   - its checkpoints, `<job-dir>/chk-<n>`;
//   - its savepoints and the snapshot it was restored from, wherever they are: the engine
//     records each in the job directory as a reference file `_savepoint-<id>.ref` /
//     `_restored-<id>.ref` holding the snapshot directory's path (written atomically after the
//     savepoint's `_metadata` is published and before any sink commits its side effects, and at
//     start for a restore). So a kill at any moment of a stop-with-savepoint leaves either no
//     committed side effect of the savepoint or a reference that leads a resume to it.
// A candidate counts only if its `_metadata` decodes with a valid checksum and every file it
// references (except EXTERNAL ones) exists with the recorded size; others are skipped with the
// reason. Newer is a higher checkpoint id (ids grow across a job's runs: a restore continues at
// the restored id + 1); at equal ids a checkpoint comes before a reference.
// `_finished` (holding the final checkpoint id) marks a job that finished: its output is
// complete and its checkpoints were discarded, so there is nothing to resume. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/completed_checkpoint.h"

namespace ckpt::engine {

inline constexpr std::string_view kSavepointRefPrefix = "_savepoint-";
inline constexpr std::string_view kRestoredRefPrefix = "_restored-";
inline constexpr std::string_view kSnapshotRefSuffix = ".ref";
inline constexpr std::string_view kFinishedMarkerName = "_finished";

// Where a discovered snapshot was found.
enum class SnapshotOrigin { kCheckpointDir, kSavepointRef, kRestoredRef };

struct SkippedSnapshot {
  int64_t checkpoint_id = 0;
  std::string name;    // "chk-7" or "_savepoint-9.ref -> /sp/savepoint-1a2b3c-..."
  std::string reason;  // "no _metadata (incomplete)", "Corruption: ...", "missing part-0"
};

struct DiscoveredCheckpoints {
  // Usable snapshots, newest first.
  std::vector<CompletedCheckpoint> complete;
  std::vector<SnapshotOrigin> origins;  // parallel to `complete`
  // Candidates skipped, newest first, each with the reason (e.g. "chk-7: no _metadata").
  std::vector<std::string> skipped;
  std::vector<SkippedSnapshot> skipped_detail;  // parallel to `skipped`
  // Something the job published is on disk (a chk-<n> with a `_metadata`, even a corrupt one,
  // or a reference file): if none is usable, starting empty would repeat committed output.
  bool any_published = false;
  // The job finished with this final checkpoint id (`_finished`).
  std::optional<int64_t> finished_at;
};

// Scans `job_dir`. NotFound if `job_dir` does not exist; IOError if it cannot be listed.
base::Result<DiscoveredCheckpoints> DiscoverCheckpoints(base::Fs& fs, const std::string& job_dir);

// The newest complete checkpoint in `job_dir`. NotFound (naming the directory and listing what
// was skipped) if there is none.
base::Result<CompletedCheckpoint> FindLatestCheckpoint(base::Fs& fs, const std::string& job_dir);

// Records, atomically, that the job wrote (`savepoint`) or restored from (`!savepoint`) the
// snapshot in `snapshot_dir` with `checkpoint_id`: `<job_dir>/_savepoint-<id>.ref` or
// `_restored-<id>.ref`, then syncs `job_dir`.
base::Status RecordSnapshotRef(base::Fs& fs, const std::string& job_dir, int64_t checkpoint_id,
                               const std::string& snapshot_dir, bool savepoint);
// Removes the reference of `snapshot_dir` if `job_dir` holds one (after the engine deleted it).
base::Status RemoveSnapshotRef(base::Fs& fs, const std::string& job_dir, int64_t checkpoint_id,
                               bool savepoint);
// Records that the job finished after checkpoint `final_checkpoint_id` (`_finished`).
base::Status RecordJobFinished(base::Fs& fs, const std::string& job_dir,
                               int64_t final_checkpoint_id);

// The name of a reference file (`_savepoint-<id>.ref`), for messages and tests.
std::string SnapshotRefName(int64_t checkpoint_id, bool savepoint);

}  // namespace ckpt::engine
