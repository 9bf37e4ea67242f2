#include "ckpt/ops/history.h"

#include <algorithm>
#include <cmath>

namespace ckpt::ops {
namespace {

// The value at nearest rank `share` (0 < share <= 1) of sorted `values`.
double HistoryNearestRank(const std::vector<double>& sorted, double share) {
  const auto rank = static_cast<size_t>(std::ceil(share * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// Reloads the newest complete snapshots of `job` for their metrics and restore source.
base::Status HistoryAddDetails(base::Fs& fs, const std::string& root, size_t limit,
                               const base::Progress& progress, size_t* reloaded,
                               JobHistory* job) {
  size_t detailed = 0;
  for (auto it = job->rows.rbegin(); it != job->rows.rend() && detailed < limit; ++it) {
    if (it->entry.health != SnapshotHealth::kComplete) continue;
    if (progress.cancelled()) {
      return base::Status::Cancelled("history stopped while reading " + it->entry.path);
    }
    ++detailed;
    const std::string path = it->entry.path.empty() ? root : base::JoinPath(root, it->entry.path);
    // `_metadata` only: the metrics and restore source are there, state meta is not needed.
    LoadOptions options;
    options.state_meta = false;
    base::Result<Snapshot> s = LoadSnapshot(fs, path, options);
    progress.Report(++*reloaded, 0, it->entry.path);
    if (!s.ok()) continue;  // listed as complete a moment ago; the row stays without details
    it->metrics = s->metrics;
    if (s->restored_from) it->restored_from = s->restored_from->path;
  }
  return base::Status::OK();
}

}  // namespace

MetricSummary SummarizeMetric(std::vector<double> values) {
  MetricSummary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / static_cast<double>(values.size());
  s.p50 = HistoryNearestRank(values, 0.5);
  s.p99 = HistoryNearestRank(values, 0.99);
  return s;
}

HistorySummary SummarizeHistory(const std::vector<HistoryRow>& rows) {
  HistorySummary s;
  s.total = rows.size();
  std::vector<double> durations;
  std::vector<double> checkpointed;
  std::vector<double> full;
  for (size_t i = 0; i < rows.size(); ++i) {
    const HistoryRow& row = rows[i];
    if (!row.restored_from.empty()) ++s.restored;
    switch (row.entry.health) {
      case SnapshotHealth::kComplete:
        break;
      case SnapshotHealth::kCorrupt:
        ++s.failed;
        continue;
      case SnapshotHealth::kIncomplete:
        ++s.incomplete;
        continue;
    }
    ++s.completed;
    if (row.entry.kind == SnapshotKind::kSavepoint) ++s.savepoints;
    s.latest_completed = i;
    durations.push_back(static_cast<double>(std::max<int64_t>(0, row.duration_ms)));
    checkpointed.push_back(static_cast<double>(row.entry.checkpointed_size_bytes));
    full.push_back(static_cast<double>(row.entry.full_size_bytes));
  }
  s.duration_ms = SummarizeMetric(std::move(durations));
  s.checkpointed_size_bytes = SummarizeMetric(std::move(checkpointed));
  s.full_size_bytes = SummarizeMetric(std::move(full));
  return s;
}

base::Result<std::vector<JobHistory>> LoadHistory(base::Fs& fs, const std::string& root,
                                                  const HistoryOptions& options,
                                                  const base::Progress& progress) {
  CKPT_ASSIGN_OR_RETURN(std::vector<JobListing> jobs, ListRoot(fs, root));
  std::vector<JobHistory> out;
  size_t reloaded = 0;
  for (JobListing& job : jobs) {
    if (!options.job_id_hex.empty() && job.job_id_hex != options.job_id_hex) continue;
    JobHistory history;
    history.job_id_hex = job.job_id_hex;
    for (SnapshotEntry& e : job.snapshots) {
      HistoryRow row;
      if (e.health == SnapshotHealth::kComplete) row.duration_ms = e.end_to_end_duration_ms;
      row.entry = std::move(e);
      history.rows.push_back(std::move(row));
    }
    CKPT_RETURN_IF_ERROR(
        HistoryAddDetails(fs, root, options.detailed_limit, progress, &reloaded, &history));
    history.summary = SummarizeHistory(history.rows);
    out.push_back(std::move(history));
  }
  if (!options.job_id_hex.empty() && out.empty()) {
    return base::Status::NotFound("no snapshots of job " + options.job_id_hex + " under " + root);
  }
  return out;
}

}  // namespace ckpt::ops
