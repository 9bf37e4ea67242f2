// Prune: deletes checkpoints beyond retention and files in shared/ and chk-* that no retained
// `_metadata` references (the FLINK-30461 leak), as an explicit plan that is shown first
// (dry run) and executed step by step. Never deletes a savepoint, a referenced file, or a file
// younger than the age guard or of unknown age, and nothing at all in the directory of a job an
// engine runs now (its `_job.lock` is held): a live job may still reference or be writing any
// of it, `*.tmp-*` included; its engine retires its own checkpoints. Only a checkpoint that would
// restore (the check ckpt-engine --from-latest makes, plus checksums) counts towards retention,
// so the newest restorable one is always kept. The plan is ordered so that a crash after any
// step leaves every retained snapshot valid: subsumed checkpoints lose their `_metadata` first
// (becoming incomplete), then their files; orphans go last. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"

namespace ckpt::ops {

struct PruneOptions {
  // Restorable checkpoints kept per job, newest first; must be >= 1. Default: 1 (Flink's
  // execution.checkpointing.num-retained).
  uint32_t keep_last = 1;
  // --older-than: only checkpoints completed longer ago than this may be deleted, and it is
  // also the age guard for orphan files. Default: unset (checkpoints by count only).
  std::optional<int64_t> older_than_ms;
  // Orphan files (and incomplete checkpoints' files) modified less than this long ago are kept:
  // a running job may be writing them, and `_metadata` is written last. Replaced by
  // older_than_ms when that is set. Default: 1 hour.
  int64_t min_orphan_age_ms = 3600 * 1000;
  // "Now" for age computations, ms since the epoch. Default: 0 = the system clock.
  int64_t now_ms = 0;
  // A checkpoint counts towards keep_last only if it would restore: every file it references
  // present with its recorded size and, where the format records them, checksums (every byte
  // read). With deep, also validate --deep (every record decoded) must say it restores.
  // Default: false.
  bool deep = false;
  // After ExecutePrune ran every step: scan the root again and check that every snapshot the
  // plan kept (retained, damaged, savepoints) still opens and that each job's newest retained
  // checkpoint still restores (the same check, `deep` included, that counted it). The outcome
  // is in PruneVerification; a failed check is an error of ExecutePrune. Default: false.
  bool verify_output = false;
};

// kAbortUpload drops a multipart upload left open on an object store under a job's checkpoint
// storage (an engine killed while it uploaded a state file): invisible, but billed until
// aborted.
enum class PruneAction { kRemoveFile, kSyncDir, kRemoveDir, kAbortUpload };

// One filesystem operation of the plan. Paths are relative to the plan's root.
struct PruneStep {
  PruneAction action = PruneAction::kRemoveFile;
  std::string path;
  std::string reason;  // e.g. "chk-3 is subsumed (beyond --keep-last 2)"
  uint64_t size_bytes = 0;
  std::string upload_id;  // kAbortUpload only
};

enum class SnapshotVerdict {
  kRetained,    // restorable and kept by the retention rule
  kSubsumed,    // complete, beyond retention: deleted
  // Readable `_metadata` but it would not restore (a referenced file missing, of another size,
  // or with another checksum): newer than the retained ones, so kept with its files, and not
  // counted towards keep_last.
  kDamaged,
  kIncomplete,  // no `_metadata`: its files are orphans (subject to the age guard)
  kCorrupt,     // unreadable `_metadata`: kept, and it blocks shared/ orphan deletion
  kSavepoint,   // never touched
};

struct PruneSnapshot {
  std::string path;  // relative to root, e.g. "<job>/chk-12"
  int64_t checkpoint_id = -1;  // -1 for savepoints whose metadata is unreadable
  SnapshotVerdict verdict = SnapshotVerdict::kRetained;
  std::string reason;
};

// A file under shared/ or chk-* that the plan keeps, and why ("referenced by chk-12 and
// chk-13", "younger than the age guard", "age unknown").
struct PruneKept {
  std::string path;  // relative to root
  std::string reason;
};

struct PrunePlan {
  std::string root;
  std::vector<PruneSnapshot> snapshots;  // sorted by path
  std::vector<PruneStep> steps;          // in execution order
  std::vector<PruneKept> kept;           // sorted by path
  std::vector<std::string> notes;        // e.g. shared/ orphans skipped because of chk-7
  // Job directories (relative to root, "" for the root itself) the steps delete in: ExecutePrune
  // holds each one's job lock while it runs, so no engine starts on them meanwhile.
  std::vector<std::string> job_dirs;
  uint64_t bytes_to_free = 0;  // of the files removed (open uploads' parts are not counted)
  size_t files_to_delete = 0;
  size_t uploads_to_abort = 0;
  // The options the plan was made with (ExecutePrune honours verify_output and deep).
  PruneOptions options;
};

// One snapshot the plan kept, as the post-prune scan found it.
struct PruneVerifiedSnapshot {
  std::string path;  // relative to the root
  SnapshotVerdict verdict = SnapshotVerdict::kRetained;  // the plan's
  bool opens = false;  // listed again and its `_metadata` loads
  // Checked only for each job's newest retained checkpoint: true when it still restores.
  std::optional<bool> restorable;
  std::string problem;  // why it does not open or restore; empty when it does
};

// What PruneOptions::verify_output found after the prune.
struct PruneVerification {
  std::vector<PruneVerifiedSnapshot> snapshots;  // the plan's kept snapshots, by path
  // Each job's newest retained checkpoint, checked for restore (relative to the root).
  std::vector<std::string> restore_checked;
  // True when every kept snapshot opens and every checked one restores.
  bool ok() const;
};

// Scans `root` (a checkpoint root holding job directories, or one job directory) and plans the
// prune. Reads only. On an object store (a scheme with a base::RecoverableWriter) it also lists
// the multipart uploads left open under the root: one inside a job's chk-*, shared/ or
// taskowned/ that no kept snapshot references and that was started longer ago than the age
// guard is aborted (last, after the orphans); a failed listing is a note, not an error.
// InvalidArgument if keep_last is 0 or an age is negative; NotFound if `root` does not exist;
// IOError when listing fails.
base::Result<PrunePlan> PlanPrune(base::Fs& fs, const std::string& root,
                                  const PruneOptions& options = {});

// Executes `plan` in order, stopping at the first failure (whose Status it returns, naming the
// step). First takes the job lock of every directory in plan.job_dirs: FailedPrecondition
// (nothing deleted) if an engine started running one of those jobs since the plan was made, or
// if `fs` has no locks (Fs::SupportsLocks) and the plan deletes anything: a running engine
// cannot be ruled out there (PlanPrune then adds a note saying so). `*steps_done` (optional)
// receives the number of steps completed. A removal whose target is already gone counts as
// done, so an interrupted prune can simply be planned and run again. Cancelled via `progress`
// between steps.
// With plan.options.verify_output, once every step ran, VerifyPrune: `*verification`
// (optional) receives its outcome, and a kept snapshot that no longer opens or a newest
// retained checkpoint that no longer restores is Corruption naming it.
base::Status ExecutePrune(base::Fs& fs, const PrunePlan& plan, const base::Progress& progress = {},
                          size_t* steps_done = nullptr,
                          PruneVerification* verification = nullptr);

// Scans plan.root again (ListRoot) and checks what `plan` kept: every retained, damaged and
// savepoint snapshot still listed with a `_metadata` that loads, and each job's newest retained
// checkpoint still restoring (every file present with its recorded size and checksum; with
// plan.options.deep, validate --deep too). Reads only; problems are in the result, not the
// status. Errors as ListRoot (NotFound if the root is gone, IOError); Cancelled via `progress`.
base::Result<PruneVerification> VerifyPrune(base::Fs& fs, const PrunePlan& plan,
                                            const base::Progress& progress = {});

// Parses a duration such as "500ms", "30s", "15m", "12h", "7d" (a bare number means seconds).
// InvalidArgument naming `text` otherwise (negative, overflowing or unknown unit).
base::Result<int64_t> ParseDuration(std::string_view text);
// The shortest exact rendering of `ms` in the units above ("1h", "90s", "1500ms").
std::string FormatDuration(int64_t ms);

// "retained", "subsumed", "damaged", "incomplete", "corrupt", "savepoint".
std::string_view SnapshotVerdictName(SnapshotVerdict v);
// "remove", "sync-dir", "remove-dir", "abort-upload".
std::string_view PruneActionName(PruneAction a);

}  // namespace ckpt::ops
