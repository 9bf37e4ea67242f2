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
#include "app/diff_page.h"
#include "app/hex_view.h"
#include "app/history_page.h"
#include "app/state_browser.h"
#include "app/task_progress.h"
#include "app/treemap_view.h"
#include "app/write_dialogs.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#include "models/snapshot_list_model.h"
#include "models/sort_proxy.h"
#include "models/table_models.h"

namespace ckpt::inspector {
namespace {

constexpr int kMaxRecent = 8;

// Columns sized to their contents; the text column `stretch` takes the remaining room (long
// text is elided in the middle, with the whole as tooltip).
void fitColumns(QTableView* view, int stretch) {
  QHeaderView* h = view->horizontalHeader();
  h->setSectionResizeMode(QHeaderView::Interactive);
  view->resizeColumnsToContents();
  for (int c = 0; c < h->count(); ++c) h->resizeSection(c, std::min(h->sectionSize(c), 360));
  h->setSectionResizeMode(stretch, QHeaderView::Stretch);
}

std::string base_join(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

// Watches `future` and calls `done(result)` on the GUI thread when it finishes.
template <class T, class Fn>
void whenReady(QObject* owner, QFuture<T> future, Fn done) {
  auto* watcher = new QFutureWatcher<T>(owner);
  QObject::connect(watcher, &QFutureWatcherBase::finished, owner, [watcher, done = std::move(done)]() mutable {
    watcher->deleteLater();
    done(watcher->result());
  });
  watcher->setFuture(future);
}

}  // namespace

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

void MainWindow::buildPages() {
  m_pages = new QTabWidget(this);
  m_pages->setDocumentMode(true);
  m_summary = new QTextBrowser(this);
  m_summary->setOpenLinks(false);
  connect(m_summary, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == QLatin1String("action") && url.path() == QLatin1String("open")) openDialog();
    if (url.scheme() == QLatin1String("recent")) {
      const QString path = recentFiles().value(url.path().toInt());
      if (!path.isEmpty()) openPath(path);
    }
  });

  m_treeModel = new DetailTreeModel(this);
  m_tree = new QTreeView(this);
  m_tree->setModel(m_treeModel);
  m_tree->setUniformRowHeights(true);
  m_tree->setAlternatingRowColors(true);
  m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
  m_tree->header()->resizeSection(0, 280);
  m_hex = new HexView(this);
  m_blockPicker = new QComboBox(this);
  m_blockPicker->setToolTip(tr("Show the whole file, or one block of a state-file container"));
  m_blockPicker->setEnabled(false);
  m_decompressed = new QCheckBox(tr("Decompressed"), this);
  m_decompressed->setToolTip(tr("Show the block's decompressed records (each with its varint length prefix) instead of its stored bytes"));
  m_decompressed->setEnabled(false);
  m_hexInfo = new QLabel(this);
  m_hexInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* hexPane = new QWidget(this);
  auto* hexBar = new QHBoxLayout;
  hexBar->setContentsMargins(0, 0, 0, 0);
  hexBar->addWidget(m_blockPicker, 1);
  hexBar->addWidget(m_decompressed);
  auto* hexLayout = new QVBoxLayout(hexPane);
  hexLayout->setContentsMargins(0, 0, 0, 0);
  hexLayout->addLayout(hexBar);
  hexLayout->addWidget(m_hexInfo);
  hexLayout->addWidget(m_hex, 1);
  m_decoded = new QPlainTextEdit(this);
  m_decoded->setReadOnly(true);
  m_decoded->setPlaceholderText(tr("Decoded value of the selected node or entry"));
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(hexPane);
  right->addWidget(m_decoded);
  auto* details = new QSplitter(Qt::Horizontal, this);
  details->setObjectName(QStringLiteral("detailsSplitter"));
  details->addWidget(m_tree);
  details->addWidget(right);
  details->setStretchFactor(0, 1);
  details->setStretchFactor(1, 1);

  m_filesModel = new FilesModel(this);
  m_filesView = new QTableView(this);
  m_filesProxy = new SortProxy(this);
  m_filesProxy->setSourceModel(m_filesModel);
  m_filesView->setModel(m_filesProxy);
  m_filesView->setSortingEnabled(true);
  m_filesView->sortByColumn(FilesModel::kIndex, Qt::AscendingOrder);
  m_filesView->setTextElideMode(Qt::ElideMiddle);
  m_filesView->setWordWrap(false);
  m_filesView->horizontalHeader()->setStretchLastSection(false);
  m_filesView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_filesView->setToolTip(tr("Double-click a file to see it in Details"));
  connect(m_filesModel, &QAbstractItemModel::modelReset, this, [this] { fitColumns(m_filesView, FilesModel::kPath); });

  m_state = new StateBrowser(this);
  m_treemap = new TreemapView(this);
  m_keyGroups = new KeyGroupChart(this);
  m_history = new HistoryPage(this);
  connect(m_history, &HistoryPage::snapshotActivated, this, [this](const QString& rel) {
    const QModelIndex i = m_listModel->indexForPath(rel);
    if (i.isValid()) m_list->setCurrentIndex(i);
  });
  m_subtasks = new SubtaskBarsChart(this);

