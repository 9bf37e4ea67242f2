// MainWindow of ckpt-inspector: opens a snapshot or checkpoint root (File > Open, command line,
// drag and drop, recent files), and links the views: snapshot list, Summary page, detail tree
// with hex view and decoded-value pane, files, state browser, treemap and charts, findings of a
// background validate, diff, and the remap / prune dialogs. All disk work runs through the
// loaders (off the UI thread). GUI thread only.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>

#include "app/theme.h"
#include "ckpt/ops/record_range.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "models/loaders.h"

class QTabWidget;
class QTreeView;
class QTableView;
class QTextBrowser;
class QPlainTextEdit;
class QMenu;
class QLabel;
class QAction;
class QComboBox;
class QCheckBox;

namespace ckpt::inspector {

class SnapshotListModel;
class DetailTreeModel;
class FilesModel;
class FindingsModel;
class SortProxy;
class HexView;
class StateBrowser;
class TreemapView;
class KeyGroupChart;
class HistoryPage;
class SubtaskBarsChart;
class DiffPage;
class TaskProgress;
class JobGraphView;
class PendingFilesModel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum Page { kSummaryPage, kDetailsPage, kFilesPage, kStatePage, kTreemapPage, kKeyGroupPage,
              kHistoryPage, kSubtaskPage, kFindingsPage, kDiffPage, kJobGraphPage,
              kPendingFilesPage, kPageCount };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a snapshot directory, a `_metadata` file or a checkpoint root, in the background.
  // Emits snapshotLoaded / rootLoaded, or openFailed.
  void openPath(const QString& path);
  // Opens the snapshot at `index` of the snapshot list.
  void openListedSnapshot(const QModelIndex& index);
  void validateSnapshot(bool deep = false);
  // Selects the tree node of finding `row` and shows its bytes.
  void showFinding(int row);
  void compareWith(const QString& other, bool withKeys = false);
  void setTheme(Theme theme);
  // The page shown with nothing open: Open…, the recent files (links) and drag-and-drop.
  void showStartPage();
  void showPage(Page page);
  // Renders the window and every page to PNG files in `dir`; returns the files written.
  // `suffix` is appended to each file's stem (e.g. "-dark"). `sizes`, if given, receives the
  // pixel size of each image as rendered, in the order of the files.
  QStringList saveScreenshots(const QString& dir, const QString& suffix = QString(),
                              QList<QSize>* sizes = nullptr);

  std::shared_ptr<const ops::Snapshot> snapshot() const { return m_snapshot; }
  QString currentPath() const { return m_path; }
  QString rootPath() const { return m_root; }
  QStringList recentFiles() const;
  bool busy() const;  // stats, history or validate still running

  // The views (for tests and screenshots).
  QTabWidget* pages() const { return m_pages; }
  QTreeView* detailTree() const { return m_tree; }
  DetailTreeModel* detailModel() const { return m_treeModel; }
  QTreeView* snapshotList() const { return m_list; }
  SnapshotListModel* snapshotListModel() const { return m_listModel; }
  HexView* hexView() const { return m_hex; }
  QPlainTextEdit* decodedPane() const { return m_decoded; }
  FindingsModel* findingsModel() const { return m_findingsModel; }
  QTableView* findingsView() const { return m_findingsView; }
  StateBrowser* stateBrowser() const { return m_state; }
  TreemapView* treemap() const { return m_treemap; }
  DiffPage* diffPage() const { return m_diff; }
  HistoryPage* historyPage() const { return m_history; }
  QMenu* viewMenu() const { return m_viewMenu; }
  JobGraphView* jobGraph() const { return m_jobGraph; }
  PendingFilesModel* pendingFilesModel() const { return m_pendingModel; }
  QTableView* pendingFilesView() const { return m_pendingView; }
  QString pendingFilesText() const;
  QString summaryText() const;
  QTableView* filesView() const { return m_filesView; }
  QComboBox* blockPicker() const { return m_blockPicker; }
  QCheckBox* decompressedBox() const { return m_decompressed; }
  // The Findings page's headline: what was checked and ops' verdict.
  QString verdictText() const;
  // What the hex view's highlight is ("key group 3", "block 1 (checksum mismatch)", ...).
  QString hexRangeText() const;
  // The path the window shows (title, Summary, every tab): a loaded snapshot, or the directory
  // whose "Cannot open" page is shown.
  QString shownPath() const { return m_shownPath; }
  bool showingCannotOpen() const { return m_cannotOpen; }
  // Selects file `file` (index into the file table) in the tree and shows its bytes on the
  // Details page.
  void openFileInDetails(int file);

