#include "app/state_browser.h"

#include <algorithm>
#include <optional>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "ckpt/ops/operator_label.h"
#include "ckpt/ops/state_entries.h"
#include "models/display.h"

namespace ckpt::inspector {

StateBrowser::StateBrowser(QWidget* parent)
    : QWidget(parent),
      m_model(new StateTableModel(this)),
      m_operator(new QComboBox(this)),
      m_state(new QComboBox(this)),
      m_key(new QLineEdit(this)),
      m_keyGroup(new QSpinBox(this)),
      m_match(new QComboBox(this)),
      m_history(new QCheckBox(tr("Changelog history"), this)),
      m_goTo(new QLineEdit(this)),
      m_range(new QLabel(this)),
      m_view(new QTableView(this)),
      m_status(new QLabel(this)) {
  m_match->addItem(tr("key is (JSON)"), static_cast<int>(StateTableModel::KeyMatch::kExact));
  m_match->addItem(tr("key starts with"), static_cast<int>(StateTableModel::KeyMatch::kPrefix));
  m_match->addItem(tr("key contains"), static_cast<int>(StateTableModel::KeyMatch::kSubstring));
  m_match->addItem(tr("value contains"), static_cast<int>(StateTableModel::KeyMatch::kValueContains));
  m_match->setToolTip(tr("Exact key (JSON of the key type; ops seeks its key group), or a prefix / substring of the key as shown"));
  m_goTo->setPlaceholderText(tr("go to row or kg:N"));
  m_goTo->setToolTip(tr("Row number (1-based), or kg:N for the first row of key group N; Return jumps"));
  m_goTo->setMaximumWidth(fontMetrics().horizontalAdvance(QStringLiteral("go to row or kg:N")) + 24);
  m_key->setPlaceholderText(tr("key as JSON, e.g. \"user-07\" or 42"));
  m_key->setToolTip(tr("Only the entries of this key (ops seeks its key group). Ctrl+F"));
  m_keyGroup->setRange(-1, 32767);
  m_keyGroup->setSpecialValueText(tr("all key groups"));
  m_keyGroup->setValue(-1);
  auto* apply = new QPushButton(tr("Filter"), this);
  auto* exportButton = new QPushButton(tr("Export selection…"), this);
  // Two rows (what is shown; how it is filtered) so the page fits a 1024-pixel window; the
  // pickers and the key shrink to a few characters before anything is cut off.
  for (QComboBox* c : {m_operator, m_state}) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(8);
  }
  m_key->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("\"user-07\"")) + 16);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Operator"), this));
  top->addWidget(m_operator, 2);
  top->addWidget(new QLabel(tr("State"), this));
  top->addWidget(m_state, 1);
  top->addWidget(m_history);
  top->addWidget(exportButton);
  auto* filters = new QHBoxLayout;
  filters->addWidget(m_match);
  filters->addWidget(m_key, 2);
  filters->addWidget(m_keyGroup);
  filters->addWidget(apply);
  filters->addWidget(m_goTo);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addLayout(filters);
  layout->addWidget(m_view, 1);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(m_range);
  bottom->addWidget(m_status, 1);
  layout->addLayout(bottom);
  m_view->setModel(m_model);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->setWordWrap(false);
  m_view->setTextElideMode(Qt::ElideMiddle);
  // A header click sorts by that column (ascending, descending, then ops' order again).
  QHeaderView* header = m_view->horizontalHeader();
  header->setSectionsClickable(true);
  header->setSortIndicatorShown(true);
  header->setSortIndicator(-1, Qt::AscendingOrder);
  connect(header, &QHeaderView::sectionClicked, this, [this, header](int column) {
    const bool same = m_model->sortColumn() == column;
    if (same && header->sortIndicatorOrder() == Qt::DescendingOrder) {
      sortRows(-1, Qt::AscendingOrder);
    } else {
      sortRows(column, same ? Qt::DescendingOrder : Qt::AscendingOrder);
    }
  });
  connect(m_model, &StateTableModel::sortRefused, this, [this, header](const QString& reason) {
    header->setSortIndicator(m_model->sortColumn(), header->sortIndicatorOrder());
    m_status->setText(reason);
  });
  connect(m_model, &QAbstractItemModel::modelReset, this, [header] { header->setSortIndicator(-1, Qt::AscendingOrder); });
  connect(m_operator, &QComboBox::currentIndexChanged, this, &StateBrowser::operatorChosen);
  connect(m_operator, &QComboBox::activated, this, [this] { m_chosen = true; });
  connect(m_state, &QComboBox::activated, this, [this] { m_chosen = true; });
  connect(m_state, &QComboBox::currentIndexChanged, this, [this] { stateChosen(); });
  connect(apply, &QPushButton::clicked, this, [this] {
    applyFilter(m_key->text(), m_keyGroup->value(), static_cast<StateTableModel::KeyMatch>(m_match->currentData().toInt()));
  });
  m_history->setToolTip(tr("Changelog state: show every change of the log tail instead of the replayed values a restore sees"));
  connect(m_history, &QCheckBox::toggled, m_model, &StateTableModel::setHistory);
  connect(m_goTo, &QLineEdit::returnPressed, this, [this] {
    const QString t = m_goTo->text().trimmed();
    bool ok = false;
    if (t.startsWith(QStringLiteral("kg:"), Qt::CaseInsensitive)) {
      const int g = t.mid(3).toInt(&ok);
      if (!ok || !goToKeyGroup(g)) m_status->setText(tr("key group %1 has no rows here").arg(t.mid(3)));
    } else {
      const int r = QLocale().toInt(t, &ok);
      if (!ok || !goToRow(r - 1)) m_status->setText(tr("no row %1 (%2 rows)").arg(t).arg(m_model->rowCount()));
    }
  });
  connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, &StateBrowser::updateRange);
  connect(m_model, &QAbstractItemModel::modelReset, this, &StateBrowser::updateRange);
  connect(m_model, &StateTableModel::rowsLoaded, this, &StateBrowser::updateRange);
  // A count that found no rows inserts nothing, so the view never asks for more: keep counting
  // until a row turns up or the state is exhausted, then say "No entries".
  connect(m_model, &StateTableModel::countFinished, this, [this] {
    if (m_model->rowCount() == 0 && m_model->canFetchMore({})) m_model->fetchMore({});
    updateRange();
  });
  connect(m_key, &QLineEdit::returnPressed, apply, &QPushButton::click);
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export selection as JSON"), {}, tr("JSON (*.json)"));
    if (!path.isEmpty()) exportSelection(path);
  });
  connect(m_model, &StateTableModel::loadFailed, this, [this](const QString& m) { m_status->setText(m); });
  connect(m_keyGroup, &QSpinBox::editingFinished, apply, &QPushButton::click);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { emitSelection(current); });
  connect(m_model, &StateTableModel::rowsLoaded, this, [this](int first, int count) {
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid() && current.row() >= first && current.row() < first + count &&
        current.row() != m_recordShownRow) {
      emitSelection(current);
    }
  });
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] { m_recordShownRow = -1; });
}