  m_findingsModel = new FindingsModel(this);
  m_findingsView = new QTableView(this);
  m_findingsProxy = new SortProxy(this);
  m_findingsProxy->setSourceModel(m_findingsModel);
  m_findingsView->setModel(m_findingsProxy);
  m_findingsView->setSortingEnabled(true);
  m_findingsView->setTextElideMode(Qt::ElideMiddle);
  m_findingsView->setWordWrap(false);
  m_findingsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(m_findingsModel, &QAbstractItemModel::modelReset, this, [this] { fitColumns(m_findingsView, FindingsModel::kMessage); });
  m_findingsSummary = new QLabel(tr("Tools > Validate (Ctrl+R) checks the metadata, every file's size and checksum, and key-group coverage."), this);
  m_findingsSummary->setWordWrap(true);
  auto* findingsPage = new QWidget(this);
  auto* findingsLayout = new QVBoxLayout(findingsPage);
  findingsLayout->setContentsMargins(0, 0, 0, 0);
  findingsLayout->addWidget(m_findingsSummary);
  findingsLayout->addWidget(m_findingsView, 1);
  m_diff = new DiffPage(this);

  m_pages->addTab(m_summary, tr("Summary"));
  m_pages->addTab(details, tr("Details"));
  m_pages->addTab(m_filesView, tr("Files"));
  m_pages->addTab(m_state, tr("State"));
  m_pages->addTab(m_treemap, tr("Treemap"));
  m_pages->addTab(m_keyGroups, tr("Key groups"));
  m_pages->addTab(m_history, tr("History"));
  m_pages->addTab(m_subtasks, tr("Subtasks"));
  m_pages->addTab(findingsPage, tr("Findings"));
  m_pages->addTab(m_diff, tr("Diff"));
  m_pages->setTabToolTip(kTreemapPage, tr("File sizes, operator -> state -> file. Arrows move, Enter zooms in, Backspace zooms out."));
  setCentralWidget(m_pages);

  m_listModel = new SnapshotListModel(this);
  m_list = new QTreeView(this);
  m_list->setModel(m_listModel);
  m_list->setUniformRowHeights(true);
  m_list->setTextElideMode(Qt::ElideMiddle);
  m_list->header()->setSectionResizeMode(QHeaderView::Interactive);
  m_list->header()->setStretchLastSection(false);
  auto* dock = new QDockWidget(tr("Snapshots"), this);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
  dock->setMinimumWidth(160);
  dock->setObjectName(QStringLiteral("snapshotsDock"));
  dock->setWidget(m_list);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  m_listDock = dock;

  m_progress = new TaskProgress(this);
  statusBar()->addPermanentWidget(m_progress);

  connect(m_list, &QTreeView::activated, this, &MainWindow::openListedSnapshot);
  connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { openListedSnapshot(current); });
  connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::treeSelectionChanged);
  connect(m_findingsView, &QTableView::activated, this, [this](const QModelIndex& i) { showFinding(m_findingsProxy->mapToSource(i).row()); });
  connect(m_state, &StateBrowser::recordSelected, this, &MainWindow::stateRecordSelected);
  connect(m_state, &StateBrowser::entrySelected, m_decoded, &QPlainTextEdit::setPlainText);
  connect(m_filesView, &QTableView::activated, this, [this](const QModelIndex& i) {
    if (!m_cannotOpen && i.isValid()) openFileInDetails(i.data(kFileIndexRole).toInt());
  });
  connect(m_filesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (m_cannotOpen || !m_snapshot || !i.isValid()) return;
    const auto file = static_cast<size_t>(i.data(kFileIndexRole).toInt());
    if (file >= m_snapshot->files.size()) return;
    ops::Location loc;
    loc.file = m_snapshot->files[file].path;
    const QModelIndex idx = m_treeModel->indexForLocation(loc);
    if (idx.isValid()) m_tree->setCurrentIndex(idx);
  });
  connect(m_blockPicker, &QComboBox::currentIndexChanged, this, [this] { blockChosen(); });
  connect(m_decompressed, &QCheckBox::toggled, this, [this] { blockChosen(); });
  connect(m_treemap, &TreemapView::fileActivated, this, [this](int file) {
    ops::Location loc;
    if (m_snapshot && file >= 0) loc.file = m_snapshot->files[static_cast<size_t>(file)].path;
    const QModelIndex idx = m_treeModel->indexForLocation(loc);
    if (idx.isValid()) {
      m_tree->setCurrentIndex(idx);
      showPage(kDetailsPage);
    }
  });
  connect(m_treemap, &TreemapView::nodeSelected, this, [this](int node) {
    const auto& n = m_treemap->nodes()[static_cast<size_t>(node)];
    if (n.op >= 0) m_subtasks->setOperator(m_snapshot, n.op);
    if (n.file >= 0 && m_snapshot) {
      ops::Location loc;
      loc.file = m_snapshot->files[static_cast<size_t>(n.file)].path;
      const QModelIndex idx = m_treeModel->indexForLocation(loc);
      if (idx.isValid()) m_tree->setCurrentIndex(idx);
    }
    statusBar()->showMessage(n.label + QStringLiteral(" — ") + humanBytes(n.bytes));
  });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  open->setToolTip(tr("Open a snapshot directory, its _metadata, or a checkpoint root"));
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  m_compareAction = file->addAction(tr("&Compare with…"), this, [this] {
    const QString other = QFileDialog::getExistingDirectory(this, tr("Compare with snapshot"));
    if (!other.isEmpty()) compareWith(other);
  });
  m_remapAction = file->addAction(tr("&Remap operator IDs…"), this, &MainWindow::remapDialog);
  file->addAction(tr("&Prune checkpoints…"), this, &MainWindow::pruneDialog);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  QAction* refresh = view->addAction(tr("&Reload"), this, [this] {
    if (!m_path.isEmpty()) openPath(m_path);
  });
  refresh->setShortcut(QKeySequence(Qt::Key_F5));
  QAction* find = view->addAction(tr("&Find in state…"), this, [this] {
    showPage(kStatePage);
    m_state->focusFilter();
  });
  find->setShortcut(QKeySequence::Find);
  QMenu* theme = view->addMenu(tr("&Theme"));
  auto* group = new QActionGroup(this);
  const Theme themes[] = {Theme::kSystem, Theme::kLight, Theme::kDark};
  const QString names[] = {tr("&System"), tr("&Light"), tr("&Dark")};
  for (int i = 0; i < 3; ++i) {
    m_themeActions[i] = theme->addAction(names[i], this, [this, t = themes[i]] { setTheme(t); });
    m_themeActions[i]->setCheckable(true);
    group->addAction(m_themeActions[i]);
  }

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  m_validateAction = tools->addAction(tr("&Validate"), this, [this] { validateSnapshot(false); });
  m_validateAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_deepValidateAction = tools->addAction(tr("Validate (&deep: decode every record)"), this, [this] { validateSnapshot(true); });
  tools->addAction(tr("&Cancel background task (Esc)"), m_progress, &TaskProgress::cancel)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  updateActions();
}

