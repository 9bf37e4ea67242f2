#include "app/open_session.h"

#include <QAction>

#include <QDir>
#include <QDockWidget>
#include <QEvent>
#include <QFileInfo>
#include <QHeaderView>
#include <QTreeView>
#include <algorithm>

#include "app/main_window_util.h"
#include "models/display.h"
#include "models/loaders.h"
#include "models/location.h"
#include "models/snapshot_list_model.h"

namespace ckpt::inspector {

using detail::whenReady;

OpenSession::OpenSession(const WindowShell& shell, QObject* parent) : QObject(parent), m_shell(shell) {
  QWidget* window = m_shell.window;
  m_listModel = new SnapshotListModel(this);
  m_list = new QTreeView(window);
  m_list->setModel(m_listModel);
  m_list->setUniformRowHeights(true);
  m_list->setTextElideMode(Qt::ElideMiddle);
  // A dock a third of the window wide shows name, time, size and health without scrolling
  // sideways: the name gets what the others leave (elided in the middle; fitListColumns), and
  // the columns the Summary page repeats (id, kind, type, checkpointed size, operators) start
  // hidden; the header's context menu shows them again. Columns stay resizable by hand.
  QHeaderView* header = m_list->header();
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setStretchLastSection(false);
  m_list->viewport()->installEventFilter(this);
  for (int c : {SnapshotListModel::kCheckpointId, SnapshotListModel::kKind, SnapshotListModel::kType,
                SnapshotListModel::kCheckpointedSize, SnapshotListModel::kOperators}) {
    m_list->setColumnHidden(c, true);
  }
  header->setContextMenuPolicy(Qt::ActionsContextMenu);
  for (int c = 0; c < SnapshotListModel::kColumnCount; ++c) {
    if (c == SnapshotListModel::kPath) continue;
    auto* toggle = new QAction(m_listModel->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString(), header);
    toggle->setCheckable(true);
    toggle->setChecked(!m_list->isColumnHidden(c));
    connect(toggle, &QAction::toggled, m_list, [this, c](bool on) {
      m_list->setColumnHidden(c, !on);
      fitListColumns();
    });
    header->addAction(toggle);
  }
  auto* dock = new QDockWidget(tr("Snapshots"), window);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
  dock->setMinimumWidth(160);
  dock->setObjectName(QStringLiteral("snapshotsDock"));
  dock->setWidget(m_list);
  m_listDock = dock;
  connect(m_list, &QTreeView::activated, this, &OpenSession::openListedSnapshot);
  connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { openListedSnapshot(current); });
}

void OpenSession::fitListColumns() {
  int others = 0;
  for (int c = 0; c < SnapshotListModel::kColumnCount; ++c) {
    if (c == SnapshotListModel::kPath || m_list->isColumnHidden(c)) continue;
    m_list->resizeColumnToContents(c);
    others += m_list->columnWidth(c);
  }
  m_list->setColumnWidth(SnapshotListModel::kPath, std::max(60, m_list->viewport()->width() - others));
}

bool OpenSession::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_list->viewport() && event->type() == QEvent::Resize) fitListColumns();
  return QObject::eventFilter(watched, event);
}

void OpenSession::reload() {
  if (!m_path.isEmpty()) openPath(m_path);
}

