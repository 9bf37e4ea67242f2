// MainWindow: the layout (pages, Snapshots dock, status bar) and the wiring between the
// controllers; every page's state and behaviour lives in its controller.
#include "app/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QKeyEvent>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>

#include "app/cannot_open_controller.h"
#include "app/charts.h"
#include "app/details_controller.h"
#include "app/diff_page.h"
#include "app/files_controller.h"
#include "app/history_controller.h"
#include "app/history_page.h"
#include "app/live_view.h"
#include "app/menu_controller.h"
#include "app/open_session.h"
#include "app/operator_views_controller.h"
#include "app/pending_files_controller.h"
#include "app/summary_controller.h"
#include "app/status_line.h"
#include "app/task_progress.h"
#include "app/treemap_view.h"
#include "app/validate_controller.h"
#include "app/write_actions.h"
#include "models/display.h"

namespace ckpt::inspector {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("ckpt-inspector"));
  setAcceptDrops(true);
  buildPages();
  m_menus = new MenuController(m_shell, this);
  wire();
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  if (!settings.contains(QStringLiteral("window/geometry"))) resize(1280, 800);
  setTheme(themeFromName(settings.value(QStringLiteral("view/theme")).toString()));
  m_shell.status(tr("Open a savepoint, a checkpoint or a checkpoint root (Ctrl+O), or drop one here."));
  showStartPage();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildPages() {
  m_pages = new QTabWidget(this);
  m_pages->setDocumentMode(true);
  m_shell.window = this;
  m_shell.pages = m_pages;
  m_shell.progress = new TaskProgress(this);
  m_shell.statusLine = new StatusLine(this);  // before the controllers: they copy the shell
  statusBar()->addWidget(m_shell.statusLine, 1);

  m_session = new OpenSession(m_shell, this);
  m_validate = new ValidateController(*m_session, m_shell, this);
  m_summary = new SummaryController(*m_session, *m_validate, m_shell, this);
  m_details = new DetailsController(*m_session, m_shell, this);
  m_files = new FilesController(*m_session, m_shell, this);
  m_operatorViews = new OperatorViewsController(*m_session, m_shell, this);
  m_history = new HistoryController(*m_session, this, this);
  m_pending = new PendingFilesController(*m_session, m_shell, this);
  m_cannotOpen = new CannotOpenController(*m_session, *m_summary, *m_validate, *m_files, m_shell, this);
  m_writes = new WriteActions(*m_session, m_shell, this);
  m_diff = new DiffPage(this);

  m_pages->addTab(m_summary->page(), tr("Summary"));
  m_pages->addTab(m_details->page(), tr("Details"));
  m_pages->addTab(m_files->view(), tr("Files"));
  m_pages->addTab(m_operatorViews->stateBrowser(), tr("State"));
  m_pages->addTab(m_operatorViews->treemap(), tr("Treemap"));
  m_pages->addTab(m_operatorViews->keyGroups(), tr("Key groups"));
  m_pages->addTab(m_history->page(), tr("History"));
  m_pages->addTab(m_operatorViews->subtasks(), tr("Subtasks"));
  m_pages->addTab(m_validate->page(), tr("Findings"));
  m_pages->addTab(m_diff, tr("Diff"));
  m_pages->addTab(m_operatorViews->jobGraphPage(), tr("Job graph"));
  m_pages->addTab(m_pending->page(), tr("Pending files"));
  m_pages->setTabToolTip(kJobGraphPage, tr("Operators and edges of the snapshot's job graph; chained operators share a box. Click an operator to select it everywhere."));
  m_pages->setTabToolTip(kPendingFilesPage, tr("Files of two-phase-commit sinks pending commit in this snapshot, and whether they exist now"));
  m_pages->setTabToolTip(kTreemapPage, tr("File sizes, operator -> state -> file. Arrows move, Enter zooms in, Backspace zooms out."));
  setCentralWidget(m_pages);
  addDockWidget(Qt::LeftDockWidgetArea, m_session->listDock());
  statusBar()->addPermanentWidget(m_shell.progress);
}