StateBrowser::SelectedRecord StateBrowser::currentRecord() const {
  SelectedRecord r;
  const QModelIndex current = m_view->currentIndex();
  if (!current.isValid()) return r;
  const QModelIndex i = m_model->index(current.row(), 0);
  const QVariant file = i.data(StateTableModel::kRecordFileRole);
  if (!file.isValid() || file.toInt() < 0) return r;
  r.file = file.toInt();
  r.offset = i.data(StateTableModel::kRecordOffsetRole).toULongLong();
  r.length = i.data(StateTableModel::kRecordLengthRole).toULongLong();
  return r;
}

void StateBrowser::emitSelection(const QModelIndex& current) {
  if (!current.isValid()) return;
  if (currentRecord().file >= 0) m_recordShownRow = current.row();
  auto cell = [&](int c) { return m_model->index(current.row(), c).data().toString(); };
  // The whole value (its tooltip), also when it shows as one column per field.
  QString value = m_model->index(current.row(), StateTableModel::kValue).data(Qt::ToolTipRole).toString();
  const QJsonDocument doc = QJsonDocument::fromJson(("[" + value + "]").toUtf8());
  if (doc.isArray() && doc.array().size() == 1 && (doc.array()[0].isObject() || doc.array()[0].isArray())) {
    const QJsonValue v = doc.array()[0];
    value = QString::fromUtf8(v.isObject() ? QJsonDocument(v.toObject()).toJson() : QJsonDocument(v.toArray()).toJson());
  }
  bool ok_sub = false, ok_kg = false;
  const int sub = cell(StateTableModel::kSubtask).toInt(&ok_sub);
  const int kg = cell(StateTableModel::kKeyGroup).toInt(&ok_kg);
  Q_EMIT recordSelected(m_operator->currentData().toString(), ok_sub ? sub : -1, ok_kg ? kg : -1);
  Q_EMIT entrySelected(tr("state %1, key group %2, subtask %3\nkey: %4\nnamespace: %5\nuser key: %6\nvalue:\n%7")
                           .arg(cell(m_model->sourceColumn()), cell(StateTableModel::kKeyGroup),
                                cell(StateTableModel::kSubtask), cell(StateTableModel::kKey),
                                cell(StateTableModel::kNamespace), cell(StateTableModel::kUserKey), value));
}

