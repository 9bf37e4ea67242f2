#include "models/snapshot_list_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include "models/tone.h"

#include "models/display.h"

namespace ckpt::inspector {

// internalId: 0 for a job row, job index + 1 for a snapshot row of that job.
SnapshotListModel::SnapshotListModel(QObject* parent) : QAbstractItemModel(parent) {}

void SnapshotListModel::setListing(const QString& root, std::vector<ops::JobListing> jobs) {
  beginResetModel();
  m_root = root;
  m_jobs = std::move(jobs);
  endResetModel();
}

const ops::SnapshotEntry* SnapshotListModel::entry(const QModelIndex& index) const {
  if (!index.isValid() || index.internalId() == 0) return nullptr;
  const auto& job = m_jobs[index.internalId() - 1];
  return &job.snapshots[static_cast<size_t>(index.row())];
}

QModelIndex SnapshotListModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  if (!parent.isValid()) return createIndex(row, column, quintptr{0});
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex SnapshotListModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr{0});
}

int SnapshotListModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(m_jobs.size());
  if (parent.column() != 0 || parent.internalId() != 0) return 0;
  return static_cast<int>(m_jobs[static_cast<size_t>(parent.row())].snapshots.size());
}

int SnapshotListModel::columnCount(const QModelIndex&) const { return kColumnCount; }

QVariant SnapshotListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  if (index.internalId() == 0) {
    const auto& job = m_jobs[static_cast<size_t>(index.row())];
    if (index.column() != kPath) return {};
    if (role == Qt::DisplayRole) {
      return tr("job %1 (%2 snapshots)").arg(qs(job.job_id_hex)).arg(job.snapshots.size());
    }
    return {};
  }
  const ops::SnapshotEntry& e = *entry(index);
  if (role == kAbsolutePathRole) return m_root + QLatin1Char('/') + qs(e.path);
  if (role == Qt::ToolTipRole && index.column() == kPath) return m_root + QLatin1Char('/') + qs(e.path);
  if (role == Qt::ForegroundRole && e.health != ops::SnapshotHealth::kComplete) {
    return QBrush(toneColor(e.health == ops::SnapshotHealth::kCorrupt ? Tone::kError : Tone::kWarning));
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == kFullSize || index.column() == kCheckpointedSize) return sizeExplanation();
    if (index.column() == kTime) return formatTimestamp(e.trigger_timestamp_ms);
    if (!e.problem.empty()) return qs(e.problem);
    return {};
  }
  if (role == kSortRole) {
    switch (index.column()) {
      case kCheckpointId: return QVariant::fromValue<qlonglong>(e.checkpoint_id);
      case kTime: return QVariant::fromValue<qlonglong>(e.trigger_timestamp_ms);
      case kFullSize: return QVariant::fromValue<qulonglong>(e.full_size_bytes);
      case kCheckpointedSize: return QVariant::fromValue<qulonglong>(e.checkpointed_size_bytes);
      default: break;
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kPath: {
      // Under its job row the job directory is implied: show "chk-12" / "savepoint-...".
      const std::string& p = e.path;
      const size_t slash = p.find_last_of('/');
      return qs(slash == std::string::npos ? p : p.substr(slash + 1));
    }
    case kCheckpointId: return QVariant::fromValue<qlonglong>(e.checkpoint_id);
    case kKind:
      return e.kind == ops::SnapshotKind::kSavepoint
                 ? tr("savepoint (%1)").arg(qs(ops::SavepointFormatName(e.savepoint_format)))
                 : qs(ops::SnapshotKindName(e.kind));
    case kType:
      return qs(ops::CheckpointTypeName(e.checkpoint_type)) + QStringLiteral(", ") +
             qs(ops::CheckpointingModeName(e.mode));
    // To the minute, so the list fits a narrow dock; the tooltip has the seconds.
    case kTime:
      return e.trigger_timestamp_ms <= 0
                 ? QStringLiteral("-")
                 : QDateTime::fromMSecsSinceEpoch(e.trigger_timestamp_ms, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    // A snapshot that could not be read has no sizes: unknown, never "0 B".
    case kFullSize:
      return e.health == ops::SnapshotHealth::kComplete ? humanBytes(e.full_size_bytes) : QStringLiteral("—");
    case kCheckpointedSize:
      return e.health == ops::SnapshotHealth::kComplete ? humanBytes(e.checkpointed_size_bytes) : QStringLiteral("—");
    case kOperators:
      return e.health == ops::SnapshotHealth::kComplete ? QVariant(e.operator_count) : QVariant(QStringLiteral("—"));
    case kHealth: return qs(ops::SnapshotHealthName(e.health));
    default: return {};
  }
}

QVariant SnapshotListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && (section == kFullSize || section == kCheckpointedSize)) {
    return sizeExplanation();
  }
  if (role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Snapshot", "Checkpoint", "Kind", "Type", "Triggered (UTC)",
                                 "Full size", "Checkpointed size", "Operators", "Health"};
  return section >= 0 && section < kColumnCount ? tr(kNames[section]) : QVariant();
}

QModelIndex SnapshotListModel::indexForPath(const QString& path) const {
  for (int j = 0; j < rowCount(); ++j) {
    const QModelIndex job = index(j, 0);
    for (int i = 0; i < rowCount(job); ++i) {
      const QModelIndex s = index(i, 0, job);
      if (entry(s) && qs(entry(s)->path) == path) return s;
    }
  }
  return {};
}

}  // namespace ckpt::inspector