// Validate, Remap and Compare need an open snapshot.
void MainWindow::updateActions() {
  const bool open = m_snapshot != nullptr && !m_cannotOpen;
  for (QAction* a : {m_validateAction, m_deepValidateAction, m_remapAction, m_compareAction}) {
    if (a) a->setEnabled(open);
  }
}

void MainWindow::setTheme(Theme theme) {
  applyTheme(theme);
  m_themeActions[static_cast<int>(theme)] ? m_themeActions[static_cast<int>(theme)]->setChecked(true) : void();
  QSettings().setValue(QStringLiteral("view/theme"), themeName(theme));
}

void MainWindow::showPage(Page page) { m_pages->setCurrentIndex(page); }

void MainWindow::openDialog() {
  QFileDialog dialog(this, tr("Open snapshot or checkpoint root"));
  dialog.setFileMode(QFileDialog::Directory);
  dialog.setOption(QFileDialog::ShowDirsOnly, false);
  dialog.setNameFilter(tr("Checkpoint metadata (_metadata);;All files (*)"));
  if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty()) openPath(dialog.selectedFiles().front());
}

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
  updateActions();
}

// The page of a snapshot that does not open: the error, validate's rule and hint for it, what
// the root listing knows, and the files on disk (Files tab). Nothing of another snapshot stays.
void MainWindow::showCannotOpen(const QString& path, const QString& error, const ops::SnapshotEntry* entry) {
  clearSnapshotViews();
  m_cannotOpen = true;
  m_shownPath = path;
  setWindowTitle(tr("Cannot open %1 — ckpt-inspector").arg(path));
  statusBar()->showMessage(tr("Cannot open %1").arg(path));
  auto page = [this, path, error](const std::optional<ops::SnapshotEntry>& e, const Unopenable* diag) {
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p>").arg(tr("Cannot open %1").arg(path).toHtmlEscaped(), error.toHtmlEscaped());
    if (diag != nullptr) {
      for (const ops::Finding& f : diag->findings) {
        html += QStringLiteral("<p><b>%1 %2</b>: %3<br><i>%4</i> %5</p>")
                    .arg(qs(ops::SeverityName(f.severity)).toHtmlEscaped(), qs(f.rule_id).toHtmlEscaped(),
                         qs(f.message).toHtmlEscaped(), tr("What to do:").toHtmlEscaped(), qs(f.hint).toHtmlEscaped());
      }
    }
    html += QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(tr("What can be shown"));
    auto row = [](const QString& k, const QString& v) {
      return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
    };
    if (e) {
      html += row(tr("Listed as"), tr("%1 %2 (%3)").arg(qs(ops::SnapshotKindName(e->kind))).arg(e->checkpoint_id).arg(qs(ops::SnapshotHealthName(e->health))));
      if (!e->problem.empty()) html += row(tr("Why"), qs(e->problem));
      if (!e->job_id_hex.empty()) html += row(tr("Job"), qs(e->job_id_hex));
      if (e->trigger_timestamp_ms > 0) html += row(tr("Triggered"), formatTimestamp(e->trigger_timestamp_ms));
    }
    if (diag != nullptr) {
      uint64_t bytes = 0;
      for (const ops::FileRow& f : diag->files) bytes += f.size_bytes;
      html += row(tr("Files on disk"), tr("%1 (%2) — see the Files tab").arg(diag->files.size()).arg(humanBytes(bytes)));
    } else {
      html += row(tr("Files on disk"), tr("listing…"));
    }
    html += QStringLiteral("</table>");
    m_summary->setHtml(html);
  };
  std::optional<ops::SnapshotEntry> e;
  if (entry != nullptr) e = *entry;
  page(e, nullptr);
  m_findingsSummary->setText(tr("%1 could not be opened; nothing was validated.").arg(path));
  showPage(kSummaryPage);
  const uint64_t generation = m_generation;
  whenReady(this, diagnoseUnopenable(path), [this, generation, page, e, path](const Loaded<Unopenable>& r) {
    if (generation != m_generation || !m_cannotOpen) return;
    if (r.ok()) {
      page(e, r.value.get());
      m_filesModel->setRows(r.value->files);
      m_findingsModel->setFindings(r.value->findings);
    }
    Q_EMIT cannotOpenShown(path);
  });
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

void MainWindow::updateSummary() {
  if (!m_snapshot) return;
  const ops::Snapshot& s = *m_snapshot;
  auto row = [](const QString& k, const QString& v) {
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
  };
  QString kind = qs(ops::SnapshotKindName(s.kind));
  if (s.kind == ops::SnapshotKind::kSavepoint) kind += QStringLiteral(" (%1)").arg(qs(ops::SavepointFormatName(s.savepoint_format)));
  else kind += QStringLiteral(" (%1)").arg(qs(ops::CheckpointTypeName(s.checkpoint_type)));
  QString html = QStringLiteral("<h2>%1 %2</h2><table cellspacing=4>").arg(kind.toHtmlEscaped()).arg(s.checkpoint_id);
  html += row(tr("Directory"), qs(s.dir));
  html += row(tr("Job"), tr("%1 (%2)").arg(qs(s.job_name), qs(s.job_id_hex)));
  html += row(tr("Format"), tr("version %1, written by %2 %3").arg(s.format_version).arg(qs(s.engine_name), qs(s.engine_version)));
  html += row(tr("Mode"), qs(ops::CheckpointingModeName(s.mode)) + (s.post_action != ops::PostAction::kUnspecified ? tr(", post action %1").arg(qs(ops::PostActionName(s.post_action))) : QString()));
  html += row(tr("Triggered"), formatTimestamp(s.trigger_timestamp_ms));
  html += row(tr("Completed"), tr("%1 (end-to-end %2 ms)").arg(formatTimestamp(s.completion_timestamp_ms)).arg(s.metrics.end_to_end_duration));
  html += row(tr("Full size"), humanBytes(s.full_size_bytes));
  html += row(tr("Checkpointed size"), humanBytes(s.checkpointed_size_bytes));
  html += row(tr("Files"), tr("%1 files, %2 (metadata %3)").arg(s.files.size()).arg(humanBytes(s.total_file_bytes), humanBytes(s.metadata_size_bytes)));
  size_t subtasks = 0;
  for (const auto& op : s.operators) subtasks += op.subtasks.size();
  html += row(tr("Operators"), tr("%1 operators, %2 subtask states").arg(s.operators.size()).arg(subtasks));
  if (s.restored_from) html += row(tr("Restored from"), tr("%1 (checkpoint %2)").arg(qs(s.restored_from->path)).arg(s.restored_from->checkpoint_id));
  html += QStringLiteral("</table><p><small>%1</small></p>").arg(sizeExplanation().toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));

  // Every warning is computed by ops (validate's rules, stats findings); the page only shows it.
  QStringList warnings;
  std::vector<ops::Finding> shown;
  auto add = [&](const ops::Finding& f) {
    if (f.severity == ops::Severity::kInfo) return;
    if (std::find(shown.begin(), shown.end(), f) != shown.end()) return;
    shown.push_back(f);
    warnings << QStringLiteral("%1 %2: %3").arg(qs(ops::SeverityName(f.severity)), qs(f.rule_id), qs(f.message));
  };
  if (m_summaryReport) {
    for (const auto& f : m_summaryReport->warnings) add(f);
    for (const auto& n : m_summaryReport->notes) warnings << qs(n);
  }
  for (const auto& f : m_validateFindings) add(f);
  html += verdictHtml();
  html += QStringLiteral("<h3>%1</h3>").arg(tr("Warnings"));
  if (warnings.isEmpty()) {
    QString none;
    if (m_checked == Checked::kDeep) none = tr("None: the deep validate (every record decoded) found no problems.");
    else if (m_checked == Checked::kChecksums) none = tr("None: validate (sizes and checksums) found no problems.");
    else none = tr("None in the metadata. Files were not read: Tools > Validate checks sizes and checksums.");
    html += QStringLiteral("<p>%1</p>").arg(none);
  } else {
    html += QStringLiteral("<ul>");
    for (const QString& w : warnings) html += QStringLiteral("<li>%1</li>").arg(w.toHtmlEscaped());
    html += QStringLiteral("</ul>");
  }
  std::vector<const ops::OperatorInfo*> ops_by_size;
  for (const auto& op : s.operators) ops_by_size.push_back(&op);
  std::sort(ops_by_size.begin(), ops_by_size.end(), [](auto* a, auto* b) { return a->total_bytes > b->total_bytes; });
  html += QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(tr("Largest operators"));
  const uint64_t top = ops_by_size.empty() ? 1 : std::max<uint64_t>(1, ops_by_size.front()->total_bytes);
  const QString bar = palette().color(QPalette::Highlight).name();
  for (size_t i = 0; i < std::min<size_t>(5, ops_by_size.size()); ++i) {
    const auto* op = ops_by_size[i];
    const int w = static_cast<int>(200.0 * static_cast<double>(op->total_bytes) / static_cast<double>(top));
    html += QStringLiteral("<tr><td>%1</td><td>%2</td><td><table cellspacing=0 cellpadding=0><tr><td width=%3 bgcolor=%4>&nbsp;</td></tr></table></td><td>p=%5</td></tr>")
                .arg(qs(op->name.empty() ? op->id_hex : op->name).toHtmlEscaped(), humanBytes(op->total_bytes))
                .arg(std::max(1, w)).arg(bar).arg(op->parallelism);
  }
  html += QStringLiteral("</table>");
  m_summary->setHtml(html);
}

