// MainWindow::buildPages: the pages, the Snapshots dock and the signals that link them.
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
#include <QScrollArea>
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
  m_jobGraph = new JobGraphView(this);
  auto* graphScroll = new QScrollArea(this);
  graphScroll->setWidget(m_jobGraph);
  graphScroll->setWidgetResizable(false);
  graphScroll->setBackgroundRole(QPalette::Base);
  m_pages->addTab(graphScroll, tr("Job graph"));
  m_pendingModel = new PendingFilesModel(this);
  m_pendingProxy = new SortProxy(this);
  m_pendingProxy->setSourceModel(m_pendingModel);
  m_pendingView = new QTableView(this);
  m_pendingView->setModel(m_pendingProxy);
  m_pendingView->setSortingEnabled(true);
  m_pendingView->sortByColumn(PendingFilesModel::kOperator, Qt::AscendingOrder);
  m_pendingView->setTextElideMode(Qt::ElideMiddle);
  m_pendingView->setWordWrap(false);
  m_pendingView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_pendingView->horizontalHeader()->setStretchLastSection(false);
  connect(m_pendingModel, &QAbstractItemModel::modelReset, this, [this] { fitColumns(m_pendingView, PendingFilesModel::kPendingPath); });
  m_pendingSummary = new QLabel(this);
  m_pendingSummary->setWordWrap(true);
  auto* pendingPage = new QWidget(this);
  auto* pendingLayout = new QVBoxLayout(pendingPage);
  pendingLayout->setContentsMargins(0, 0, 0, 0);
  pendingLayout->addWidget(m_pendingSummary);
  pendingLayout->addWidget(m_pendingView, 1);
  m_pages->addTab(pendingPage, tr("Pending files"));
  m_pages->setTabToolTip(kJobGraphPage, tr("Operators and edges of the snapshot's job graph; chained operators share a box. Click an operator to select it everywhere."));
  m_pages->setTabToolTip(kPendingFilesPage, tr("Files of two-phase-commit sinks pending commit in this snapshot, and whether they exist now"));
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
  connect(m_jobGraph, &JobGraphView::operatorActivated, this, [this](int op) { operatorChosen(op, std::nullopt); });
  connect(m_pendingView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (!m_snapshot || !i.isValid()) return;
    const QString id = i.data(kOperatorIdRole).toString();
    for (size_t k = 0; k < m_snapshot->operators.size(); ++k) {
      if (qs(m_snapshot->operators[k].id_hex) == id) operatorChosen(static_cast<int>(k), static_cast<uint32_t>(i.data(kSubtaskRole).toInt()));
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

}  // namespace ckpt::inspector
