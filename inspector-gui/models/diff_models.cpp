#include "models/diff_models.h"

#include <QBrush>
#include <QColor>
#include "models/tone.h"

#include "ckpt/ops/operator_label.h"
#include "models/display.h"

namespace ckpt::inspector {

DiffTreeModel::DiffTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void DiffTreeModel::setResult(std::shared_ptr<const ops::DiffResult> result) {
  beginResetModel();
  m_result = std::move(result);
  endResetModel();
}

QColor DiffTreeModel::changeColor(ops::DiffChange change) {
  switch (change) {
    case ops::DiffChange::kAdded: return toneColor(Tone::kAdded);
    case ops::DiffChange::kRemoved: return toneColor(Tone::kRemoved);
    case ops::DiffChange::kChanged: return toneColor(Tone::kChanged);
    case ops::DiffChange::kSame:
    case ops::DiffChange::kSizeUnchanged: break;
  }
  return {};
}

int DiffTreeModel::topCount() const {
  return m_result ? static_cast<int>(m_result->operators.size()) + 1 : 0;
}

bool DiffTreeModel::isFilesBranch(const QModelIndex& index) const {
  return index.isValid() && index.internalId() == 0 && m_result &&
         index.row() == static_cast<int>(m_result->operators.size());
}

QModelIndex DiffTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  if (!parent.isValid()) return createIndex(row, column, quintptr{0});
  if (isFilesBranch(parent)) return createIndex(row, column, quintptr{1});
  return createIndex(row, column, (static_cast<quintptr>(parent.row()) + 1) << 1);
}

QModelIndex DiffTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0) return {};
  if (child.internalId() == 1) return createIndex(static_cast<int>(m_result->operators.size()), 0, quintptr{0});
  return createIndex(static_cast<int>((child.internalId() >> 1) - 1), 0, quintptr{0});
}

int DiffTreeModel::rowCount(const QModelIndex& parent) const {
  if (!m_result) return 0;
  if (!parent.isValid()) return topCount();
  if (parent.column() != 0 || parent.internalId() != 0) return 0;
  if (isFilesBranch(parent)) return static_cast<int>(m_result->files.size());
  return static_cast<int>(m_result->operators[static_cast<size_t>(parent.row())].states.size());
}

int DiffTreeModel::columnCount(const QModelIndex&) const { return kColumnCount; }

QVariant DiffTreeModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  ops::DiffChange change = ops::DiffChange::kSame;
  QString name, details;
  uint64_t a = 0, b = 0;
  bool known_a = true, known_b = true;  // false: not measured (Flink states), shown as "—"
  if (isFilesBranch(index)) {
    const auto& r = *m_result;
    name = tr("Files");
    details = tr("%1 added, %2 removed, %3 changed, %4 shared")
                  .arg(r.files_added).arg(r.files_removed).arg(r.files_changed).arg(r.files_shared);
    a = r.bytes_a;
    b = r.bytes_b;
    if (r.files_added + r.files_removed + r.files_changed > 0) change = ops::DiffChange::kChanged;
  } else if (index.internalId() == 0) {
    const ops::OperatorDiff& d = m_result->operators[static_cast<size_t>(index.row())];
    change = d.change;
    // As the CLI's diff names it: by the newer side when it has one.
    name = qs(ops::OperatorLabel(d.name, d.uid_b.empty() ? d.uid_a : d.uid_b, d.id_b.empty() ? d.id_a : d.id_b));
    a = d.bytes_a;
    b = d.bytes_b;
    QStringList parts;
    for (const auto& c : d.changes) parts << qs(c);
    if (!d.matched_by.empty() && d.matched_by != "id") parts << tr("matched by %1").arg(qs(d.matched_by));
    details = parts.join(QStringLiteral("; "));
    if (role == kOperatorIdRole) return qs(d.id_b.empty() ? d.id_a : d.id_b);
  } else if (index.internalId() == 1) {
    const ops::FileDiff& f = m_result->files[static_cast<size_t>(index.row())];
    change = f.change;
    name = qs(f.path);
    details = qs(f.scope);
    a = f.size_a;
    b = f.size_b;
  } else {
    const auto& op = m_result->operators[(index.internalId() >> 1) - 1];
    const ops::StateSizeDiff& s = op.states[static_cast<size_t>(index.row())];
    change = s.change;
    name = qs(s.name);
    a = s.bytes_a;
    b = s.bytes_b;
    known_a = s.bytes_known_a;
    known_b = s.bytes_known_b;
    details = tr("%1 -> %2 entries").arg(s.entries_a).arg(s.entries_b);
    if (s.kind_a != s.kind_b) details += tr("; kind %1 -> %2").arg(qs(s.kind_a), qs(s.kind_b));
  }
  const int64_t delta = static_cast<int64_t>(b) - static_cast<int64_t>(a);
  switch (role) {
    case kChangeRole: return static_cast<int>(change);
    case Qt::ForegroundRole:
      if (change == ops::DiffChange::kSame || change == ops::DiffChange::kSizeUnchanged) return {};
      return QBrush(changeColor(change));
    case kSortRole:
      if (index.column() == kDelta) return QVariant::fromValue<qlonglong>(delta);
      return {};
    case Qt::ToolTipRole:
      return index.column() == kDetails ? details : QVariant();
    case Qt::DisplayRole: break;
    default: return {};
  }
  switch (index.column()) {
    case kName: return name;
    case kChange: return qs(ops::DiffChangeName(change));
    case kSizeA: return known_a ? humanBytes(a) : QStringLiteral("—");
    case kSizeB: return known_b ? humanBytes(b) : QStringLiteral("—");
    case kDelta: return known_a && known_b ? humanDelta(delta) : QStringLiteral("—");
    case kDetails: return details;
    default: return {};
  }
}

QVariant DiffTreeModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Operator / state / file", "Change", "Size A", "Size B", "Delta", "Details"};
  return section >= 0 && section < kColumnCount ? tr(kNames[section]) : QVariant();
}

void KeyDiffModel::setList(std::shared_ptr<const KeyDiffList> list) {
  beginResetModel();
  m_list = std::move(list);
  endResetModel();
}
int KeyDiffModel::rowCount(const QModelIndex& p) const {
  return p.isValid() || !m_list ? 0 : static_cast<int>(m_list->entries.size());
}
int KeyDiffModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : kColumnCount; }
QVariant KeyDiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const ops::KeyDiff& d = m_list->entries[static_cast<size_t>(index.row())];
  if (role == kChangeRole) return static_cast<int>(d.change);
  if (role == Qt::ForegroundRole) return QBrush(DiffTreeModel::changeColor(d.change));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kChange: return qs(ops::DiffChangeName(d.change));
    case kOperator: return qs(d.operator_name);
    case kState: return qs(d.state);
    case kKeyGroup: return d.key_group;
    case kKey: return qs(d.key_json);
    case kNamespace: return qs(d.namespace_json);
    case kUserKey: return qs(d.user_key_json);
    case kValueA: return qs(d.value_a_json);
    case kValueB: return qs(d.value_b_json);
    default: return {};
  }
}
QVariant KeyDiffModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Change", "Operator", "State", "Key group", "Key", "Namespace",
                                 "User key", "Value A", "Value B"};
  return section >= 0 && section < kColumnCount ? tr(kNames[section]) : QVariant();
}

}  // namespace ckpt::inspector
