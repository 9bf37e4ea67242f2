#include "models/history_model.h"

#include <QBrush>
#include <algorithm>
#include <cmath>

#include "models/display.h"
#include "models/tone.h"

namespace ckpt::inspector {

MetricSummary summarize(std::vector<double> values) {
  MetricSummary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / static_cast<double>(values.size());
  // Nearest rank: the smallest value with at least 99 % of the values at or below it.
  const size_t rank = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(values.size())));
  s.p99 = values[std::max<size_t>(rank, 1) - 1];
  return s;
}

void HistoryTableModel::setHistory(std::shared_ptr<const std::vector<HistoryPoint>> history) {
  beginResetModel();
  m_history = std::move(history);
  endResetModel();
}

HistoryTableModel::Counts HistoryTableModel::counts() const {
  Counts c;
  if (!m_history) return c;
  for (const HistoryPoint& p : *m_history) {
    switch (p.entry.health) {
      case ops::SnapshotHealth::kComplete: ++c.completed; break;
      case ops::SnapshotHealth::kCorrupt: ++c.failed; break;
      case ops::SnapshotHealth::kIncomplete: ++c.incomplete; break;
    }
    if (!p.restored_from.empty()) ++c.restored;
  }
  return c;
}

namespace {
template <class Fn>
MetricSummary over(const std::shared_ptr<const std::vector<HistoryPoint>>& h, Fn value) {
  std::vector<double> v;
  if (h) {
    for (const HistoryPoint& p : *h) {
      if (p.entry.health == ops::SnapshotHealth::kComplete) v.push_back(value(p));
    }
  }
  return summarize(std::move(v));
}
}  // namespace

MetricSummary HistoryTableModel::durationSummary() const {
  return over(m_history, [](const HistoryPoint& p) { return static_cast<double>(std::max<int64_t>(0, p.duration_ms)); });
}
MetricSummary HistoryTableModel::checkpointedSizeSummary() const {
  return over(m_history, [](const HistoryPoint& p) { return static_cast<double>(p.entry.checkpointed_size_bytes); });
}
MetricSummary HistoryTableModel::fullSizeSummary() const {
  return over(m_history, [](const HistoryPoint& p) { return static_cast<double>(p.entry.full_size_bytes); });
}

int HistoryTableModel::rowCount(const QModelIndex& p) const {
  return p.isValid() || !m_history ? 0 : static_cast<int>(m_history->size());
}
int HistoryTableModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }

QVariant HistoryTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_history) return {};
  const HistoryPoint& p = (*m_history)[static_cast<size_t>(index.row())];
  const ops::SnapshotEntry& e = p.entry;
  const bool complete = e.health == ops::SnapshotHealth::kComplete;
  if (role == Qt::ForegroundRole && !complete) {
    return QBrush(toneColor(e.health == ops::SnapshotHealth::kCorrupt ? Tone::kError : Tone::kWarning));
  }
  if (role == kSortRole) {
    switch (index.column()) {
      case kId: return QVariant::fromValue<qlonglong>(e.checkpoint_id);
      case kTriggered: return QVariant::fromValue<qlonglong>(e.trigger_timestamp_ms);
      case kDuration: return QVariant::fromValue<qlonglong>(p.duration_ms);
      case kCheckpointedSize: return QVariant::fromValue<qulonglong>(e.checkpointed_size_bytes);
      case kFullSize: return QVariant::fromValue<qulonglong>(e.full_size_bytes);
      case kProcessed: return QVariant::fromValue<qulonglong>(p.metrics ? p.metrics->processed_data : 0);
      case kPersisted: return QVariant::fromValue<qulonglong>(p.metrics ? p.metrics->persisted_data : 0);
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  const QString unknown = QStringLiteral("—");
  switch (index.column()) {
    case kId: return QVariant::fromValue<qlonglong>(e.checkpoint_id);
    case kStatus:
      switch (e.health) {
        case ops::SnapshotHealth::kComplete: return tr("completed");
        case ops::SnapshotHealth::kCorrupt: return tr("failed (corrupt metadata)");
        case ops::SnapshotHealth::kIncomplete: return tr("incomplete (no _metadata)");
      }
      return {};
    case kType:
      if (!complete) return unknown;
      return e.kind == ops::SnapshotKind::kSavepoint ? tr("savepoint (%1)").arg(qs(ops::SavepointFormatName(e.savepoint_format)))
                                                     : qs(ops::CheckpointTypeName(e.checkpoint_type));
    case kTriggered: return e.trigger_timestamp_ms > 0 ? formatTimestamp(e.trigger_timestamp_ms) : unknown;
    case kDuration: return complete && p.duration_ms >= 0 ? tr("%1 ms").arg(p.duration_ms) : unknown;
    case kCheckpointedSize: return complete ? humanBytes(e.checkpointed_size_bytes) : unknown;
    case kFullSize: return complete ? humanBytes(e.full_size_bytes) : unknown;
    case kProcessed: return p.metrics ? humanBytes(p.metrics->processed_data) : unknown;
    case kPersisted: return p.metrics ? humanBytes(p.metrics->persisted_data) : unknown;
    case kUnaligned: return p.metrics ? (p.metrics->is_unaligned ? tr("yes") : tr("no")) : unknown;
    case kProblem: return qs(e.problem);
    default: return {};
  }
}

QVariant HistoryTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"ID", "Status", "Type", "Triggered", "End-to-end", "Checkpointed size",
                                 "Full size", "Processed (in-flight)", "Persisted (in-flight)", "Unaligned", "Problem"};
  return section >= 0 && section < kColumnCount ? tr(kNames[section]) : QVariant();
}

}  // namespace ckpt::inspector
