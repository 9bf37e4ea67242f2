#include "models/table_models.h"

#include <QBrush>
#include <QColor>
#include "models/tone.h"
#include <QCoreApplication>

#include "ckpt/ops/operator_label.h"
#include "models/display.h"

namespace ckpt::inspector {
namespace {

QVariant header(const char* const* names, int count, int section, Qt::Orientation o, int role) {
  if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= count) return {};
  return QCoreApplication::translate("ckpt-inspector", names[section]);
}

}  // namespace

void OperatorTableModel::setRows(std::vector<ops::OperatorRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}
int OperatorTableModel::rowCount(const QModelIndex& p) const {
  return p.isValid() ? 0 : static_cast<int>(m_rows.size());
}
int OperatorTableModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }
QVariant OperatorTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const ops::OperatorRow& r = m_rows[static_cast<size_t>(index.row())];
  if (role == kOperatorIdRole) return qs(r.uid_hash);
  if (role == kSortRole && index.column() == kTotalBytes) return QVariant::fromValue<qulonglong>(r.total_bytes);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kName: return qs(ops::OperatorLabel(r.operator_name, r.uid, r.uid_hash));
    case kUid: return qs(r.uid);
    case kUidHash: return qs(r.uid_hash);
    case kParallelism: return r.parallelism;
    case kMaxParallelism: return r.max_parallelism;
    case kSubtaskStates: return QVariant::fromValue<qulonglong>(r.subtask_state_count);
    case kCoordinatorBytes: return humanBytes(r.coordinator_state_bytes);
    case kTotalBytes: return humanBytes(r.total_bytes);
    default: return {};
  }
}
QVariant OperatorTableModel::headerData(int s, Qt::Orientation o, int role) const {
  static const char* kNames[] = {"Operator", "UID", "UID hash", "Parallelism", "Max parallelism",
                                 "Subtask states", "Coordinator state", "Total size"};
  return header(kNames, kColumnCount, s, o, role);
}

void FilesModel::setRows(std::vector<ops::FileRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}
int FilesModel::rowCount(const QModelIndex& p) const { return p.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int FilesModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }
QVariant FilesModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const ops::FileRow& r = m_rows[static_cast<size_t>(index.row())];
  if (role == kFileIndexRole) return static_cast<int>(r.index);
  if (role == kSortRole && index.column() == kSize) return QVariant::fromValue<qulonglong>(r.size_bytes);
  if (role == Qt::ForegroundRole && (!r.exists || r.actual_size != static_cast<int64_t>(r.size_bytes))) {
    return QBrush(toneColor(Tone::kError));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kIndex: return r.index;
    case kPath: return qs(r.location.empty() ? r.path : r.location);
    case kKind: return qs(ops::FileKindName(r.kind));
    case kOwner: return qs(r.owner);
    case kSize: return humanBytes(r.size_bytes);
    // 0: none recorded (Apache Flink records no checksum and no creator): unknown, not 0.
    case kChecksum:
      return r.checksum_xxh3 != 0 ? QStringLiteral("%1").arg(r.checksum_xxh3, 16, 16, QLatin1Char('0'))
                                  : QStringLiteral("—");
    case kCreatedBy:
      return r.created_by_checkpoint_id != 0 ? QVariant::fromValue<qlonglong>(r.created_by_checkpoint_id)
                                             : QVariant(QStringLiteral("—"));
    case kExists:
      if (!r.exists) return tr("missing");
      return r.actual_size == static_cast<int64_t>(r.size_bytes) ? tr("yes") : tr("size %1").arg(r.actual_size);
    case kReferencedBy: {
      QStringList refs;
      for (const auto& s : r.referenced_by) refs << qs(s);
      return refs.join(QStringLiteral(", "));
    }
    default: return {};
  }
}
QVariant FilesModel::headerData(int s, Qt::Orientation o, int role) const {
  static const char* kNames[] = {"#", "Path", "Kind", "Owner", "Size", "XXH3", "Created by",
                                 "Exists", "Referenced by"};
  return header(kNames, kColumnCount, s, o, role);
}

void FindingsModel::setFindings(std::vector<ops::Finding> findings) {
  beginResetModel();
  m_findings = std::move(findings);
  endResetModel();
}
const ops::Finding* FindingsModel::finding(const QModelIndex& index) const {
  if (!index.isValid() || index.row() >= rowCount()) return nullptr;
  return &m_findings[static_cast<size_t>(index.row())];
}
int FindingsModel::rowCount(const QModelIndex& p) const { return p.isValid() ? 0 : static_cast<int>(m_findings.size()); }
int FindingsModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }
QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const ops::Finding& f = m_findings[static_cast<size_t>(index.row())];
  switch (role) {
    case kSeverityRole: return static_cast<int>(f.severity);
    case kOperatorIdRole: return qs(f.location.operator_id);
    case kSubtaskRole: return f.location.subtask ? static_cast<int>(*f.location.subtask) : -1;
    case Qt::ToolTipRole: return f.hint.empty() ? qs(f.message) : qs(f.message) + QStringLiteral("\n\n") + qs(f.hint);
    case Qt::ForegroundRole:
      if (index.column() != kSeverity) return {};
      return QBrush(toneColor(f.severity == ops::Severity::kError     ? Tone::kError
                              : f.severity == ops::Severity::kWarning ? Tone::kWarning
                                                                      : Tone::kInfo));
    case Qt::DisplayRole: break;
    default: return {};
  }
  switch (index.column()) {
    case kSeverity: return qs(ops::SeverityName(f.severity));
    case kRule: return qs(f.rule_id);
    case kOperator: return qs(f.location.operator_name.empty() ? f.location.operator_id : f.location.operator_name);
    case kSubtask: return f.location.subtask ? QVariant(*f.location.subtask) : QVariant();
    case kKeyGroup: return f.location.key_group ? QVariant(*f.location.key_group) : QVariant();
    case kFile: return qs(f.location.file);
    case kMessage: return qs(f.message);
    default: return {};
  }
}
QVariant FindingsModel::headerData(int s, Qt::Orientation o, int role) const {
  static const char* kNames[] = {"Severity", "Rule", "Operator", "Subtask", "Key group", "File", "Message"};
  return header(kNames, kColumnCount, s, o, role);
}

}  // namespace ckpt::inspector
