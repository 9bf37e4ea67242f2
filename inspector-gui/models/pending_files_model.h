// PendingFilesModel: the two-phase-commit sink files a snapshot recorded as pending, one row
// each (ops::ListPendingFiles): operator, subtask, what is on disk now (pending / committed /
// both / missing), the pending and final paths, recorded size, size on disk and the checkpoint
// that closed it. A thin read-only adapter; GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "ckpt/ops/pending_files.h"

namespace ckpt::inspector {

class PendingFilesModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kOperator, kSubtask, kState, kPendingPath, kFinalPath, kRecordedSize,
                kSizeOnDisk, kCheckpoint, kColumnCount };
  explicit PendingFilesModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setRows(std::vector<ops::PendingFile> rows);
  const std::vector<ops::PendingFile>& rows() const { return m_rows; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<ops::PendingFile> m_rows;
};

}  // namespace ckpt::inspector
