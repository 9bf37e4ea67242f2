// LiveCheckpointsWindow: layout and wiring of the live Checkpoints view.
#include "app/live_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>

#include "app/main_window.h"
#include "models/display.h"

namespace ckpt::inspector {

namespace {

QTableView* table(QAbstractItemModel* model, QWidget* parent) {
  auto* v = new QTableView(parent);
  v->setModel(model);
  v->setSelectionBehavior(QAbstractItemView::SelectRows);
  v->setSelectionMode(QAbstractItemView::SingleSelection);
  v->setEditTriggers(QAbstractItemView::NoEditTriggers);
  v->verticalHeader()->hide();
  v->horizontalHeader()->setStretchLastSection(true);
  v->setAlternatingRowColors(true);
  // One line per row (timestamps and Flink's file: URIs would wrap); long paths keep both ends.
  v->setWordWrap(false);
  v->setTextElideMode(Qt::ElideMiddle);
  return v;
}

// Sizes the columns to their contents when rows arrive: every time for the small detail
// tables, once for the history (it refreshes every interval and may hold a thousand rows).
void fitColumns(QTableView* v, bool once) {
  auto fit = [v, once, done = std::make_shared<bool>(false)] {
    if (v->model()->rowCount() == 0 || (once && *done)) return;
    *done = true;
    v->resizeColumnsToContents();
  };
  QObject::connect(v->model(), &QAbstractItemModel::modelReset, v, fit);
  QObject::connect(v->model(), &QAbstractItemModel::rowsInserted, v, fit);
}

QString latestLine(const char* what, const std::optional<LiveHistoryEntry>& e) {
  if (!e) return QStringLiteral("%1: —").arg(QLatin1String(what));
  QString s = QStringLiteral("%1: #%2 at %3").arg(QLatin1String(what)).arg(e->id).arg(formatTimestamp(e->triggerMs));
  if (!e->path.isEmpty()) s += QStringLiteral(" (%1)").arg(e->path);
  if (!e->failure.isEmpty()) s += QStringLiteral(" (%1)").arg(e->failure);
  return s;
}

}  // namespace

LiveCheckpointsWindow::LiveCheckpointsWindow(const QString& address, int interval_ms,
                                             QWidget* parent)
    : QWidget(parent, Qt::Window),
      m_connection(new LiveConnection(address, this)),
      m_history(new LiveHistoryModel(this)),
      m_summary(new LiveSummaryModel(this)),
      m_config(new LivePairsModel(this)),
      m_tasks(new LiveTasksModel(this)),
      m_subtasks(new LiveSubtasksModel(this)) {
  setWindowTitle(tr("Live checkpoints — %1").arg(m_connection->baseUrl().toString()));
  resize(1200, 760);
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Job:"), this));
  m_jobs = new QComboBox(this);
  m_jobs->setMinimumWidth(420);
  // Jobs arrive after the first show: the box follows its longest entry (name, ID and state).
  m_jobs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  top->addWidget(m_jobs);
  top->addStretch(1);
  layout->addLayout(top);
  m_counts = new QLabel(this);
  m_counts->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_counts);
  m_latest = new QLabel(this);
  m_latest->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_latest->setWordWrap(true);
  layout->addWidget(m_latest);

  m_tabs = new QTabWidget(this);
  // History on top, the selected checkpoint's operators and the selected operator's subtasks
  // below it, each the full width (the subtask table has twelve columns).
  auto* history = new QSplitter(Qt::Vertical, m_tabs);
  m_historyView = table(m_history, history);
  m_tasksView = table(m_tasks, history);
  auto* subtasksView = table(m_subtasks, history);
  history->addWidget(m_historyView);
  history->addWidget(m_tasksView);
  history->addWidget(subtasksView);
  history->setStretchFactor(0, 3);
  history->setStretchFactor(1, 1);
  history->setStretchFactor(2, 2);
  fitColumns(m_historyView, true);
  fitColumns(m_tasksView, false);
  fitColumns(subtasksView, false);
  m_tabs->addTab(history, tr("History"));
  auto* summaryView = table(m_summary, m_tabs);
  auto* configView = table(m_config, m_tabs);
  fitColumns(summaryView, false);
  fitColumns(configView, false);
  m_tabs->addTab(summaryView, tr("Summary"));
  m_tabs->addTab(configView, tr("Configuration"));
  layout->addWidget(m_tabs, 1);
  m_status = new QLabel(tr("Connecting to %1…").arg(m_connection->baseUrl().toString()), this);
  layout->addWidget(m_status);