void OpenSession::openPath(const QString& location) {
  // The one place a location given to the window becomes a filesystem and a path on it.
  const OpenedLocation resolved = resolveLocation(location);
  if (!resolved.ok()) {
    ++m_generation;
    showCannotOpen(location, resolved.error, std::nullopt, nullptr);
    Q_EMIT openFailed(resolved.error);
    return;
  }
  base::Fs* fs = resolved.fs;
  const QString clean = cleanLocation(resolved.path);
  m_shell.status(tr("Opening %1…").arg(clean));
  const uint64_t generation = ++m_generation;
  whenReady(this, inspector::openPath(*fs, clean), [this, fs, clean, generation](const Loaded<Opened>& r) {
    if (generation != m_generation) return;
    if (!r.ok()) {
      // A failed open stays out of Open Recent.
      showCannotOpen(clean, r.error, std::nullopt, fs);
      Q_EMIT openFailed(r.error);
      return;
    }
    m_fs = fs;
    m_path = clean;
    if (r.value->snapshot || !r.value->jobs.empty()) Q_EMIT openedForRecent(clean);  // not a folder without snapshots
    if (r.value->snapshot) {
      m_root.clear();
      m_listModel->setListing(QFileInfo(clean).absolutePath(), {});
      m_listDock->hide();  // a single snapshot has no list to show
      show(r.value->snapshot);
      m_shell.status(tr("Opened %1").arg(clean), 5000);
      Q_EMIT historyCleared();
      Q_EMIT snapshotLoaded(clean);
      return;
    }
    m_root = clean;
    m_listDock->show();
    m_listModel->setListing(clean, r.value->jobs);
    m_list->expandAll();
    fitListColumns();
    m_shell.window->resizeDocks({m_listDock}, {std::min(m_shell.window->width() / 3, 520)}, Qt::Horizontal);
    m_shell.setTitle(tr("%1 — ckpt-inspector").arg(clean));
    const size_t jobs = r.value->jobs.size();
    m_shell.status(jobs == 1 ? tr("%1: 1 job").arg(clean) : tr("%1: %2 jobs").arg(clean).arg(jobs));
    if (jobs == 0) {
      clear();
      m_shownPath = clean;
      Q_EMIT emptyRootShown(clean);
    }
    // Show the newest complete snapshot of the first job.
    QModelIndex newest;
    if (m_listModel->rowCount() > 0) {
      const QModelIndex job = m_listModel->index(0, 0);
      for (int i = m_listModel->rowCount(job) - 1; i >= 0 && !newest.isValid(); --i) {
        const QModelIndex s = m_listModel->index(i, 0, job);
        if (m_listModel->entry(s)->health == ops::SnapshotHealth::kComplete) newest = s;
      }
      Q_EMIT historyJobChosen(r.value->jobs.front().job_id_hex, true);
    }
    Q_EMIT rootLoaded(clean);
    if (newest.isValid()) m_list->setCurrentIndex(newest);
  });
}

void OpenSession::openListedSnapshot(const QModelIndex& index) {
  const ops::SnapshotEntry* e = m_listModel->entry(index);
  if (e == nullptr || m_fs == nullptr) return;
  const QString path = index.siblingAtColumn(0).data(SnapshotListModel::kAbsolutePathRole).toString();
  if (m_snapshot && cleanLocation(qs(m_snapshot->dir)) == cleanLocation(path)) return;
  Q_EMIT historyJobChosen(e->job_id_hex, false);
  if (m_cannotOpen && cleanLocation(m_shownPath) == cleanLocation(path)) return;
  if (e->health != ops::SnapshotHealth::kComplete) {
    m_shell.status(tr("%1 is %2: %3").arg(path, qs(ops::SnapshotHealthName(e->health)), qs(e->problem)));
  } else {
    m_shell.status(tr("Opening %1…").arg(path));
  }
  const ops::SnapshotEntry entry = *e;
  base::Fs* fs = m_fs;
  const uint64_t generation = ++m_generation;
  whenReady(this, loadSnapshot(*fs, path), [this, fs, path, generation, entry](const Loaded<ops::Snapshot>& r) {
    if (generation != m_generation) return;
    if (!r.ok()) {
      showCannotOpen(path, r.error, entry, fs);
      Q_EMIT openFailed(r.error);
      return;
    }
    m_shell.status(tr("Opened %1").arg(path), 5000);
    show(r.value);
    Q_EMIT snapshotLoaded(path);
  });
}

void OpenSession::selectListed(const QString& relativePath) {
  const QModelIndex i = m_listModel->indexForPath(relativePath);
  if (i.isValid()) m_list->setCurrentIndex(i);
}

void OpenSession::clear() {
  m_snapshot.reset();
  m_cannotOpen = false;
  Q_EMIT cleared();
}

void OpenSession::show(std::shared_ptr<const ops::Snapshot> snapshot) {
  clear();
  m_snapshot = std::move(snapshot);
  m_shownPath = qs(m_snapshot->dir);
  m_shell.setTitle(tr("%1 — ckpt-inspector").arg(qs(m_snapshot->dir)));
  Q_EMIT snapshotShown();
}

void OpenSession::showCannotOpen(const QString& path, const QString& error,
                                 std::optional<ops::SnapshotEntry> entry, base::Fs* fs) {
  clear();
  m_cannotOpen = true;
  m_shownPath = path;
  m_shell.setTitle(tr("Cannot open %1 — ckpt-inspector").arg(path));
  m_shell.status(tr("Cannot open %1").arg(path));
  Q_EMIT cannotOpenShown(path, error, entry, fs);
}

}  // namespace ckpt::inspector
