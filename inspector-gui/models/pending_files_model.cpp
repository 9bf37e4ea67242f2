#include "models/pending_files_model.h"

#include <QBrush>
#include <QCoreApplication>

#include "models/display.h"
#include "models/tone.h"

namespace ckpt::inspector {

void PendingFilesModel::setRows(std::vector<ops::PendingFile> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

int PendingFilesModel::rowCount(const QModelIndex& p) const {
  return p.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int PendingFilesModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }

QVariant PendingFilesModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const ops::PendingFile& r = m_rows[static_cast<size_t>(index.row())];
  const ops::Committable& c = r.committable;
  if (role == kOperatorIdRole) return qs(r.operator_id_hex);
  if (role == kSubtaskRole) return static_cast<int>(r.subtask);
  if (role == kSortRole) {
    switch (index.column()) {
      case kSubtask: return static_cast<int>(r.subtask);
      case kRecordedSize: return QVariant::fromValue<qulonglong>(c.size_bytes);
      case kSizeOnDisk: return r.size_on_disk_bytes ? QVariant::fromValue<qulonglong>(*r.size_on_disk_bytes) : QVariant(-1);
      case kCheckpoint: return QVariant::fromValue<qlonglong>(c.checkpoint_id);
      default: break;
    }
  }
  if (role == Qt::ForegroundRole) {
    if (r.state == ops::PendingFileState::kMissing || r.size_mismatch()) return QBrush(toneColor(Tone::kError));
    if (r.state == ops::PendingFileState::kBoth) return QBrush(toneColor(Tone::kWarning));
    return {};
  }
  if (role == Qt::ToolTipRole) {
    switch (r.state) {
      case ops::PendingFileState::kPending: return QCoreApplication::translate("ckpt-inspector", "Pending: a restore from this snapshot commits it (renames it to the final path).");
      case ops::PendingFileState::kCommitted: return QCoreApplication::translate("ckpt-inspector", "Committed: the final file exists and the pending one is gone.");
      case ops::PendingFileState::kBoth: return QCoreApplication::translate("ckpt-inspector", "Both the pending and the final file exist.");
      case ops::PendingFileState::kMissing: return QCoreApplication::translate("ckpt-inspector", "Missing: neither file exists; a restore from this snapshot cannot commit it.");
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kOperator: return qs(r.operator_name);
    case kSubtask: return static_cast<int>(r.subtask);
    case kState: {
      QString s = qs(ops::PendingFileStateName(r.state));
      if (r.size_mismatch()) s += QCoreApplication::translate("ckpt-inspector", " (size differs)");
      return s;
    }
    case kPendingPath: return qs(c.PendingName());
    case kFinalPath: return qs(c.final_path);
    case kRecordedSize: return humanBytes(c.size_bytes);
    case kSizeOnDisk: return r.size_on_disk_bytes ? humanBytes(*r.size_on_disk_bytes) : QStringLiteral("-");
    case kCheckpoint: return QVariant::fromValue<qlonglong>(c.checkpoint_id);
    default: return {};
  }
}

QVariant PendingFilesModel::headerData(int s, Qt::Orientation o, int role) const {
  static const char* kNames[] = {"Operator", "Subtask", "On disk", "Pending file", "Final file",
                                 "Recorded size", "Size on disk", "Checkpoint"};
  if (o != Qt::Horizontal || role != Qt::DisplayRole || s < 0 || s >= kColumnCount) return {};
  return QCoreApplication::translate("ckpt-inspector", kNames[s]);
}

}  // namespace ckpt::inspector