  connect(m_historyView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { if (current.isValid()) selectCheckpoint(current.row()); });
  // One click on a completed snapshot's path (shown as a link), or a double-click anywhere on
  // its row, opens it in the offline views.
  connect(m_historyView, &QTableView::clicked, this, [this](const QModelIndex& index) {
    if (index.column() == LiveHistoryModel::kPathOrFailure) openCheckpoint(index.row());
  });
  connect(m_historyView, &QTableView::doubleClicked, this,
          [this](const QModelIndex& index) { openCheckpoint(index.row()); });
  connect(m_tasksView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { if (current.isValid()) selectTask(current.row()); });
  connect(m_jobs, &QComboBox::activated, this, [this](int i) {
    m_connection->setJob(m_jobs->itemData(i).toString());
  });

  connect(m_connection, &LiveConnection::jobsUpdated, this, &LiveCheckpointsWindow::showJobs);
  connect(m_connection, &LiveConnection::verticesUpdated, this,
          [this](const QVector<LiveVertex>& v) {
            const bool same = std::equal(
                v.begin(), v.end(), m_vertices.begin(), m_vertices.end(),
                [](const LiveVertex& a, const LiveVertex& b) {
                  return a.id == b.id && a.name == b.name;
                });
            m_vertices = v;
            // Details that arrived before the job's vertices get their operator names and order.
            if (!same && !m_tasks->tasks().isEmpty()) showTasks(m_tasks->tasks());
          });
  connect(m_connection, &LiveConnection::checkpointsUpdated, this,
          &LiveCheckpointsWindow::showCheckpoints);
  connect(m_connection, &LiveConnection::configUpdated, m_config, &LivePairsModel::setPairs);
  connect(m_connection, &LiveConnection::jobChanged, this, [this] {
    m_selectedId = -1;
    m_selectedVertex.clear();
    // Another job's history: its ids may be the same numbers (a restored job continues its
    // savepoint's), so no row or selection carries over.
    m_history->setEntries({});
    m_tasks->setTasks({}, {});
    m_subtasks->setSubtasks({});
  });
  connect(m_connection, &LiveConnection::detailsUpdated, this,
          [this](qint64 id, const QVector<LiveTaskStats>& tasks) {
            if (id == m_selectedId) showTasks(tasks);
          });
  connect(m_connection, &LiveConnection::subtasksUpdated, this,
          [this](qint64 id, const QString& vertex, const QVector<LiveSubtaskStats>& s) {
            if (id == m_selectedId && vertex == m_selectedVertex) m_subtasks->setSubtasks(s);
          });
  connect(m_connection, &LiveConnection::failed, this,
          [this](const QString& message) { m_status->setText(message); });
  m_connection->setInterval(interval_ms);
  m_connection->start();
}

QString LiveCheckpointsWindow::countsText() const { return m_counts->text(); }
QString LiveCheckpointsWindow::statusText() const { return m_status->text(); }

void LiveCheckpointsWindow::showJobs(const QVector<LiveJob>& jobs) {
  m_jobs->blockSignals(true);
  m_jobs->clear();
  for (const LiveJob& j : jobs) {
    m_jobs->addItem(QStringLiteral("%1 — %2 (%3)").arg(j.name, j.id, j.state), j.id);
  }
  // The refilled box keeps showing the watched job (clear() left it on the first entry).
  const int watched = m_jobs->findData(m_connection->watchedJobId());
  if (watched >= 0) m_jobs->setCurrentIndex(watched);
  m_jobs->blockSignals(false);
}

