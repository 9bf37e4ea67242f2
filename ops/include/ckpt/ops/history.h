// history: the snapshots of each job under a checkpoint root in time order, with the numbers
// of Flink's Checkpoints tab: per snapshot its id, status, type, trigger time, end-to-end
// duration, sizes and in-flight data; per job the counts (completed, failed, incomplete,
// restored) and min / avg / p50 / p99 / max of duration and sizes over the completed ones.
// Stateless functions; thread-safe given a thread-safe Fs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct HistoryOptions {
  // Only the job with this ID (32 hex digits, as ListRoot reports it). Default: every job.
  std::string job_id_hex;
  // How many of each job's newest complete snapshots have their `_metadata` read again for the
  // snapshot's own metrics (in-flight data, unaligned flag, acknowledged subtasks) and restore
  // source; older rows leave those unset. Default: 100.
  size_t detailed_limit = 100;
};

// One snapshot of a job's history.
struct HistoryRow {
  // What ListRoot found: path (relative to the root), id, kind, format, type, mode, trigger
  // time, full and checkpointed size, health and, when not complete, why.
  SnapshotEntry entry;
  // End-to-end duration (the metadata's metrics; 0 when the writer recorded none); -1 when the
  // snapshot is not complete.
  int64_t duration_ms = -1;
  // The snapshot's metrics, for the detailed rows (HistoryOptions::detailed_limit); unset
  // otherwise, and when its metadata could not be loaded again.
  std::optional<CheckpointMetrics> metrics;
  // The path of the snapshot it was restored from (detailed rows only; empty if none).
  std::string restored_from;
};

// min / avg / p50 / p99 / max of one metric over the completed snapshots; p50 and p99 by
// nearest rank (the smallest value with at least that share of the values at or below it).
// All zero when count is 0.
struct MetricSummary {
  size_t count = 0;
  double min = 0;
  double avg = 0;
  double p50 = 0;
  double p99 = 0;
  double max = 0;
};

struct HistorySummary {
  size_t total = 0;       // rows
  size_t completed = 0;   // readable `_metadata` (SnapshotHealth::kComplete)
  size_t failed = 0;      // unreadable `_metadata` (kCorrupt)
  size_t incomplete = 0;  // no `_metadata` (kIncomplete)
  size_t restored = 0;    // detailed rows that record a restore source
  size_t savepoints = 0;  // completed savepoints (counted in `completed` too)
  MetricSummary duration_ms;             // end-to-end duration, ms
  MetricSummary checkpointed_size_bytes;  // what each snapshot wrote itself
  MetricSummary full_size_bytes;          // all state each references
  // Index in the rows of the newest completed snapshot (the last completed row: rows are in
  // checkpoint id order); unset when none completed.
  std::optional<size_t> latest_completed;
};

// One job's history: its rows in ListRoot's order (checkpoint id, then path) and their summary.
struct JobHistory {
  std::string job_id_hex;
  std::vector<HistoryRow> rows;
  HistorySummary summary;
};

// Lists `root` (ListRoot: every snapshot found, grouped by job), then reloads the metadata of
// each job's newest complete snapshots (up to options.detailed_limit) for their metrics and
// restore source; a snapshot that no longer loads keeps its row without them. Errors as
// ListRoot (NotFound, InvalidArgument, IOError); NotFound if options.job_id_hex names no job
// under `root`; Cancelled via `progress` (reported per reloaded snapshot).
base::Result<std::vector<JobHistory>> LoadHistory(base::Fs& fs, const std::string& root,
                                                  const HistoryOptions& options = {},
                                                  const base::Progress& progress = {});

// The counts and metric summaries of `rows` (metrics over the completed rows only).
HistorySummary SummarizeHistory(const std::vector<HistoryRow>& rows);

// min / avg / p50 / p99 / max of `values` (any order).
MetricSummary SummarizeMetric(std::vector<double> values);

}  // namespace ckpt::ops