void MainWindow::treeSelectionChanged() {
  const QModelIndex current = m_tree->currentIndex();
  if (!current.isValid()) return;
  m_decoded->setPlainText(m_treeModel->describe(current));
  if (current.data(kNodeKindRole).toInt() == DetailTreeModel::kFile) {
    showFileBytes(current.data(kFileIndexRole).toInt(), std::nullopt, std::nullopt);
  } else {
    // A node that is not a file has no bytes: never leave another node's bytes on screen.
    ++m_hexRequest;
    m_hexFile = -1;
    m_layout.reset();
    m_hexRange.clear();
    m_hex->clear();
    m_hexInfo->clear();
    QSignalBlocker block(m_blockPicker);
    m_blockPicker->clear();
    m_blockPicker->setEnabled(false);
    m_decompressed->setEnabled(false);
  }
  const QString op = current.data(kOperatorIdRole).toString();
  if (!op.isEmpty() && m_snapshot) {
    for (size_t i = 0; i < m_snapshot->operators.size(); ++i) {
      if (qs(m_snapshot->operators[i].id_hex) == op) m_subtasks->setOperator(m_snapshot, static_cast<int>(i));
    }
  }
}

void MainWindow::openFileInDetails(int file) {
  if (!m_snapshot || file < 0 || static_cast<size_t>(file) >= m_snapshot->files.size()) return;
  ops::Location loc;
  loc.file = m_snapshot->files[static_cast<size_t>(file)].path;
  const QModelIndex idx = m_treeModel->indexForLocation(loc);
  showPage(kDetailsPage);
  if (idx.isValid()) {
    m_tree->scrollTo(idx);
    m_tree->setCurrentIndex(idx);
  } else {
    showFileBytes(file, std::nullopt, std::nullopt);
  }
}