void LiveCheckpointsWindow::showCheckpoints(const LiveCheckpoints& c) {
  m_last = c;
  for (int i = 0; i < m_jobs->count(); ++i) {
    // The combo box follows the watched job (chosen automatically or by the user).
    if (m_jobs->currentIndex() != i &&
        m_jobs->itemData(i).toString() == m_connection->watchedJobId()) {
      m_jobs->setCurrentIndex(i);
    }
  }
  m_counts->setText(tr("Triggered %1 · In progress %2 · Completed %3 · Failed %4 · Restored %5")
                        .arg(c.total).arg(c.inProgress).arg(c.completed).arg(c.failed).arg(c.restored));
  QStringList latest = {latestLine("Latest completed", c.latestCompleted),
                        latestLine("Latest savepoint", c.latestSavepoint),
                        latestLine("Latest failed", c.latestFailed)};
  if (c.restoredId >= 0) latest << tr("Restored: #%1 (%2)").arg(c.restoredId).arg(c.restoredPath);
  m_latest->setText(latest.join(QLatin1Char('\n')));
  m_history->setEntries(c.history);
  // The selected checkpoint's details follow it while it is in progress and once more when it
  // completes or fails.
  for (const LiveHistoryEntry& e : c.history) {
    if (e.id != m_selectedId) continue;
    if (e.status == QLatin1String("IN_PROGRESS") || e.status != m_selectedStatus) {
      m_selectedStatus = e.status;
      m_connection->requestDetails(m_selectedId);
    }
  }
  m_summary->setRows(c.summary);
  m_status->setText(tr("%1 · refreshed every %2 ms · %3 refreshes")
                        .arg(m_connection->baseUrl().toString())
                        .arg(m_connection->interval())
                        .arg(m_connection->polls()));
}

void LiveCheckpointsWindow::showTasks(const QVector<LiveTaskStats>& tasks) {
  const QVector<LiveTaskStats> copy = tasks;  // `tasks` may be the model's own rows
  m_tasks->setTasks(copy, m_vertices);
  // A refresh keeps the operator the user chose (selecting it fetches its subtasks).
  int row = 0;
  for (int i = 0; i < m_tasks->tasks().size(); ++i) {
    if (m_tasks->tasks()[i].vertexId == m_selectedVertex) row = i;
  }
  if (!copy.isEmpty()) m_tasksView->selectRow(row);
}

void LiveCheckpointsWindow::selectCheckpoint(int row) {
  if (row < 0 || row >= m_history->entries().size()) return;
  const qint64 id = m_history->entries()[row].id;
  if (id == m_selectedId) return;
  m_selectedId = id;
  m_selectedStatus = m_history->entries()[row].status;
  m_selectedVertex.clear();
  m_tasks->setTasks({}, {});  // never another checkpoint's details under this one
  m_subtasks->setSubtasks({});
  if (m_historyView->currentIndex().row() != row) m_historyView->selectRow(row);
  m_connection->requestDetails(id);
}

void LiveCheckpointsWindow::selectTask(int row) {
  if (row < 0 || row >= m_tasks->tasks().size() || m_selectedId < 0) return;
  const QString vertex = m_tasks->tasks()[row].vertexId;
  if (vertex != m_selectedVertex) m_subtasks->setSubtasks({});
  m_selectedVertex = vertex;
  m_connection->requestSubtasks(m_selectedId, m_selectedVertex);
}

void LiveCheckpointsWindow::openCheckpoint(int row) {
  if (row < 0 || row >= m_history->entries().size()) return;
  const LiveHistoryEntry& e = m_history->entries()[row];
  if (e.status != QLatin1String("COMPLETED") || e.path.isEmpty()) {
    m_status->setText(tr("Checkpoint %1 is %2: nothing to open").arg(e.id).arg(e.status));
    return;
  }
  const QString path = localSnapshotPath(e.path);
  if (path.isEmpty()) {
    m_status->setText(tr("Checkpoint %1: %2 is not a path on this machine").arg(e.id).arg(e.path));
    return;
  }
  if (e.discarded) {
    m_status->setText(tr("Checkpoint %1 was discarded (subsumed by a newer one): %2 is gone")
                          .arg(e.id)
                          .arg(path));
    return;
  }
  if (!QFileInfo::exists(path)) {
    m_status->setText(tr("Checkpoint %1: %2 is not reachable from here (deleted when subsumed, "
                         "or on another machine)").arg(e.id).arg(path));
    return;
  }
  Q_EMIT openSnapshotRequested(path);
}

LiveCheckpointsWindow* openLiveView(MainWindow& window, const QString& address, int interval_ms) {
  auto* live = new LiveCheckpointsWindow(address, interval_ms, &window);
  live->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(live, &LiveCheckpointsWindow::openSnapshotRequested, &window,
                   [&window](const QString& path) {
                     window.openPath(path);
                     window.raise();
                     window.activateWindow();
                   });
  live->show();
  return live;
}

}  // namespace ckpt::inspector
