// SortProxy: the sortable, tooltip-complete face of the inspector's table models. Sorts by
// kSortRole where a column provides it (sizes and counts numerically), else by the displayed
// value (numbers numerically, text case-insensitively), and gives every cell whose model has no
// tooltip its whole text as tooltip (views elide long text in the middle). GUI thread only.
#pragma once

#include <QSortFilterProxyModel>

namespace ckpt::inspector {

class SortProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit SortProxy(QObject* parent = nullptr);
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

}  // namespace ckpt::inspector