void MainWindow::showFileBytes(int file, std::optional<uint32_t> keyGroup, std::optional<ops::Finding> finding) {
  if (!m_snapshot || file < 0 || static_cast<size_t>(file) >= m_snapshot->files.size()) return;
  const ops::SnapshotFile& f = m_snapshot->files[static_cast<size_t>(file)];
  const QString path = qs(f.resolved_path);
  const uint64_t request = ++m_hexRequest;
  if (m_hexFile != file || m_hex->decoded() || m_hex->path() != path) {
    m_hexFile = file;
    m_layout.reset();
    QSignalBlocker block(m_blockPicker);
    m_blockPicker->clear();
    m_blockPicker->setEnabled(false);
    m_decompressed->setEnabled(false);
    {
      QSignalBlocker blockBox(m_decompressed);
      m_decompressed->setChecked(false);
    }
    if (path.isEmpty()) {
      m_hex->clear();
      m_hexInfo->setText(tr("%1 cannot be shown: %2").arg(qs(f.path), qs(f.resolve_error)));
      return;
    }
    m_hex->setRegion(path);
  }
  m_hex->clearHighlight();
  m_hexRange.clear();
  m_hexInfo->setText(qs(f.path));
  // Block checksums are computed only for a checksum finding (they read every stored byte).
  const bool verify = finding && (finding->rule_id == "CKPT-F003" || finding->rule_id == "CKPT-F006");
  whenReady(this, describeLayout(path, verify), [this, request, keyGroup, finding, file](const Loaded<ops::FileLayout>& r) {
    if (request != m_hexRequest || file != m_hexFile) return;
    if (!r.ok()) {
      m_hexInfo->setText(r.error);
      Q_EMIT hexRangeShown();
      return;
    }
    m_layout = r.value;
    const ops::FileLayout& l = *m_layout;
    {
      QSignalBlocker block(m_blockPicker);
      m_blockPicker->clear();
      const QString blocks = l.blocks.size() == 1 ? tr("1 block") : tr("%1 blocks").arg(l.blocks.size());
      m_blockPicker->addItem(l.container ? tr("Whole file (%1, %2)").arg(blocks, humanBytes(l.file_size))
                                         : tr("Whole file (%1, not a state-file container)").arg(humanBytes(l.file_size)));
      for (const ops::BlockLayout& b : l.blocks) {
        QString label = tr("Block %1 at %2: %3 stored, %4 raw, %5 records")
                            .arg(b.index).arg(b.header.offset).arg(humanBytes(b.stored.length))
                            .arg(humanBytes(b.raw_length)).arg(b.record_count);
        if (b.checksum_ok && !*b.checksum_ok) label += tr(" — checksum mismatch");
        m_blockPicker->addItem(label);
      }
      m_blockPicker->setEnabled(l.container && !l.blocks.empty());
    }
    std::optional<ops::FindingRange> range;
    if (finding) range = ops::RangeOfFinding(*m_snapshot, l, *finding);
    if (!range && keyGroup) {
      if (const ops::SectionLayout* sec = ops::KeyGroupSection(l, *keyGroup)) {
        range = ops::FindingRange{sec->stored, std::nullopt, sec->section_id,
                                  "key group " + std::to_string(sec->section_id)};
      }
    }
    if (range && range->range.length > 0 && !(range->range.offset == 0 && range->range.length == l.file_size)) {
      m_hex->setHighlight(range->range.offset, range->range.length);
      m_hexRange = qs(range->what);
      m_hexInfo->setText(tr("%1 — %2: bytes %3–%4 (%5)")
                             .arg(qs(m_snapshot->files[static_cast<size_t>(file)].path))
                             .arg(m_hexRange).arg(range->range.offset).arg(range->range.end() - 1)
                             .arg(humanBytes(range->range.length)));
    }
    m_decompressed->setEnabled(l.container && !l.blocks.empty());
    Q_EMIT hexRangeShown();
  });
}

