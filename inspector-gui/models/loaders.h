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
#include "ckpt/ops/file_layout.h"
#include "ckpt/ops/files.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/open.h"
#include "ckpt/ops/pending_files.h"
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

// One point of a job's history: an ls entry (ListRoot already carries its end-to-end duration;
// no snapshot is re-loaded).
struct HistoryPoint {
  ops::SnapshotEntry entry;
  int64_t duration_ms = -1;  // -1 when the metadata could not be read
  // The snapshot's own metrics (in-flight data, unaligned flag) and restore source, read from
  // its metadata for the newest kHistoryDetailed complete snapshots; unset otherwise.
  std::optional<ops::CheckpointMetrics> metrics;
  std::string restored_from;  // path of the snapshot it was restored from, if any
};
// How many of a job's newest complete snapshots loadHistory reads the metadata of.
inline constexpr size_t kHistoryDetailed = 100;

// The keyed entries that differ, capped (the summary always counts all).
struct KeyDiffList {
  std::vector<ops::KeyDiff> entries;
  ops::KeyDiffSummary summary;
  bool truncated = false;
};

// A prune or remap that wrote something, then validated what it left behind.
struct ValidatedWrite {
  std::vector<std::pair<std::string, ops::ValidateReport>> reports;  // path -> report
  size_t steps_done = 0;
};

// What can be shown of a snapshot directory that does not open: validate's findings on it
// (metadata only: the rule, message and hint of why, e.g. CKPT-M001 for a missing _metadata)
// and the files in the directory.
struct Unopenable {
  std::vector<ops::Finding> findings;
  std::vector<ops::FileRow> files;  // path, actual size, exists; nothing from the metadata
};

// Loads `path`: a snapshot (directory with `_metadata`, or the file) or a checkpoint root.
QFuture<Loaded<Opened>> openPath(base::Fs& fs, const QString& path);
QFuture<Loaded<ops::Snapshot>> loadSnapshot(base::Fs& fs, const QString& path);
QFuture<Loaded<std::vector<HistoryPoint>>> loadHistory(base::Fs& fs, const QString& root,
                                                       const std::string& job_id_hex);
QFuture<Loaded<std::vector<ops::FileRow>>> listFiles(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s);
// ops::ListPendingFiles: the sink's pending files with what is on disk now.
QFuture<Loaded<std::vector<ops::PendingFile>>> listPendingFiles(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s);
// ops::Summarize: validate's cheap rules as warnings, plus `stats`' findings when non-null.
QFuture<Loaded<ops::SummaryReport>> summarize(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s,
                                              std::shared_ptr<const ops::StatsReport> stats);
QFuture<Loaded<Unopenable>> diagnoseUnopenable(base::Fs& fs, const QString& path);
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
// Executes the plan, then validates every snapshot the plan retains.
QFuture<Loaded<ValidatedWrite>> executePrune(base::Fs& fs, std::shared_ptr<const ops::PrunePlan> plan,
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