void StateBrowser::clearSnapshot() {
  m_fs = nullptr;
  m_snapshot.reset();
  QSignalBlocker block(m_operator);
  m_operator->clear();
  operatorChosen(m_operator->currentIndex());
}

void StateBrowser::setSnapshot(base::Fs& fs, std::shared_ptr<const ops::Snapshot> snapshot) {
  m_fs = &fs;
  m_snapshot = std::move(snapshot);
  m_chosen = false;
  QSignalBlocker block(m_operator);
  m_operator->clear();
  int withBytes = -1;  // the first operator whose subtasks hold state bytes (ops' state_bytes)
  if (m_snapshot) {
    for (const auto& op : m_snapshot->operators) {
      if (op.states.empty()) continue;
      const bool hasBytes = std::any_of(op.subtasks.begin(), op.subtasks.end(),
                                        [](const ops::SubtaskInfo& s) { return s.state_bytes > 0; });
      if (hasBytes && withBytes < 0) withBytes = m_operator->count();
      m_operator->addItem(qs(ops::OperatorLabel(op.name, op.uid, op.id_hex)), qs(op.id_hex));
    }
  }
  if (withBytes > 0) m_operator->setCurrentIndex(withBytes);
  operatorChosen(m_operator->currentIndex());
}

void StateBrowser::operatorChosen(int index) {
  QSignalBlocker block(m_state);
  m_state->clear();
  if (m_snapshot && index >= 0) {
    auto op = m_snapshot->FindOperator(m_operator->itemData(index).toString().toStdString());
    if (op.ok()) {
      for (const auto& s : (*op)->states) m_state->addItem(qs(s.name) + QStringLiteral(" (") + qs(ops::StateKindName(s.kind)) + QLatin1Char(')'), qs(s.name));
    }
  }
  stateChosen();
}

void StateBrowser::stateChosen() {
  m_status->clear();
  const QString op = m_operator->currentData().toString();
  if (m_fs != nullptr) {
    m_model->setSource(*m_fs, m_snapshot, op, m_state->currentData().toString());
  } else {
    m_model->clearSource();
  }
  // A chosen state fixes the State column: it would repeat one name on every row.
  m_view->setColumnHidden(m_model->sourceColumn(), !m_state->currentData().toString().isEmpty());
  updateFilterSupport();
  m_model->setFilter(m_key->text(), m_keyGroup->value() < 0 ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(m_keyGroup->value())),
                     static_cast<StateTableModel::KeyMatch>(m_match->currentData().toInt()));
  if (!m_model->lastError().isEmpty()) m_status->setText(m_model->lastError());
}

void StateBrowser::updateFilterSupport() {
  ops::KeyFilterSupport support;  // nothing chosen: no keyed filters
  const QString op = m_operator->currentData().toString();
  if (m_snapshot && !op.isEmpty()) {
    auto s = ops::KeyFilterSupportOf(*m_snapshot, op.toStdString(), m_state->currentData().toString().toStdString());
    if (s.ok()) support = std::move(s).value();
    else support.reason = s.status().ToString();
  }
  m_keyGroup->setEnabled(support.key_group);
  if (!support.key_group) m_keyGroup->setValue(-1);
  const int exactIndex = m_match->findData(static_cast<int>(StateTableModel::KeyMatch::kExact));
  if (auto* items = qobject_cast<QStandardItemModel*>(m_match->model()); items != nullptr && exactIndex >= 0) {
    items->item(exactIndex)->setEnabled(support.exact_key);
  }
  if (!support.exact_key && m_match->currentIndex() == exactIndex) {
    m_match->setCurrentIndex(m_match->findData(static_cast<int>(StateTableModel::KeyMatch::kPrefix)));
    m_matchForced = true;
  } else if (support.exact_key && m_matchForced) {
    m_match->setCurrentIndex(exactIndex);
    m_matchForced = false;
  }
  if (support.exact_key) {
    m_key->setPlaceholderText(tr("key as JSON of %1, e.g. \"user-07\" or 42").arg(qs(support.key_type)));
    m_key->setToolTip(tr("Only the entries of this key (ops seeks its key group). Ctrl+F"));
  } else {
    m_key->setPlaceholderText(tr("start or part of the key as shown"));
    m_key->setToolTip(support.reason.empty() ? tr("Only the entries whose key starts with or contains this text. Ctrl+F")
                                             : tr("No exact key filter: %1. Ctrl+F").arg(qs(support.reason)));
  }
}

bool StateBrowser::exactKeyFilterEnabled() const {
  const auto* items = qobject_cast<const QStandardItemModel*>(m_match->model());
  const int exactIndex = m_match->findData(static_cast<int>(StateTableModel::KeyMatch::kExact));
  return items != nullptr && exactIndex >= 0 && items->item(exactIndex)->isEnabled();
}