// The block picker and the Decompressed box: a block's stored bytes (file offsets), or its
// decompressed records (record-stream offsets); "Whole file" returns to the file.
void MainWindow::blockChosen() {
  if (!m_layout || !m_snapshot || m_hexFile < 0) return;
  const ops::FileLayout& l = *m_layout;
  const int choice = m_blockPicker->currentIndex();
  const QString path = qs(l.path);
  const uint64_t hlStart = m_hex->highlightStart(), hlLength = m_hex->highlightLength();
  if (choice <= 0 || static_cast<size_t>(choice - 1) >= l.blocks.size()) {
    if (m_decompressed->isChecked() && !l.blocks.empty()) {
      QSignalBlocker block(m_blockPicker);
      m_blockPicker->setCurrentIndex(1);
      blockChosen();
      return;
    }
    m_hex->setRegion(path);
    m_hex->setHighlight(hlStart, hlLength);
    return;
  }
  const ops::BlockLayout& b = l.blocks[static_cast<size_t>(choice - 1)];
  if (m_decompressed->isChecked()) {
    auto raw = ops::ReadBlockRecords(base::Fs::Default(), l.path, b.index);
    if (!raw.ok()) {
      m_hex->clear();
      m_hexInfo->setText(qs(raw.status().ToString()));
      return;
    }
    m_hex->setDecoded(tr("%1 block %2 (decompressed)").arg(path).arg(b.index),
                      QByteArray(raw->data(), static_cast<qsizetype>(raw->size())), b.logical_offset);
    m_hexInfo->setText(tr("Block %1 decompressed: record-stream bytes %2–%3").arg(b.index).arg(b.logical_offset).arg(b.logical_offset + b.raw_length));
    return;
  }
  m_hex->setRegion(path, b.header.offset, b.whole().length);
  m_hex->setHighlight(hlStart, hlLength);
  m_hexInfo->setText(tr("Block %1 stored: file bytes %2–%3").arg(b.index).arg(b.header.offset).arg(b.whole().end()));
}

// A state row: select its subtask's file in the tree and highlight its key group's bytes.
void MainWindow::stateRecordSelected(const QString& opId, int subtask, int keyGroup) {
  if (!m_snapshot || subtask < 0) return;
  auto op = m_snapshot->FindOperator(opId.toStdString());
  if (!op.ok()) return;
  for (const ops::SubtaskInfo& st : (*op)->subtasks) {
    if (static_cast<int>(st.index) != subtask) continue;
    for (const ops::KeyedHandle& h : st.keyed) {
      if (keyGroup >= 0 && (static_cast<uint32_t>(keyGroup) < h.key_group_start || static_cast<uint32_t>(keyGroup) > h.key_group_end)) continue;
      if (h.file_indexes.empty()) continue;
      const uint32_t file = h.file_indexes.front();
      ops::Location loc;
      loc.file = m_snapshot->files[file].path;
      loc.operator_id = (*op)->id_hex;
      loc.subtask = st.index;
      const QModelIndex idx = m_treeModel->indexForLocation(loc);
      if (idx.isValid()) {
        m_tree->scrollTo(idx);
        m_tree->setCurrentIndex(idx);
      }
      showFileBytes(static_cast<int>(file), keyGroup >= 0 ? std::optional<uint32_t>(static_cast<uint32_t>(keyGroup)) : std::nullopt, std::nullopt);
      return;
    }
  }
}

