// Background loaders: every disk-touching ops call the inspector makes runs here, on
// QThreadPool::globalInstance(), and delivers an immutable shared result through a QFuture.
// Progress and cancellation go through TaskState (thread-safe; the UI polls it). The functions
// may be called from any thread; results are safe to share between threads. Each loader works on
// the `fs` it is given (resolved once where the location was opened, models/location.h); `fs`
// must outlive the returned future (the resolved filesystems are process-lifetime).
#pragma once

#include <QFuture>
#include <QString>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/status.h"
#include "ckpt/ops/diff.h"
#include "ckpt/ops/diagnose.h"
#include "ckpt/ops/file_layout.h"
#include "ckpt/ops/files.h"
#include "ckpt/ops/growth.h"
#include "ckpt/ops/history.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/open.h"
#include "ckpt/ops/pending_files.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/remap.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "ckpt/ops/summary.h"
#include "ckpt/ops/validate.h"

namespace ckpt::inspector {

// The outcome of one ops call: a shared immutable value, or the error that ops returned.
template <class T>
struct Loaded {
  std::shared_ptr<const T> value;
  base::StatusCode code = base::StatusCode::kOk;
  QString error;  // ops' message (names the file / operator), empty on success
  bool ok() const { return value != nullptr; }
};

// Progress and cancel of one background task. The worker reports through progress(); the UI
// reads snapshot() (e.g. from a timer) and calls cancel().
class TaskState {
 public:
  void cancel() { m_cancel.Cancel(); }
  bool cancelled() const { return m_cancel.cancelled(); }
  // A Progress bound to this state; valid as long as the TaskState lives.
  base::Progress progress();
  struct View {
    uint64_t done = 0;
    uint64_t total = 0;  // 0 = unknown
    QString what;
  };
  View snapshot() const;

 private:
  base::CancelToken m_cancel;
  mutable std::mutex m_mutex;
  View m_view;
};

// What File > Open found at a path: a snapshot, or a checkpoint root with its jobs.
struct Opened {
  QString path;
  std::shared_ptr<const ops::Snapshot> snapshot;   // set when `path` is a snapshot
  std::vector<ops::JobListing> jobs;               // set when `path` is a checkpoint root
};

// How many of a job's newest complete snapshots loadHistory reads the metadata of
// (ops::HistoryOptions::detailed_limit).
inline constexpr size_t kHistoryDetailed = 100;

// The keyed entries that differ, capped (the summary always counts all).
struct KeyDiffList {
  std::vector<ops::KeyDiff> entries;
  ops::KeyDiffSummary summary;
  bool truncated = false;
};

// A prune that ran: its steps, and ops' check of what it kept (PruneOptions::verify_output).
struct PruneOutcome {
  size_t steps_done = 0;
  ops::PruneVerification verification;
};

// Loads `path`: a snapshot (directory with `_metadata`, or the file) or a checkpoint root.
QFuture<Loaded<Opened>> openPath(base::Fs& fs, const QString& path);
QFuture<Loaded<ops::Snapshot>> loadSnapshot(base::Fs& fs, const QString& path);
// ops::LoadHistory of the job `job_id_hex` under `root` (empty: the first job ListRoot reports;
// an empty history when there is none): its rows and their summary.
QFuture<Loaded<ops::JobHistory>> loadHistory(base::Fs& fs, const QString& root,
                                             const std::string& job_id_hex);
// ops::ComputeGrowth of `root`: the growth of the job `job_id_hex` (empty, or no job with that
// id: the first job); an empty growth when the root holds no job directory.
QFuture<Loaded<ops::JobGrowth>> loadGrowth(base::Fs& fs, const QString& root,
                                           const std::string& job_id_hex);
QFuture<Loaded<std::vector<ops::FileRow>>> listFiles(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s);
// ops::ListPendingFiles: the sink's pending files with what is on disk now.
QFuture<Loaded<std::vector<ops::PendingFile>>> listPendingFiles(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s);
// ops::Summarize: validate's cheap rules as warnings, plus `stats`' findings when non-null.
QFuture<Loaded<ops::SummaryReport>> summarize(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s,
                                              std::shared_ptr<const ops::StatsReport> stats);
// ops::ComputePositions: where each source resumes and what each sink commits on restore.
QFuture<Loaded<ops::PositionsReport>> computePositions(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s);
// ops::DiagnoseSnapshot: why the snapshot at `path` does not open, and what its directory holds.
QFuture<Loaded<ops::SnapshotDiagnosis>> diagnoseSnapshot(base::Fs& fs, const QString& path);
// ops::DescribeFileLayout of one resolved file path.
QFuture<Loaded<ops::FileLayout>> describeLayout(base::Fs& fs, const QString& path, bool verify_blocks);
QFuture<Loaded<ops::StatsReport>> computeStats(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s,
                                               std::shared_ptr<TaskState> task);
QFuture<Loaded<ops::ValidateReport>> validateSnapshot(base::Fs& fs, const QString& path,
                                                      ops::ValidateOptions options,
                                                      std::shared_ptr<TaskState> task);
QFuture<Loaded<ops::DiffResult>> diffSnapshots(base::Fs& fs, const QString& a, const QString& b,
                                               std::shared_ptr<TaskState> task);
// Key-level diff keeping at most `max_entries` differences.
QFuture<Loaded<KeyDiffList>> diffKeys(base::Fs& fs, const QString& a, const QString& b, size_t max_entries,
                                      std::shared_ptr<TaskState> task);
QFuture<Loaded<ops::PrunePlan>> planPrune(base::Fs& fs, const QString& root, ops::PruneOptions options);
// ops::ExecutePrune of `plan`; with plan->options.verify_output, ops then checks what the plan
// kept (its outcome in PruneOutcome::verification; a failed check is the error).
QFuture<Loaded<PruneOutcome>> executePrune(base::Fs& fs, std::shared_ptr<const ops::PrunePlan> plan,
                                             std::shared_ptr<TaskState> task);
// Remap; `options.dry_run` decides whether anything is written. A written output is validated
// (its report is in `validated` when non-null).
struct RemapOutcome {
  ops::RemapResult result;
  std::optional<ops::ValidateReport> validated;
};
QFuture<Loaded<RemapOutcome>> remapSnapshot(base::Fs& fs, const QString& snapshot, const QString& output_dir,
                                            ops::RemapOptions options,
                                            std::shared_ptr<TaskState> task);

}  // namespace ckpt::inspector
