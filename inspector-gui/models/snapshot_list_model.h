// SnapshotListModel: the `ls` of a checkpoint root as a tree, job -> snapshot (checkpoints and
// savepoints with kind, type, time, sizes and health). A read-only adapter over
// ops::ListRoot's result; GUI thread only.
#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "ckpt/ops/ls.h"

namespace ckpt::inspector {

class SnapshotListModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column { kPath, kCheckpointId, kKind, kType, kTime, kFullSize, kCheckpointedSize,
                kOperators, kHealth, kColumnCount };
  // Role carrying a snapshot row's absolute path (root + "/" + entry path).
  static constexpr int kAbsolutePathRole = Qt::UserRole + 50;

  explicit SnapshotListModel(QObject* parent = nullptr);

  void setListing(const QString& root, std::vector<ops::JobListing> jobs);
  const std::vector<ops::JobListing>& jobs() const { return m_jobs; }
  QString root() const { return m_root; }
  // The entry at `index` (a snapshot row) or nullptr (a job row / invalid).
  const ops::SnapshotEntry* entry(const QModelIndex& index) const;
  // The row of the snapshot whose entry path is `path` (relative to the root), or invalid.
  QModelIndex indexForPath(const QString& path) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QString m_root;
  std::vector<ops::JobListing> m_jobs;
};

}  // namespace ckpt::inspector