QString MainWindow::hexRangeText() const { return m_hexRange; }

QString MainWindow::verdictText() const { return m_findingsSummary->text(); }

// What was checked and ops' verdict for this snapshot: the last complete validate's capability
// table, else ops::CapabilitiesVerdict over the metadata-only checks (ops::Summarize).
QString MainWindow::verdictHtml() const {
  if (!m_snapshot) return {};
  QString checked;
  switch (m_checked) {
    case Checked::kMetadata: checked = tr("metadata only (no file was read; Tools > Validate checks sizes and checksums)"); break;
    case Checked::kChecksums: checked = tr("checksums: %1 files, %2 read").arg(m_report->files_checked).arg(humanBytes(m_report->bytes_checked)); break;
    case Checked::kDeep: checked = tr("deep: %1 files, %2 read, %3 records decoded").arg(m_report->files_checked).arg(humanBytes(m_report->bytes_checked)).arg(m_report->records_checked); break;
  }
  std::vector<ops::Capability> caps;
  if (m_report) {
    caps = m_report->capabilities;
  } else {
    std::vector<ops::Finding> known;
    if (m_summaryReport) known = m_summaryReport->warnings;
    caps = ops::CapabilitiesVerdict(*m_snapshot, known, {});
  }
  QString html = QStringLiteral("<h3>%1</h3><p><b>%2</b> %3</p>").arg(tr("Verdict"), tr("Checked:"), checked.toHtmlEscaped());
  if (!m_cancelNote.isEmpty()) html += QStringLiteral("<p><b>%1</b></p>").arg(m_cancelNote.toHtmlEscaped());
  if (m_validated && !m_report && m_cancelNote.isEmpty()) html += QStringLiteral("<p>%1</p>").arg(tr("Validating… (results appear when it completes)").toHtmlEscaped());
  html += QStringLiteral("<ul>");
  for (const ops::Capability& c : caps) {
    QString line;
    if (c.supported) line = QStringLiteral("✔ ") + tr("%1: yes").arg(qs(c.operation));
    else if (c.undetermined) line = QStringLiteral("? ") + tr("%1: not determined (could not check %2)").arg(qs(c.operation), qs(base_join(c.unverified_by)));
    else if (!c.blocked_by.empty()) line = QStringLiteral("✘ ") + tr("%1: no, blocked by %2").arg(qs(c.operation), qs(base_join(c.blocked_by)));
    else line = QStringLiteral("✘ ") + tr("%1: no").arg(qs(c.operation));
    if (!c.note.empty()) line += QStringLiteral(" (%1)").arg(qs(c.note));
    if (!m_report && c.supported) line += tr(" — as far as the metadata shows");
    html += QStringLiteral("<li>%1</li>").arg(line.toHtmlEscaped());
  }
  html += QStringLiteral("</ul>");
  return html;
}

void MainWindow::validateSnapshot(bool deep) {
  if (!m_snapshot) return;
  ops::ValidateOptions options;
  options.deep = deep;
  const uint64_t generation = m_generation;
  ++m_running;
  const QString what = deep ? tr("Deep validate") : tr("Validate");
  std::shared_ptr<TaskState> task = m_progress->start(what);
  // The previous run's results go now: a run that is cancelled or fails leaves none behind.
  m_validated = true;
  m_report.reset();
  m_checked = Checked::kMetadata;
  m_cancelNote.clear();
  m_validateFindings.clear();
  m_findingsModel->setFindings({});
  m_findingsSummary->setText(tr("%1 running…").arg(what));
  updateSummary();
  whenReady(this, inspector::validateSnapshot(qs(m_snapshot->dir), options, task),
            [this, generation, what, deep, task](const Loaded<ops::ValidateReport>& r) {
              --m_running;
              const TaskState::View progress = task->snapshot();
              m_progress->finish();
              if (generation != m_generation) return;
              if (!r.ok()) {
                m_validated = false;
                m_cancelNote = r.code == base::StatusCode::kCancelled
                                   ? tr("%1 was cancelled (after %2 of %3); none of its results are shown. The verdict below is from the metadata only.")
                                         .arg(what, humanBytes(progress.done), progress.total ? humanBytes(progress.total) : tr("unknown"))
                                   : tr("%1 failed: %2. The verdict below is from the metadata only.").arg(what, r.error);
                m_findingsSummary->setText(m_cancelNote);
                statusBar()->showMessage(m_cancelNote);
                updateSummary();
                Q_EMIT validationFinished(false);
                return;
              }
              m_report = r.value;
              m_checked = deep ? Checked::kDeep : Checked::kChecksums;
              m_validateFindings = r.value->findings;
              QStringList caps;
              for (const ops::Capability& c : r.value->capabilities) {
                QString mark = c.supported ? QStringLiteral("✔ ") : c.undetermined ? QStringLiteral("? ") : QStringLiteral("✘ ");
                QString why;
                if (!c.blocked_by.empty()) why = tr(" (blocked by %1)").arg(qs(base_join(c.blocked_by)));
                else if (!c.unverified_by.empty()) why = tr(" (not determined: %1 not checked)").arg(qs(base_join(c.unverified_by)));
                caps << mark + qs(c.operation) + why;
              }
              const size_t errors = std::count_if(r.value->findings.begin(), r.value->findings.end(),
                                                  [](const ops::Finding& f) { return f.severity == ops::Severity::kError; });
              m_findingsSummary->setText(tr("%1 (%2): %3 findings, %4 errors; %5 rules checked%6; %7 files and %8 read%9.\\nVerdict: %10")
                                             .arg(qs(r.value->snapshot_type), deep ? tr("deep: every record decoded") : tr("checksums"))
                                             .arg(r.value->findings.size()).arg(errors)
                                             .arg(r.value->checked_rules.size())
                                             .arg(r.value->not_checked.empty() ? QString() : tr(", %1 could not be checked here").arg(r.value->not_checked.size()))
                                             .arg(r.value->files_checked).arg(humanBytes(r.value->bytes_checked))
                                             .arg(deep ? tr(", %1 records").arg(r.value->records_checked) : QString())
                                             .arg(caps.join(QStringLiteral("; "))));
              m_findingsModel->setFindings(r.value->findings);
              statusBar()->showMessage(tr("validate: %1 findings, %2 files, %3 checked")
                                           .arg(r.value->findings.size()).arg(r.value->files_checked)
                                           .arg(humanBytes(r.value->bytes_checked)));
              updateSummary();
              if (!r.value->findings.empty()) showPage(kFindingsPage);
              Q_EMIT validationFinished(true);
            });
}