void MainWindow::wire() {
  // What is open: every page empties, fills, or shows why it cannot open.
  connect(m_session, &OpenSession::cleared, this, [this] {
    m_summary->clear();
    m_validate->clear();
    m_details->clear();
    m_files->clear();
    m_operatorViews->clear();
    m_pending->clear();
    m_menus->updateActions(false);
  });
  connect(m_session, &OpenSession::snapshotShown, this, [this] {
    m_menus->updateActions(m_session->snapshotOpen());
    m_details->show();
    m_operatorViews->show();
    m_summary->update();
    showPage(kSummaryPage);
    m_files->load();
    m_summary->loadSummary();
    m_summary->loadStats();
    m_summary->loadPositions();
    m_pending->load();
  });
  connect(m_session, &OpenSession::cannotOpenShown, m_cannotOpen, &CannotOpenController::show);
  connect(m_session, &OpenSession::cannotOpenShown, this,
          [this](const QString& path, const QString& error, const std::optional<ops::SnapshotEntry>&, base::Fs* fs) {
            if (fs != nullptr) m_details->showUnreadableMetadata(*fs, path, error);
          });
  connect(m_session, &OpenSession::emptyRootShown, m_summary, &SummaryController::showEmptyRoot);
  connect(m_session, &OpenSession::historyJobChosen, m_history, &HistoryController::showJob);
  connect(m_session, &OpenSession::historyCleared, m_history, &HistoryController::clear);
  connect(m_session, &OpenSession::openedForRecent, m_menus, &MenuController::addRecent);
  connect(m_session, &OpenSession::snapshotLoaded, this, &MainWindow::snapshotLoaded);
  connect(m_session, &OpenSession::rootLoaded, this, &MainWindow::rootLoaded);
  connect(m_session, &OpenSession::openFailed, this, &MainWindow::openFailed);

  connect(m_summary, &SummaryController::openDialogRequested, m_menus, &MenuController::openDialog);
  connect(m_summary, &SummaryController::recentRequested, this, [this](int index) {
    const QString path = recentFiles().value(index);
    if (!path.isEmpty()) openPath(path);
  });
  connect(m_summary, &SummaryController::statsArrived, this, [this](std::shared_ptr<const ops::StatsReport> stats) {
    m_operatorViews->setStats(stats);
    m_details->setStats(stats);
  });
  connect(m_summary, &SummaryController::statsLoaded, this, &MainWindow::statsLoaded);

  connect(m_validate, &ValidateController::changed, m_summary, &SummaryController::update);
  connect(m_validate, &ValidateController::validationFinished, this, &MainWindow::validationFinished);
  connect(m_validate, &ValidateController::findingActivated, this, &MainWindow::showFinding);

  connect(m_details, &DetailsController::hexRangeShown, this, &MainWindow::hexRangeShown);
  connect(m_details, &DetailsController::operatorSelected, m_operatorViews, &OperatorViewsController::followTreeOperator);

  connect(m_files, &FilesController::filesLoaded, m_summary, &SummaryController::update);
  connect(m_files, &FilesController::fileSelected, m_details, &DetailsController::selectFile);
  connect(m_files, &FilesController::fileActivated, this, &MainWindow::openFileInDetails);

  connect(m_pending, &PendingFilesController::pendingFilesLoaded, this, &MainWindow::pendingFilesLoaded);
  connect(m_pending, &PendingFilesController::operatorChosen, this, &MainWindow::operatorChosen);
  connect(m_history, &HistoryController::historyLoaded, this, &MainWindow::historyLoaded);
  connect(m_cannotOpen, &CannotOpenController::cannotOpenShown, this, &MainWindow::cannotOpenShown);

  connect(m_operatorViews, &OperatorViewsController::operatorChosen, this, &MainWindow::operatorChosen);
  connect(m_operatorViews, &OperatorViewsController::fileSelected, m_details, &DetailsController::selectFile);
  connect(m_operatorViews, &OperatorViewsController::fileActivated, m_details, &DetailsController::selectFileAndShowPage);
  connect(m_operatorViews, &OperatorViewsController::stateRecordSelected, m_details, &DetailsController::showStateRecord);
  connect(m_operatorViews, &OperatorViewsController::stateEntryDescribed, m_details, &DetailsController::showValue);

  connect(m_menus, &MenuController::openRequested, this, &MainWindow::openPath);
  connect(m_menus, &MenuController::reloadRequested, m_session, &OpenSession::reload);
  connect(m_menus, &MenuController::compareRequested, this, [this](const QString& other) { compareWith(other); });
  connect(m_menus, &MenuController::remapRequested, m_writes, &WriteActions::remapDialog);
  connect(m_menus, &MenuController::pruneRequested, m_writes, &WriteActions::pruneDialog);
  connect(m_menus, &MenuController::findInStateRequested, this, [this] {
    showPage(kStatePage);
    m_operatorViews->stateBrowser()->focusFilter();
  });
  connect(m_menus, &MenuController::validateRequested, this, &MainWindow::validateSnapshot);
  connect(m_menus, &MenuController::liveViewRequested, this, [this](const QString& address) { openLiveView(*this, address); });
}

void MainWindow::operatorChosen(int op, std::optional<uint32_t> subtask) {
  if (!m_operatorViews->selectOperator(op)) return;
  m_details->selectOperator(op, subtask);
  m_operatorViews->showOperatorState(op);
}

void MainWindow::showStartPage() { m_summary->showStartPage(recentFiles()); }

void MainWindow::showPage(Page page) { m_shell.showPage(page); }

void MainWindow::openPath(const QString& path) { m_session->openPath(path); }

void MainWindow::openListedSnapshot(const QModelIndex& index) { m_session->openListedSnapshot(index); }

void MainWindow::validateSnapshot(bool deep) { m_validate->validate(deep); }