bool StateBrowser::keyGroupFilterEnabled() const { return m_keyGroup->isEnabled(); }

void StateBrowser::setStats(const std::shared_ptr<const ops::StatsReport>& stats) {
  if (!stats || m_chosen || !m_snapshot) return;
  auto entriesOf = [&](const QString& op, const QString& state) -> std::optional<uint64_t> {
    for (const ops::OperatorStats& o : stats->operators) {
      if (qs(o.id_hex) != op) continue;
      for (const ops::StateStats& s : o.states) {
        if (qs(s.name) == state) return s.entries;
      }
    }
    return std::nullopt;
  };
  const std::optional<uint64_t> current = entriesOf(currentOperator(), m_state->currentData().toString());
  if (!current || *current > 0) return;
  for (const ops::OperatorStats& o : stats->operators) {
    for (const ops::StateStats& s : o.states) {
      if (s.entries == 0 || m_operator->findData(qs(o.id_hex)) < 0) continue;
      showState(qs(o.id_hex), qs(s.name));
      m_chosen = false;  // still the default: a later choice is the user's
      return;
    }
  }
}

void StateBrowser::showState(const QString& id_hex, const QString& state) {
  const int oi = m_operator->findData(id_hex);
  if (oi < 0) return;
  m_chosen = true;
  m_operator->setCurrentIndex(oi);
  operatorChosen(oi);
  const int si = state.isEmpty() ? 0 : m_state->findData(state);
  if (si >= 0) m_state->setCurrentIndex(si);
}

void StateBrowser::applyFilter(const QString& key_json, int key_group, StateTableModel::KeyMatch match) {
  m_key->setText(key_json);
  m_keyGroup->setValue(key_group);
  m_match->setCurrentIndex(m_match->findData(static_cast<int>(match)));
  m_status->clear();
  m_model->setFilter(key_json, key_group < 0 ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(key_group)), match);
  if (m_model->canFetchMore({})) m_model->fetchMore({});
  if (!m_model->lastError().isEmpty()) m_status->setText(m_model->lastError());
}

bool StateBrowser::exportSelection(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    m_status->setText(tr("cannot write %1: %2").arg(path, f.errorString()));
    return false;
  }
  const QByteArray json = m_model->rowsToJson(m_view->selectionModel()->selectedIndexes());
  const bool ok = f.write(json) == json.size();
  m_status->setText(ok ? tr("exported %1 rows to %2").arg(m_view->selectionModel()->selectedRows().size()).arg(path)
                       : tr("cannot write %1").arg(path));
  return ok;
}

bool StateBrowser::goToRow(int row) {
  if (row < 0 || row >= m_model->rowCount()) return false;
  const QModelIndex i = m_model->index(row, StateTableModel::kKey);
  m_view->scrollTo(i, QAbstractItemView::PositionAtTop);
  m_view->setCurrentIndex(i);
  m_model->requestRow(row);
  updateRange();
  return true;
}

bool StateBrowser::goToKeyGroup(int key_group) {
  if (key_group < 0) return false;
  const int row = m_model->firstRowOfKeyGroup(static_cast<uint32_t>(key_group));
  return row >= 0 && goToRow(row);
}

void StateBrowser::sortRows(int column, Qt::SortOrder order) {
  m_status->clear();
  m_model->sort(column, order);
  QHeaderView* header = m_view->horizontalHeader();
  header->setSortIndicator(m_model->sortColumn(), order);
  updateRange();
}

QString StateBrowser::rangeText() const { return m_range->text(); }

void StateBrowser::updateRange() {
  const int total = m_model->rowCount();
  if (total == 0) {
    m_range->setText(!m_model->lastError().isEmpty() ? tr("No entries read")
                     : m_model->fullyFetched()        ? tr("No entries")
                                                      : tr("Counting…"));
    return;
  }
  int first = m_view->rowAt(0);
  int last = m_view->rowAt(m_view->viewport()->height() - 1);
  if (first < 0) first = 0;
  if (last < 0) last = std::min(total - 1, first + 49);
  const QLocale l;
  m_range->setText(m_model->fullyFetched()
                       ? tr("Rows %1–%2 of %3").arg(l.toString(first + 1), l.toString(last + 1), l.toString(total))
                       : tr("Rows %1–%2 of at least %3 (counting; scroll for more)").arg(l.toString(first + 1), l.toString(last + 1), l.toString(total)));
}

QString StateBrowser::currentOperator() const { return m_operator->currentData().toString(); }

void StateBrowser::focusFilter() {
  m_key->setFocus();
  m_key->selectAll();
}

}  // namespace ckpt::inspector