void MainWindow::showFinding(int row) {
  const ops::Finding* f = m_findingsModel->finding(m_findingsModel->index(row, 0));
  if (f == nullptr || !m_snapshot) return;
  const ops::Finding finding = *f;
  const QModelIndex idx = m_treeModel->indexForLocation(finding.location);
  showPage(kDetailsPage);
  if (!idx.isValid()) {
    statusBar()->showMessage(tr("%1 names no node of the tree: %2").arg(qs(finding.rule_id), qs(finding.message)));
    return;
  }
  m_tree->scrollTo(idx);
  m_tree->setCurrentIndex(idx);
  if (idx.data(kNodeKindRole).toInt() == DetailTreeModel::kFile) {
    showFileBytes(idx.data(kFileIndexRole).toInt(), finding.location.key_group, finding);
  }
  m_decoded->appendPlainText(QStringLiteral("\n%1 %2: %3\n%4").arg(qs(ops::SeverityName(finding.severity)), qs(finding.rule_id), qs(finding.message), qs(finding.hint)));
}

void MainWindow::compareWith(const QString& other, bool withKeys) {
  if (!m_snapshot) return;
  m_diff->setPaths(qs(m_snapshot->dir), other);
  showPage(kDiffPage);
  m_diff->compare(withKeys);
}

void MainWindow::remapDialog() {
  if (!m_snapshot) return;
  RemapDialog dialog(qs(m_snapshot->dir), this);
  dialog.setOutputDir(qs(m_snapshot->dir) + QStringLiteral("-remapped"));
  connect(&dialog, &RemapDialog::written, this, [this, &dialog](bool ok) {
    if (ok && dialog.lastOutcome()) statusBar()->showMessage(tr("remapped savepoint written to %1").arg(qs(dialog.lastOutcome()->result.output_dir)));
  });
  dialog.exec();
}

void MainWindow::pruneDialog() {
  QString root = m_root;
  if (root.isEmpty()) root = QFileDialog::getExistingDirectory(this, tr("Checkpoint root or job directory to prune"));
  if (root.isEmpty()) return;
  PruneDialog dialog(root, this);
  dialog.exec();
  if (dialog.lastResult() && !m_root.isEmpty()) openPath(m_root);
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(QStringLiteral("recent/files")).toStringList();
}

void MainWindow::addRecent(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue(QStringLiteral("recent/files"), files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  if (!m_recentMenu) return;
  m_recentMenu->clear();
  for (const QString& f : recentFiles()) m_recentMenu->addAction(f, this, [this, f] { openPath(f); });
  m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

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
  if (event->key() == Qt::Key_Escape && m_progress->running()) {
    m_progress->cancel();
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

QStringList MainWindow::saveScreenshots(const QString& dir, const QString& suffix) {
  QDir().mkpath(dir);
  QStringList written;
  const int current = m_pages->currentIndex();
  static const char* kNames[] = {"summary", "details", "files", "state", "treemap", "keygroups",
                                 "history", "subtasks", "findings", "diff"};
  for (int i = 0; i < kPageCount; ++i) {
    m_pages->setCurrentIndex(i);
    QApplication::processEvents();
    const QString page = dir + QStringLiteral("/view-%1%2.png").arg(QLatin1String(kNames[i]), suffix);
    if (m_pages->widget(i)->grab().save(page)) written << page;
    if (i == kDetailsPage || i == kSummaryPage) {
      const QString win = dir + QStringLiteral("/window-%1%2.png").arg(QLatin1String(kNames[i]), suffix);
      if (grab().save(win)) written << win;
    }
  }
  m_pages->setCurrentIndex(current);
  return written;
}

}  // namespace ckpt::inspector
