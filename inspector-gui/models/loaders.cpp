#include "models/loaders.h"

#include <QPromise>
#include <QThreadPool>

#include "ckpt/base/fs.h"
#include "models/display.h"

namespace ckpt::inspector {

base::Progress TaskState::progress() {
  base::Progress p;
  p.cancel = &m_cancel;
  p.on_progress = [this](uint64_t done, uint64_t total, std::string_view what) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_view.done = done;
    m_view.total = total;
    if (!what.empty()) m_view.what = qs(what);
  };
  return p;
}

TaskState::View TaskState::snapshot() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_view;
}

namespace {

template <class T>
Loaded<T> fromResult(base::Result<T>&& r) {
  Loaded<T> out;
  if (r.ok()) {
    out.value = std::make_shared<const T>(std::move(r).value());
  } else {
    out.code = r.status().code();
    out.error = qs(r.status().ToString());
  }
  return out;
}

template <class T>
Loaded<T> fromStatus(const base::Status& st) {
  Loaded<T> out;
  out.code = st.code();
  out.error = qs(st.ToString());
  return out;
}

// Runs `fn` (returning Loaded<T>) on the global thread pool. QPromise is move-only, hence the
// shared_ptr around it.
template <class T, class Fn>
QFuture<Loaded<T>> runInPool(Fn fn) {
  auto promise = std::make_shared<QPromise<Loaded<T>>>();
  QFuture<Loaded<T>> future = promise->future();
  promise->start();
  QThreadPool::globalInstance()->start([promise, fn = std::move(fn)]() mutable {
    promise->addResult(fn());
    promise->finish();
  });
  return future;
}

std::string toStd(const QString& s) { return s.toStdString(); }

}  // namespace

QFuture<Loaded<Opened>> openPath(base::Fs& fs, const QString& path) {
  return runInPool<Opened>([fs = &fs, p = toStd(path), path]() -> Loaded<Opened> {
    // ops decides "snapshot or root", the same way ckpt-tool ls does.
    auto result = ops::Open(*fs, p);
    if (!result.ok()) return fromStatus<Opened>(result.status());
    Opened opened;
    opened.path = path;
    if (result->is_snapshot()) {
      opened.snapshot = std::make_shared<const ops::Snapshot>(std::move(*result->snapshot));
    } else {
      opened.jobs = std::move(result->jobs);
    }
    Loaded<Opened> out;
    out.value = std::make_shared<const Opened>(std::move(opened));
    return out;
  });
}

QFuture<Loaded<ops::Snapshot>> loadSnapshot(base::Fs& fs, const QString& path) {
  return runInPool<ops::Snapshot>(
      [fs = &fs, p = toStd(path)] { return fromResult(ops::LoadSnapshot(*fs, p)); });
}

QFuture<Loaded<ops::JobHistory>> loadHistory(base::Fs& fs, const QString& root,
                                             const std::string& job_id_hex) {
  return runInPool<ops::JobHistory>([fs = &fs, r = toStd(root), job_id_hex]() -> Loaded<ops::JobHistory> {
    auto jobs = ops::LoadHistory(*fs, r, ops::HistoryOptions{job_id_hex, kHistoryDetailed});
    if (!jobs.ok()) return fromStatus<ops::JobHistory>(jobs.status());
    ops::JobHistory job;
    if (!jobs->empty()) job = std::move(jobs->front());
    Loaded<ops::JobHistory> out;
    out.value = std::make_shared<const ops::JobHistory>(std::move(job));
    return out;
  });
}

QFuture<Loaded<ops::JobGrowth>> loadGrowth(base::Fs& fs, const QString& root,
                                           const std::string& job_id_hex) {
  return runInPool<ops::JobGrowth>([fs = &fs, r = toStd(root), job_id_hex]() -> Loaded<ops::JobGrowth> {
    auto report = ops::ComputeGrowth(*fs, r);
    if (!report.ok()) return fromStatus<ops::JobGrowth>(report.status());
    ops::JobGrowth job;
    if (!report->jobs.empty()) job = report->jobs.front();
    for (const ops::JobGrowth& j : report->jobs) {
      if (!job_id_hex.empty() && j.job_id_hex == job_id_hex) job = j;
    }
    Loaded<ops::JobGrowth> out;
    out.value = std::make_shared<const ops::JobGrowth>(std::move(job));
    return out;
  });
}

QFuture<Loaded<std::vector<ops::FileRow>>> listFiles(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s) {
  return runInPool<std::vector<ops::FileRow>>(
      [fs = &fs, s] { return fromResult(ops::ListFiles(*fs, *s)); });
}

QFuture<Loaded<std::vector<ops::PendingFile>>> listPendingFiles(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s) {
  return runInPool<std::vector<ops::PendingFile>>(
      [fs = &fs, s] { return fromResult(ops::ListPendingFiles(*fs, *s)); });
}

