// growth: why a job's checkpoint storage keeps growing. For each job under a checkpoint root,
// per retained checkpoint the bytes it introduced and how many of them the latest checkpoint
// still references; what the latest needs against what is stored (space amplification); the
// bytes no retained checkpoint references (orphans, as prune sees them) and those only older
// retained checkpoints hold; and each operator's referenced bytes over the checkpoints.
// Both metadata formats, any Fs. Stateless; thread-safe given a thread-safe Fs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"

namespace ckpt::ops {

// One retained checkpoint: a chk-N of the job with a readable `_metadata`.
struct GrowthCheckpoint {
  std::string path;  // relative to the root, e.g. "<job>/chk-12"
  int64_t checkpoint_id = -1;
  // Files first referenced by this checkpoint among the retained ones (for the oldest retained
  // checkpoint: everything it references), and their bytes; of those, the bytes in shared/.
  size_t introduced_files = 0;
  uint64_t introduced_bytes = 0;
  uint64_t introduced_shared_bytes = 0;
  // Every file its file table references, and their bytes.
  size_t referenced_files = 0;
  uint64_t referenced_bytes = 0;
  // Of its introduced bytes, those the latest checkpoint still references.
  uint64_t still_referenced_bytes = 0;
};

// One operator's referenced bytes (its state's files, shared ones counted whole: docs/sizes.md)
// per retained checkpoint.
struct GrowthOperator {
  std::string id_hex;
  std::string label;  // OperatorLabel of the latest checkpoint that has the operator
  // Parallel to JobGrowth::checkpoints; 0 where the checkpoint has no state of the operator.
  std::vector<uint64_t> bytes;
  // Bytes per checkpoint id between the first and the last retained checkpoint:
  // (last - first) / (last id - first id); 0 with a single checkpoint.
  double growth_bytes_per_checkpoint = 0;
};

// One job's growth. Sizes are the sizes on storage where a file is there, else the size its
// metadata records. The stored bytes split into needed + not_yet_deletable + orphaned +
// unreadable + task_owned_unreferenced.
struct JobGrowth {
  std::string job_rel;     // job directory relative to the root ("" when the root is the job)
  std::string job_id_hex;  // from the latest checkpoint's metadata ("" without one)
  std::vector<GrowthCheckpoint> checkpoints;  // ascending id; the latest is the last
  // Files the latest checkpoint references that are stored under the job, plus its `_metadata`.
  uint64_t needed_bytes = 0;
  size_t needed_files = 0;
  // Every file under the job's chk-*, shared/ and taskowned/.
  uint64_t stored_bytes = 0;
  size_t stored_files = 0;
  // stored / needed; 0 when nothing is needed (no retained checkpoint).
  double amplification = 0;
  // Files no retained checkpoint references: what prune would delete (once older than its age
  // guard), in incomplete chk-* directories, beside retained ones, and in shared/.
  uint64_t orphaned_bytes = 0;
  size_t orphaned_files = 0;
  // Files only retained checkpoints other than the latest reference (their `_metadata` too):
  // freed when those are subsumed. Also files only a savepoint (or another snapshot outside the
  // chk-* directories) under the root references: prune never deletes those.
  uint64_t not_yet_deletable_bytes = 0;
  size_t not_yet_deletable_files = 0;
  // Files in chk-* directories whose `_metadata` cannot be read: what they reference is unknown.
  uint64_t unreadable_bytes = 0;
  size_t unreadable_files = 0;
  // Files in taskowned/ no retained checkpoint references: the job's own (its engine deletes
  // them), never prune's.
  uint64_t task_owned_unreferenced_bytes = 0;
  size_t task_owned_unreferenced_files = 0;
  std::vector<GrowthOperator> operators;  // by label, then id
  // Damaged `_metadata` (named), referenced files missing from storage, ...
  std::vector<std::string> notes;
};

struct GrowthReport {
  std::string root;
  std::vector<JobGrowth> jobs;  // by job directory
};

// Scans `root` (a checkpoint root holding job directories, or one job directory) as prune does,
// reading each `_metadata` once, and computes each job's growth. A `_metadata` that cannot be
// read adds a note naming it; the rest is still reported. NotFound if `root` does not exist;
// InvalidArgument if it is not a directory; IOError when listing fails; Cancelled via `progress`
// (reported per checkpoint analysed).
base::Result<GrowthReport> ComputeGrowth(base::Fs& fs, const std::string& root,
                                         const base::Progress& progress = {});

}  // namespace ckpt::ops
