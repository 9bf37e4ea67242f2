// MainWindow of ckpt-inspector: opens a snapshot or checkpoint root (File > Open, command line,
// drag and drop, recent files), and links the views: snapshot list, Summary page, detail tree
// with hex view and decoded-value pane, files, state browser, treemap and charts, findings of a
// background validate, diff, and the remap / prune dialogs. All disk work runs through the
// loaders (off the UI thread). GUI thread only.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>

#include "app/theme.h"
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

namespace ckpt::inspector {

class SnapshotListModel;
class DetailTreeModel;
class FilesModel;
class FindingsModel;
class HexView;
class StateBrowser;
class TreemapView;
class KeyGroupChart;
class HistoryChart;
class SubtaskBarsChart;
class DiffPage;
class TaskProgress;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum Page { kSummaryPage, kDetailsPage, kFilesPage, kStatePage, kTreemapPage, kKeyGroupPage,
              kHistoryPage, kSubtaskPage, kFindingsPage, kDiffPage, kPageCount };

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
  void showPage(Page page);
  // Renders the window and every page to PNG files in `dir`; returns the files written.
  QStringList saveScreenshots(const QString& dir);

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
  QString summaryText() const;

 Q_SIGNALS:
  void snapshotLoaded(const QString& path);
  void rootLoaded(const QString& path);
  void openFailed(const QString& message);
  void statsLoaded();
  void historyLoaded();
  void validationFinished(bool ok);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

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

  QString m_path;  // what was opened last
  QString m_root;  // checkpoint root, if one was opened
  std::string m_historyJob;  // job whose history the History page shows
  std::shared_ptr<const ops::Snapshot> m_snapshot;
  std::shared_ptr<const ops::StatsReport> m_stats;
  std::shared_ptr<const std::vector<ops::FileRow>> m_files;
  std::vector<ops::Finding> m_validateFindings;
  std::shared_ptr<const ops::SummaryReport> m_summaryReport;  // ops::Summarize's warnings
  bool m_validated = false;
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
  StateBrowser* m_state;
  TreemapView* m_treemap;
  KeyGroupChart* m_keyGroups;
  HistoryChart* m_history;
  SubtaskBarsChart* m_subtasks;
  QTableView* m_findingsView;
  QLabel* m_findingsSummary;
  FindingsModel* m_findingsModel;
  DiffPage* m_diff;
  TaskProgress* m_progress;
  QMenu* m_recentMenu = nullptr;
  QAction* m_themeActions[3] = {};
};

}  // namespace ckpt::inspector
