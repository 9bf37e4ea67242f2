// Models over ops::Diff / ops::DiffKeys results: DiffTreeModel (operators with their states, and
// a "Files" branch) coloured added / removed / changed with size deltas, and KeyDiffModel (the
// key-level differences). Read-only adapters; GUI thread only.
#pragma once

#include <QAbstractItemModel>
#include <QAbstractTableModel>
#include <memory>

#include "ckpt/ops/diff.h"
#include "models/loaders.h"

namespace ckpt::inspector {

class DiffTreeModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column { kName, kChange, kSizeA, kSizeB, kDelta, kDetails, kColumnCount };
  explicit DiffTreeModel(QObject* parent = nullptr);

  void setResult(std::shared_ptr<const ops::DiffResult> result);
  const std::shared_ptr<const ops::DiffResult>& result() const { return m_result; }
  // Colour of a change (palette-independent: these carry meaning).
  static QColor changeColor(ops::DiffChange change);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  // internalId encodes the row kind: 0 = top level (operators, then the Files branch),
  // (1 + operator) << 1 = a state of that operator, 1 = a file.
  int topCount() const;
  bool isFilesBranch(const QModelIndex& index) const;

  std::shared_ptr<const ops::DiffResult> m_result;
};

class KeyDiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kChange, kOperator, kState, kKeyGroup, kKey, kNamespace, kUserKey, kValueA,
                kValueB, kColumnCount };
  explicit KeyDiffModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setList(std::shared_ptr<const KeyDiffList> list);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const KeyDiffList> m_list;
};

}  // namespace ckpt::inspector
