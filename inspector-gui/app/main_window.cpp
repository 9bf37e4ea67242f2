// MainWindow: opening paths and snapshots, the views' reset, background loads. The pages are
// built in main_window_pages.cpp, menus and window events in main_window_menus.cpp, the hex
// view linking in main_window_hex.cpp, validate in main_window_validate.cpp, the Summary page
// in main_window_summary.cpp.
#include "app/main_window.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "app/charts.h"
#include "app/main_window_util.h"
#include "app/diff_page.h"
#include "app/hex_view.h"
#include "app/history_page.h"
#include "app/job_graph_view.h"
#include "app/state_browser.h"
#include "app/task_progress.h"
#include "app/treemap_view.h"
#include "app/write_dialogs.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#include "models/pending_files_model.h"
#include "models/snapshot_list_model.h"
#include "models/sort_proxy.h"
#include "models/table_models.h"


namespace ckpt::inspector {

using detail::base_join;
using detail::fitColumns;
using detail::whenReady;

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("ckpt-inspector"));
  setAcceptDrops(true);
  buildPages();
  buildMenus();
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  if (!settings.contains(QStringLiteral("window/geometry"))) resize(1280, 800);
  setTheme(themeFromName(settings.value(QStringLiteral("view/theme")).toString()));
  statusBar()->showMessage(tr("Open a savepoint, a checkpoint or a checkpoint root (Ctrl+O), or drop one here."));
  showStartPage();
}

void MainWindow::showStartPage() {
  QString html = QStringLiteral("<h2>ckpt-inspector</h2><p><a href=\"action:open\">%1</a> %2</p><p>%3</p>")
                     .arg(tr("Open…").toHtmlEscaped(),
                          tr("a savepoint, a checkpoint or a checkpoint root (Ctrl+O).").toHtmlEscaped(),
                          tr("Or drop a snapshot directory, its _metadata or a checkpoint root on this window.").toHtmlEscaped());
  const QStringList recent = recentFiles();
  if (!recent.isEmpty()) {
    html += QStringLiteral("<h3>%1</h3><ul>").arg(tr("Recent"));
    for (int i = 0; i < recent.size(); ++i) {
      html += QStringLiteral("<li><a href=\"recent:%1\">%2</a></li>").arg(i).arg(recent[i].toHtmlEscaped());
    }
    html += QStringLiteral("</ul>");
  }
  m_summary->setHtml(html);
  showPage(kSummaryPage);
}

MainWindow::~MainWindow() = default;

void MainWindow::showPage(Page page) { m_pages->setCurrentIndex(page); }

void MainWindow::openPath(const QString& path) {
  const QString clean = QDir::cleanPath(path);
  statusBar()->showMessage(tr("Opening %1…").arg(clean));
  const uint64_t generation = ++m_generation;
  whenReady(this, inspector::openPath(clean), [this, clean, generation](const Loaded<Opened>& r) {
    if (generation != m_generation) return;
    if (!r.ok()) {
      // A failed open stays out of Open Recent.
      showCannotOpen(clean, r.error, nullptr);
      Q_EMIT openFailed(r.error);
      return;
    }
    m_path = clean;
    if (r.value->snapshot || !r.value->jobs.empty()) addRecent(clean);  // not a folder without snapshots
    if (r.value->snapshot) {
      m_root.clear();
      m_listModel->setListing(QFileInfo(clean).absolutePath(), {});
      m_listDock->hide();  // a single snapshot has no list to show
      showSnapshot(r.value->snapshot);
      statusBar()->showMessage(tr("Opened %1").arg(clean), 5000);
      m_history->setHistory(nullptr);
      m_historyJob.clear();
      Q_EMIT snapshotLoaded(clean);
      return;
    }
    m_root = clean;
    m_listDock->show();
    m_listModel->setListing(clean, r.value->jobs);
    m_list->expandAll();
    for (int c = 0; c < SnapshotListModel::kColumnCount; ++c) m_list->resizeColumnToContents(c);
    resizeDocks({static_cast<QDockWidget*>(m_listDock)}, {std::min(width() / 3, 520)}, Qt::Horizontal);
    setWindowTitle(tr("%1 — ckpt-inspector").arg(clean));
    const size_t jobs = r.value->jobs.size();
    statusBar()->showMessage(jobs == 1 ? tr("%1: 1 job").arg(clean) : tr("%1: %2 jobs").arg(clean).arg(jobs));
    if (jobs == 0) {
      clearSnapshotViews();
      m_shownPath = clean;
      m_summary->setHtml(QStringLiteral("<h2>%1</h2><p>%2</p>")
                             .arg(tr("No snapshot in %1").arg(clean).toHtmlEscaped(),
                                  tr("This folder holds no checkpoint (chk-<n>), savepoint or _metadata up to three levels down. Open a snapshot directory, its _metadata, or a checkpoint root.").toHtmlEscaped()));
      showPage(kSummaryPage);
    }
    // Show the newest complete snapshot of the first job.
    QModelIndex newest;
    if (m_listModel->rowCount() > 0) {
      const QModelIndex job = m_listModel->index(0, 0);
      for (int i = m_listModel->rowCount(job) - 1; i >= 0 && !newest.isValid(); --i) {
        const QModelIndex s = m_listModel->index(i, 0, job);
        if (m_listModel->entry(s)->health == ops::SnapshotHealth::kComplete) newest = s;
      }
      loadHistoryFor(r.value->jobs.front().job_id_hex);
    }
    Q_EMIT rootLoaded(clean);
    if (newest.isValid()) m_list->setCurrentIndex(newest);
  });
}

