#include "models/sort_proxy.h"

#include "models/display.h"

namespace ckpt::inspector {

SortProxy::SortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

QVariant SortProxy::data(const QModelIndex& index, int role) const {
  if (role == Qt::ToolTipRole) {
    const QVariant own = QSortFilterProxyModel::data(index, role);
    if (own.isValid()) return own;
    const QString text = QSortFilterProxyModel::data(index, Qt::DisplayRole).toString();
    return text.isEmpty() ? QVariant() : QVariant(text);
  }
  return QSortFilterProxyModel::data(index, role);
}

bool SortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant l = left.data(kSortRole), r = right.data(kSortRole);
  if (l.isValid() && r.isValid()) return QVariant::compare(l, r) == QPartialOrdering::Less;
  const QVariant dl = left.data(Qt::DisplayRole), dr = right.data(Qt::DisplayRole);
  bool lnum = false, rnum = false;
  const double ln = dl.toDouble(&lnum), rn = dr.toDouble(&rnum);
  if (lnum && rnum) return ln < rn;
  return QString::compare(dl.toString(), dr.toString(), Qt::CaseInsensitive) < 0;
}

}  // namespace ckpt::inspector
