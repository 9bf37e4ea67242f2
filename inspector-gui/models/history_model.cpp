#include "models/history_model.h"

#include <QBrush>

#include "models/display.h"
#include "models/tone.h"

namespace ckpt::inspector {

void HistoryTableModel::setHistory(std::shared_ptr<const ops::JobHistory> history) {
  beginResetModel();
  m_history = std::move(history);
  endResetModel();
}

int HistoryTableModel::rowCount(const QModelIndex& p) const {
  return p.isValid() || !m_history ? 0 : static_cast<int>(m_history->rows.size());
}
int HistoryTableModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }

QVariant HistoryTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_history) return {};
  const ops::HistoryRow& p = m_history->rows[static_cast<size_t>(index.row())];
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
