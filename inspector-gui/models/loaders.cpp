#include "models/loaders.h"

#include <QPromise>
#include <algorithm>
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

// After a prune: validates every snapshot the plan retains (path -> report into `done`). The one
// place the inspector checks what a prune left behind.
base::Status verifyPruneRetained(base::Fs& fs, const ops::PrunePlan& plan,
                                 const base::Progress& progress, ValidatedWrite* done) {
  for (const ops::PruneSnapshot& s : plan.snapshots) {
    if (s.verdict != ops::SnapshotVerdict::kRetained) continue;
    auto report = ops::Validate(fs, plan.root + "/" + s.path, ops::ValidateOptions{}, progress);
    if (!report.ok()) return report.status();
    done->reports.emplace_back(s.path, std::move(report).value());
  }
  return base::Status::OK();
}

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

QFuture<Loaded<std::vector<HistoryPoint>>> loadHistory(base::Fs& fs, const QString& root,
                                                       const std::string& job_id_hex) {
  return runInPool<std::vector<HistoryPoint>>(
      [fs = &fs, r = toStd(root), job_id_hex]() -> Loaded<std::vector<HistoryPoint>> {
        auto jobs = ops::ListRoot(*fs, r);
        if (!jobs.ok()) return fromStatus<std::vector<HistoryPoint>>(jobs.status());
        std::vector<HistoryPoint> points;
        for (const ops::JobListing& job : *jobs) {
          if (!job_id_hex.empty() && job.job_id_hex != job_id_hex) continue;
          for (const ops::SnapshotEntry& e : job.snapshots) {
            HistoryPoint pt;
            pt.entry = e;
            if (e.health == ops::SnapshotHealth::kComplete) pt.duration_ms = e.end_to_end_duration_ms;
            points.push_back(std::move(pt));
          }
        }
        size_t detailed = 0;
        for (auto it = points.rbegin(); it != points.rend() && detailed < kHistoryDetailed; ++it) {
          if (it->entry.health != ops::SnapshotHealth::kComplete) continue;
          auto s = ops::LoadSnapshot(*fs, r + "/" + it->entry.path);
          if (!s.ok()) continue;
          it->metrics = s->metrics;
          if (s->restored_from) it->restored_from = s->restored_from->path;
          ++detailed;
        }
        Loaded<std::vector<HistoryPoint>> out;
        out.value = std::make_shared<const std::vector<HistoryPoint>>(std::move(points));
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

QFuture<Loaded<ops::StatsReport>> computeStats(base::Fs& fs, std::shared_ptr<const ops::Snapshot> s,
                                               std::shared_ptr<TaskState> task) {
  return runInPool<ops::StatsReport>([fs = &fs, s, task] {
    return fromResult(ops::ComputeStats(*fs, *s, {}, task->progress()));
  });
}

QFuture<Loaded<Unopenable>> diagnoseUnopenable(base::Fs& fs, const QString& path) {
  return runInPool<Unopenable>([fs = &fs, p = toStd(path)] {
    Unopenable out;
    ops::ValidateOptions options;
    options.verify_checksums = false;
    auto report = ops::Validate(*fs, p, options);
    if (report.ok()) out.findings = report->findings;
    std::string dir = p;
    auto info = fs->Stat(p);
    if (info.ok() && !info->is_dir) dir = p.substr(0, p.find_last_of('/'));
    auto entries = fs->ListDir(dir);
    if (entries.ok()) {
      for (const base::DirEntry& e : *entries) {
        ops::FileRow row;
        row.path = e.name;
        row.location = e.name;
        row.owner = "on disk (no metadata names it)";
        auto st = fs->Stat(dir + "/" + e.name);
        row.exists = st.ok();
        if (st.ok()) {
          row.actual_size = static_cast<int64_t>(st->size_bytes);
          row.size_bytes = st->size_bytes;
        }
        out.files.push_back(std::move(row));
      }
      std::sort(out.files.begin(), out.files.end(),
                [](const ops::FileRow& a, const ops::FileRow& b) { return a.path < b.path; });
    }
    return Loaded<Unopenable>{std::make_shared<const Unopenable>(std::move(out)), base::StatusCode::kOk, {}};
  });
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

QFuture<Loaded<ValidatedWrite>> executePrune(base::Fs& fs, std::shared_ptr<const ops::PrunePlan> plan,
                                             std::shared_ptr<TaskState> task) {
  return runInPool<ValidatedWrite>([fs = &fs, plan, task]() -> Loaded<ValidatedWrite> {
    ValidatedWrite done;
    base::Status st = ops::ExecutePrune(*fs, *plan, task->progress(), &done.steps_done);
    if (!st.ok()) return fromStatus<ValidatedWrite>(st);
    st = verifyPruneRetained(*fs, *plan, task->progress(), &done);
    if (!st.ok()) return fromStatus<ValidatedWrite>(st);
    Loaded<ValidatedWrite> out;
    out.value = std::make_shared<const ValidatedWrite>(std::move(done));
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