void MainWindow::openListedSnapshot(const QModelIndex& index) {
  const ops::SnapshotEntry* e = m_listModel->entry(index);
  if (e == nullptr) return;
  const QString path = index.siblingAtColumn(0).data(SnapshotListModel::kAbsolutePathRole).toString();
  if (m_snapshot && QDir::cleanPath(qs(m_snapshot->dir)) == QDir::cleanPath(path)) return;
  if (e->job_id_hex != m_historyJob) loadHistoryFor(e->job_id_hex);
  if (m_cannotOpen && QDir::cleanPath(m_shownPath) == QDir::cleanPath(path)) return;
  if (e->health != ops::SnapshotHealth::kComplete) {
    statusBar()->showMessage(tr("%1 is %2: %3").arg(path, qs(ops::SnapshotHealthName(e->health)), qs(e->problem)));
  } else {
    statusBar()->showMessage(tr("Opening %1…").arg(path));
  }
  const ops::SnapshotEntry entry = *e;
  const uint64_t generation = ++m_generation;
  whenReady(this, loadSnapshot(path), [this, path, generation, entry](const Loaded<ops::Snapshot>& r) {
    if (generation != m_generation) return;
    if (!r.ok()) {
      showCannotOpen(path, r.error, &entry);
      Q_EMIT openFailed(r.error);
      return;
    }
    statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
    showSnapshot(r.value);
    Q_EMIT snapshotLoaded(path);
  });
}

// Empties every view of the previous snapshot (a new one, or a "Cannot open" page, follows).
void MainWindow::clearSnapshotViews() {
  ++m_hexRequest;
  m_snapshot.reset();
  m_stats.reset();
  m_files.reset();
  m_summaryReport.reset();
  m_report.reset();
  m_layout.reset();
  m_hexFile = -1;
  m_hexRange.clear();
  m_validateFindings.clear();
  m_validated = false;
  m_checked = Checked::kMetadata;
  m_cancelNote.clear();
  m_cannotOpen = false;
  m_findingsModel->setFindings({});
  m_findingsSummary->setText(tr("Not validated yet: Tools > Validate (Ctrl+R)."));
  m_treeModel->setSnapshot(nullptr);
  m_filesModel->setRows({});
  m_hex->clear();
  m_hexInfo->clear();
  {
    QSignalBlocker block(m_blockPicker);
    m_blockPicker->clear();
  }
  m_blockPicker->setEnabled(false);
  m_decompressed->setEnabled(false);
  m_decoded->clear();
  m_state->setSnapshot(nullptr);
  m_treemap->setSnapshot(nullptr);
  m_subtasks->setOperator(nullptr, -1);
  m_keyGroups->setStats(nullptr, -1);
  m_jobGraph->setSnapshot(nullptr);
  m_pendingModel->setRows({});
  m_pendingSummary->clear();
  updateActions();
}

void MainWindow::showSnapshot(std::shared_ptr<const ops::Snapshot> snapshot) {
  clearSnapshotViews();
  m_snapshot = std::move(snapshot);
  m_shownPath = qs(m_snapshot->dir);
  updateActions();
  m_treeModel->setSnapshot(m_snapshot);
  m_tree->expandToDepth(0);
  m_state->setSnapshot(m_snapshot);
  m_treemap->setSnapshot(m_snapshot);
  m_subtasks->setOperator(m_snapshot, -1);
  m_jobGraph->setSnapshot(m_snapshot);
  setWindowTitle(tr("%1 — ckpt-inspector").arg(qs(m_snapshot->dir)));
  updateSummary();
  showPage(kSummaryPage);
  const uint64_t generation = m_generation;
  ++m_running;
  whenReady(this, listFiles(m_snapshot), [this, generation](const Loaded<std::vector<ops::FileRow>>& r) {
    --m_running;
    if (generation != m_generation) return;
    if (r.ok()) {
      m_files = r.value;
      m_filesModel->setRows(*r.value);
      updateSummary();
    }
  });
  loadSummary();
  loadStats();
  loadPendingFiles();
}