QFuture<Loaded<ops::SummaryReport>> summarize(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s,
                                              std::shared_ptr<const ops::StatsReport> stats) {
  return runInPool<ops::SummaryReport>([fs = &fs, s, stats] {
    return fromResult(ops::Summarize(*fs, *s, stats.get()));
  });
}

QFuture<Loaded<ops::PositionsReport>> computePositions(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s) {
  return runInPool<ops::PositionsReport>(
      [fs = &fs, s] { return fromResult(ops::ComputePositions(*fs, *s)); });
}

QFuture<Loaded<ops::StatsReport>> computeStats(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s,
                                               std::shared_ptr<TaskState> task) {
  return runInPool<ops::StatsReport>([fs = &fs, s, task] {
    return fromResult(ops::ComputeStats(*fs, *s, {}, task->progress()));
  });
}

QFuture<Loaded<ops::SnapshotDiagnosis>> diagnoseSnapshot(base::Fs& fs, const QString& path) {
  return runInPool<ops::SnapshotDiagnosis>(
      [fs = &fs, p = toStd(path)] { return fromResult(ops::DiagnoseSnapshot(*fs, p)); });
}

QFuture<Loaded<ops::FileLayout>> describeLayout(base::Fs& fs, const QString& path, bool verify_blocks) {
  return runInPool<ops::FileLayout>([fs = &fs, p = toStd(path), verify_blocks] {
    return fromResult(ops::DescribeFileLayout(*fs, p, verify_blocks));
  });
}

QFuture<Loaded<ops::ValidateReport>> validateSnapshot(base::Fs& fs, const QString& path,
                                                      ops::ValidateOptions options,
                                                      std::shared_ptr<TaskState> task) {
  return runInPool<ops::ValidateReport>([fs = &fs, p = toStd(path), options, task] {
    return fromResult(ops::Validate(*fs, p, options, task->progress()));
  });
}

QFuture<Loaded<ops::DiffResult>> diffSnapshots(base::Fs& fs, const QString& a, const QString& b,
                                               std::shared_ptr<TaskState> task) {
  return runInPool<ops::DiffResult>([fs = &fs, a = toStd(a), b = toStd(b), task] {
    ops::DiffOptions options;
    options.progress = task->progress();
    return fromResult(ops::Diff(*fs, a, b, options));
  });
}

QFuture<Loaded<KeyDiffList>> diffKeys(base::Fs& fs, const QString& a, const QString& b, size_t max_entries,
                                      std::shared_ptr<TaskState> task) {
  return runInPool<KeyDiffList>([fs = &fs, a = toStd(a), b = toStd(b), max_entries, task] {
    KeyDiffList list;
    auto summary = ops::DiffKeys(
        *fs, a, b,
        [&](const ops::KeyDiff& d) {
          if (list.entries.size() < max_entries) {
            list.entries.push_back(d);
          } else {
            list.truncated = true;
          }
        },
        task->progress());
    if (!summary.ok()) return fromStatus<KeyDiffList>(summary.status());
    list.summary = std::move(summary).value();
    Loaded<KeyDiffList> out;
    out.value = std::make_shared<const KeyDiffList>(std::move(list));
    return out;
  });
}

QFuture<Loaded<ops::PrunePlan>> planPrune(base::Fs& fs, const QString& root, ops::PruneOptions options) {
  return runInPool<ops::PrunePlan>([fs = &fs, r = toStd(root), options] {
    return fromResult(ops::PlanPrune(*fs, r, options));
  });
}

QFuture<Loaded<PruneOutcome>> executePrune(base::Fs& fs, std::shared_ptr<const ops::PrunePlan> plan,
                                           std::shared_ptr<TaskState> task) {
  return runInPool<PruneOutcome>([fs = &fs, plan, task]() -> Loaded<PruneOutcome> {
    PruneOutcome done;
    base::Status st = ops::ExecutePrune(*fs, *plan, task->progress(), &done.steps_done, &done.verification);
    if (!st.ok()) return fromStatus<PruneOutcome>(st);
    Loaded<PruneOutcome> out;
    out.value = std::make_shared<const PruneOutcome>(std::move(done));
    return out;
  });
}

QFuture<Loaded<RemapOutcome>> remapSnapshot(base::Fs& fs, const QString& snapshot, const QString& output_dir,
                                            ops::RemapOptions options,
                                            std::shared_ptr<TaskState> task) {
  return runInPool<RemapOutcome>(
      [fs = &fs, s = toStd(snapshot), o = toStd(output_dir), options, task]() mutable -> Loaded<RemapOutcome> {
        options.progress = task->progress();
        options.verify_output = true;  // ops validates what it wrote
        auto result = ops::Remap(*fs, s, o, options);
        if (!result.ok()) return fromStatus<RemapOutcome>(result.status());
        RemapOutcome outcome;
        outcome.result = std::move(result).value();
        outcome.validated = outcome.result.verification;
        Loaded<RemapOutcome> out;
        out.value = std::make_shared<const RemapOutcome>(std::move(outcome));
        return out;
      });
}

}  // namespace ckpt::inspector