void MainWindow::showFinding(int row) {
  const ops::Finding* f = m_validate->finding(row);
  if (f == nullptr || !m_session->snapshot()) return;
  const ops::Finding finding = *f;
  m_details->showFinding(finding);
}

void MainWindow::compareWith(const QString& other, bool withKeys) {
  const std::shared_ptr<const ops::Snapshot> s = m_session->snapshot();
  if (!s) return;
  m_diff->setPaths(qs(s->dir), other, /*olderFirst=*/true);
  showPage(kDiffPage);
  m_diff->compare(withKeys);
}

void MainWindow::setTheme(Theme theme) { m_menus->setTheme(theme); }

void MainWindow::openFileInDetails(int file) { m_details->openFileInDetails(file); }

std::shared_ptr<const ops::Snapshot> MainWindow::snapshot() const { return m_session->snapshot(); }
QString MainWindow::currentPath() const { return m_session->currentPath(); }
QString MainWindow::rootPath() const { return m_session->rootPath(); }
QStringList MainWindow::recentFiles() const { return m_menus->recentFiles(); }
bool MainWindow::busy() const { return m_session->busy(); }
QString MainWindow::statusMessage() const { return m_shell.statusLine->fullText(); }
QString MainWindow::shownPath() const { return m_session->shownPath(); }
bool MainWindow::showingCannotOpen() const { return m_session->showingCannotOpen(); }

QTreeView* MainWindow::detailTree() const { return m_details->tree(); }
DetailTreeModel* MainWindow::detailModel() const { return m_details->model(); }
QTreeView* MainWindow::snapshotList() const { return m_session->listView(); }
SnapshotListModel* MainWindow::snapshotListModel() const { return m_session->listModel(); }
HexView* MainWindow::hexView() const { return m_details->hexView(); }
QPlainTextEdit* MainWindow::decodedPane() const { return m_details->decodedPane(); }
FindingsModel* MainWindow::findingsModel() const { return m_validate->model(); }
QTableView* MainWindow::findingsView() const { return m_validate->view(); }
StateBrowser* MainWindow::stateBrowser() const { return m_operatorViews->stateBrowser(); }
TreemapView* MainWindow::treemap() const { return m_operatorViews->treemap(); }
HistoryPage* MainWindow::historyPage() const { return m_history->page(); }
QMenu* MainWindow::viewMenu() const { return m_menus->viewMenu(); }
JobGraphView* MainWindow::jobGraph() const { return m_operatorViews->jobGraph(); }
SubtaskBarsChart* MainWindow::subtaskChart() const { return m_operatorViews->subtasks(); }
PendingFilesModel* MainWindow::pendingFilesModel() const { return m_pending->model(); }
QTableView* MainWindow::pendingFilesView() const { return m_pending->view(); }
QString MainWindow::pendingFilesText() const { return m_pending->text(); }
QString MainWindow::summaryText() const { return m_summary->text(); }
QTableView* MainWindow::filesView() const { return m_files->view(); }
QComboBox* MainWindow::blockPicker() const { return m_details->blockPicker(); }
QCheckBox* MainWindow::decompressedBox() const { return m_details->decompressedBox(); }
QString MainWindow::verdictText() const { return m_validate->verdictText(); }
QString MainWindow::hexRangeText() const { return m_details->hexRangeText(); }

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() && event->mimeData()->urls().front().isLocalFile()) event->acceptProposedAction();
}

// Escape cancels the background task (views that use Escape themselves, e.g. the treemap's
// zoom-out, accept it first).
void MainWindow::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape && m_shell.progress->running()) {
    m_shell.progress->cancel();
    event->accept();
    return;
  }
  QMainWindow::keyPressEvent(event);
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  event->acceptProposedAction();
  openPath(urls.front().toLocalFile());
}

QStringList MainWindow::saveScreenshots(const QString& dir, const QString& suffix, QList<QSize>* sizes) {
  QDir().mkpath(dir);
  QStringList written;
  const int current = m_pages->currentIndex();
  static const char* kNames[] = {"summary", "details", "files", "state", "treemap", "keygroups",
                                 "history", "subtasks", "findings", "diff", "jobgraph", "pending"};
  static_assert(std::size(kNames) == kPageCount);
  for (int i = 0; i < kPageCount; ++i) {
    m_pages->setCurrentIndex(i);
    QApplication::processEvents();
    const QString page = dir + QStringLiteral("/view-%1%2.png").arg(QLatin1String(kNames[i]), suffix);
    auto save = [&](const QPixmap& image, const QString& file) {
      if (!image.save(file)) return;
      written << file;
      if (sizes != nullptr) sizes->append(image.size());
    };
    save(m_pages->widget(i)->grab(), page);
    if (i == kDetailsPage || i == kSummaryPage) {
      save(grab(), dir + QStringLiteral("/window-%1%2.png").arg(QLatin1String(kNames[i]), suffix));
    }
  }
  m_pages->setCurrentIndex(current);
  return written;
}

}  // namespace ckpt::inspector
