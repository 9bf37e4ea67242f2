// Read-only table models over plain ops result rows: the operator table of a snapshot (ls),
// its file table (files) and a list of findings (validate / stats). Each is a thin adapter that
// copies the rows it is given; GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "ckpt/ops/files.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/ls.h"

namespace ckpt::inspector {

class OperatorTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kName, kUid, kUidHash, kParallelism, kMaxParallelism, kSubtaskStates,
                kCoordinatorBytes, kTotalBytes, kColumnCount };
  explicit OperatorTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setRows(std::vector<ops::OperatorRow> rows);
  const std::vector<ops::OperatorRow>& rows() const { return m_rows; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<ops::OperatorRow> m_rows;
};

class FilesModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kIndex, kPath, kKind, kOwner, kSize, kChecksum, kCreatedBy, kExists,
                kReferencedBy, kColumnCount };
  explicit FilesModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setRows(std::vector<ops::FileRow> rows);
  const std::vector<ops::FileRow>& rows() const { return m_rows; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<ops::FileRow> m_rows;
};

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kSeverity, kRule, kOperator, kSubtask, kKeyGroup, kFile, kMessage, kColumnCount };
  explicit FindingsModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setFindings(std::vector<ops::Finding> findings);
  const std::vector<ops::Finding>& findings() const { return m_findings; }
  const ops::Finding* finding(const QModelIndex& index) const;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<ops::Finding> m_findings;
};

}  // namespace ckpt::inspector