// The sink's pending files: what a restore from this snapshot would commit, checked on disk.
void MainWindow::loadPendingFiles() {
  size_t recorded = 0;
  for (const auto& op : m_snapshot->operators) {
    for (const auto& st : op.subtasks) recorded += st.committables.size();
  }
  if (recorded == 0) {
    m_pendingSummary->setText(tr("This snapshot records no pending sink files (no two-phase-commit sink had a file pending at its barrier)."));
    Q_EMIT pendingFilesLoaded();
    return;
  }
  m_pendingSummary->setText(tr("%1 pending sink files recorded; checking the disk…").arg(recorded));
  const uint64_t generation = m_generation;
  ++m_running;
  whenReady(this, listPendingFiles(m_snapshot), [this, generation](const Loaded<std::vector<ops::PendingFile>>& r) {
    --m_running;
    if (generation != m_generation) return;
    if (!r.ok()) {
      m_pendingSummary->setText(tr("Pending files could not be checked: %1").arg(r.error));
      Q_EMIT pendingFilesLoaded();
      return;
    }
    m_pendingModel->setRows(*r.value);
    size_t counts[4] = {};
    for (const ops::PendingFile& f : *r.value) ++counts[static_cast<int>(f.state)];
    QString text = tr("%1 pending sink files: %2 still pending (a restore from this snapshot commits them), %3 committed, %4 both, %5 missing.")
                       .arg(r.value->size()).arg(counts[0]).arg(counts[1]).arg(counts[2]).arg(counts[3]);
    if (counts[3] > 0) text += tr(" A missing file cannot be committed: restoring from this snapshot loses that output.");
    m_pendingSummary->setText(text);
    Q_EMIT pendingFilesLoaded();
  });
}

QString MainWindow::pendingFilesText() const { return m_pendingSummary->text(); }

void MainWindow::operatorChosen(int op, std::optional<uint32_t> subtask) {
  if (!m_snapshot || op < 0 || static_cast<size_t>(op) >= m_snapshot->operators.size()) return;
  const ops::OperatorInfo& info = m_snapshot->operators[static_cast<size_t>(op)];
  m_jobGraph->setSelectedOperator(op);
  m_subtasks->setOperator(m_snapshot, op);
  ops::Location loc;
  loc.operator_id = info.id_hex;
  loc.subtask = subtask;
  const QModelIndex idx = m_treeModel->indexForLocation(loc);
  if (idx.isValid()) {
    m_tree->scrollTo(idx);
    m_tree->setCurrentIndex(idx);
  }
  if (info.has_state) m_state->showState(qs(info.id_hex), QString());
  statusBar()->showMessage(tr("%1: %2").arg(qs(info.name.empty() ? info.id_hex : info.name), qs(info.id_hex)), 5000);
}

void MainWindow::loadSummary() {
  const uint64_t generation = m_generation;
  ++m_running;
  whenReady(this, summarize(m_snapshot, m_stats), [this, generation](const Loaded<ops::SummaryReport>& r) {
    --m_running;
    if (generation != m_generation) return;
    if (r.ok()) {
      m_summaryReport = r.value;
    } else {
      statusBar()->showMessage(tr("summary: %1").arg(r.error));
    }
    updateSummary();
  });
}

void MainWindow::loadStats() {
  const uint64_t generation = m_generation;
  ++m_running;
  std::shared_ptr<TaskState> task = m_progress->running() ? std::make_shared<TaskState>() : m_progress->start(tr("Statistics"));
  whenReady(this, computeStats(m_snapshot, task), [this, generation, task](const Loaded<ops::StatsReport>& r) {
    --m_running;
    if (m_progress->running() && !m_validated) m_progress->finish();
    if (generation != m_generation) return;
    if (r.ok()) {
      m_stats = r.value;
      m_keyGroups->setStats(m_stats, -1);
      m_treeModel->setStats(m_stats);
      loadSummary();  // again, now with the stats findings
    } else {
      statusBar()->showMessage(tr("statistics: %1").arg(r.error));
    }
    updateSummary();
    Q_EMIT statsLoaded();
  });
}

void MainWindow::loadHistoryFor(const std::string& job_id_hex) {
  m_historyJob = job_id_hex;
  ++m_running;
  whenReady(this, loadHistory(m_root, job_id_hex), [this](const Loaded<std::vector<HistoryPoint>>& r) {
    --m_running;
    if (r.ok()) m_history->setHistory(r.value);
    Q_EMIT historyLoaded();
  });
}

bool MainWindow::busy() const { return m_running > 0; }

QString MainWindow::summaryText() const { return m_summary->toPlainText(); }

}  // namespace ckpt::inspector