 Q_SIGNALS:
  void snapshotLoaded(const QString& path);
  void rootLoaded(const QString& path);
  void openFailed(const QString& message);
  void statsLoaded();
  void historyLoaded();
  void validationFinished(bool ok);
  // The hex view's highlight was set from a file layout (after a selection / finding).
  void hexRangeShown();
  // A snapshot selected in a root could not be opened; its "Cannot open" page is complete.
  void cannotOpenShown(const QString& path);
  // The sink's pending files of the shown snapshot were listed (Pending files page).
  void pendingFilesLoaded();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void buildMenus();
  void buildPages();
  void showSnapshot(std::shared_ptr<const ops::Snapshot> snapshot);
  void updateSummary();
  void treeSelectionChanged();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void openDialog();
  void remapDialog();
  void pruneDialog();
  void loadHistoryFor(const std::string& job_id_hex);
  void loadStats();
  void loadSummary();
  enum class Checked { kMetadata, kChecksums, kDeep };
  void clearSnapshotViews();
  void showCannotOpen(const QString& path, const QString& error, const ops::SnapshotEntry* entry);
  // Shows file `file`'s bytes; highlights key group `keyGroup`'s section or `finding`'s range.
  // With `record` (record-stream bytes of one record, from ops::Dump), highlights that record.
  void showFileBytes(int file, std::optional<uint32_t> keyGroup, std::optional<ops::Finding> finding,
                     std::optional<ops::ByteRange> record = std::nullopt);
  void blockChosen();
  void stateRecordSelected(const QString& op, int subtask, int keyGroup);
  // Job graph / Pending files: select operator `op` (index) in the tree, subtask chart and graph.
  void operatorChosen(int op, std::optional<uint32_t> subtask);
  void loadPendingFiles();
  QString verdictHtml() const;
  void updateActions();

  QString m_path;  // what was opened last
  QString m_root;  // checkpoint root, if one was opened
  std::string m_historyJob;  // job whose history the History page shows
  std::shared_ptr<const ops::Snapshot> m_snapshot;
  std::shared_ptr<const ops::StatsReport> m_stats;
  std::shared_ptr<const std::vector<ops::FileRow>> m_files;
  std::vector<ops::Finding> m_validateFindings;
  std::shared_ptr<const ops::SummaryReport> m_summaryReport;  // ops::Summarize's warnings
  bool m_validated = false;
  Checked m_checked = Checked::kMetadata;
  QString m_cancelNote;  // a cancelled or failed validate: what happened
  std::shared_ptr<const ops::ValidateReport> m_report;  // the last complete validate
  std::shared_ptr<const ops::FileLayout> m_layout;      // of the file in the hex view
  int m_hexFile = -1;
  uint64_t m_hexRequest = 0;
  QString m_hexRange;
  std::optional<ops::RecordRange> m_record;  // the selected state row's record in m_layout
  bool m_cannotOpen = false;
  QString m_shownPath;
  int m_running = 0;
  uint64_t m_generation = 0;  // discards results for a snapshot no longer shown

  QTabWidget* m_pages;
  QTreeView* m_list;
  QWidget* m_listDock;
  SnapshotListModel* m_listModel;
  QTextBrowser* m_summary;
  QTreeView* m_tree;
  DetailTreeModel* m_treeModel;
  HexView* m_hex;
  QPlainTextEdit* m_decoded;
  QTableView* m_filesView;
  FilesModel* m_filesModel;
  SortProxy* m_filesProxy;
  SortProxy* m_findingsProxy;
  StateBrowser* m_state;
  TreemapView* m_treemap;
  KeyGroupChart* m_keyGroups;
  HistoryPage* m_history;
  SubtaskBarsChart* m_subtasks;
  QTableView* m_findingsView;
  QLabel* m_findingsSummary;
  FindingsModel* m_findingsModel;
  DiffPage* m_diff;
  TaskProgress* m_progress;
  QComboBox* m_blockPicker;
  QCheckBox* m_decompressed;
  QLabel* m_hexInfo;
  JobGraphView* m_jobGraph;
  PendingFilesModel* m_pendingModel;
  SortProxy* m_pendingProxy;
  QTableView* m_pendingView;
  QLabel* m_pendingSummary;
  QAction* m_validateAction = nullptr;
  QAction* m_deepValidateAction = nullptr;
  QAction* m_remapAction = nullptr;
  QAction* m_compareAction = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;  // View: other windows' actions go at its end (buildMenus)
  QAction* m_themeActions[3] = {};
};

}  // namespace ckpt::inspector
