// MainWindow of ckpt-inspector: lays out the pages and the Snapshots dock and wires the
// controllers that own them: OpenSession (what is open), Summary, Details (tree, value, hex),
// Validate (Findings), Files, Pending files, History, the operator pages, the "Cannot open"
// page, the write dialogs and the menus. Its public functions are the window's API for main,
// the live view and the tests; they forward to the controllers. GUI thread only.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>

#include "app/inspector_page.h"
#include "app/theme.h"
#include "app/window_shell.h"
#include "ckpt/ops/snapshot.h"

class QTabWidget;
class QTreeView;
class QTableView;
class QPlainTextEdit;
class QMenu;
class QComboBox;
class QCheckBox;

namespace ckpt::inspector {

class SnapshotListModel;
class DetailTreeModel;
class FindingsModel;
class HexView;
class StateBrowser;
class TreemapView;
class HistoryPage;
class DiffPage;
class JobGraphView;
class SubtaskBarsChart;
class PendingFilesModel;
class OpenSession;
class SummaryController;
class DetailsController;
class ValidateController;
class FilesController;
class PendingFilesController;
class HistoryController;
class OperatorViewsController;
class CannotOpenController;
class WriteActions;
class MenuController;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  using Page = InspectorPage;
  using enum InspectorPage;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a snapshot directory, a `_metadata` file or a checkpoint root (a bare path or a
  // file: URI), in the background. Emits snapshotLoaded / rootLoaded, or openFailed.
  void openPath(const QString& path);
  // Opens the snapshot at `index` of the snapshot list.
  void openListedSnapshot(const QModelIndex& index);
  void validateSnapshot(bool deep = false);
  // Selects the tree node of finding `row` and shows its bytes.
  void showFinding(int row);
  // Compares the open snapshot with `other` on the Diff page, the older of the two (by the
  // checkpoint ids ops reads) on side A.
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

  std::shared_ptr<const ops::Snapshot> snapshot() const;
  QString currentPath() const;
  QString rootPath() const;
  QStringList recentFiles() const;
  bool busy() const;  // stats, history or validate still running

  // The views (for tests and screenshots).
  QTabWidget* pages() const { return m_pages; }
  QTreeView* detailTree() const;
  DetailTreeModel* detailModel() const;
  QTreeView* snapshotList() const;
  SnapshotListModel* snapshotListModel() const;
  HexView* hexView() const;
  QPlainTextEdit* decodedPane() const;
  FindingsModel* findingsModel() const;
  QTableView* findingsView() const;
  StateBrowser* stateBrowser() const;
  TreemapView* treemap() const;
  DiffPage* diffPage() const { return m_diff; }
  HistoryPage* historyPage() const;
  QMenu* viewMenu() const;
  JobGraphView* jobGraph() const;
  SubtaskBarsChart* subtaskChart() const;
  PendingFilesModel* pendingFilesModel() const;
  QTableView* pendingFilesView() const;
  QString pendingFilesText() const;
  QString summaryText() const;
  QTableView* filesView() const;
  QComboBox* blockPicker() const;
  QCheckBox* decompressedBox() const;
  // The Findings page's headline: what was checked and ops' verdict.
  QString verdictText() const;
  // What the hex view's highlight is ("key group 3", "block 1 (checksum mismatch)", ...).
  QString hexRangeText() const;
  // The path the window shows (title, Summary, every tab): a loaded snapshot, or the directory
  // whose "Cannot open" page is shown.
  QString shownPath() const;
  bool showingCannotOpen() const;
  // The status bar's message, whole (the bar shows it elided to its width).
  QString statusMessage() const;
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
  void buildPages();
  void wire();
  // Job graph / Pending files: select operator `op` (index) in the tree, subtask chart and graph.
  void operatorChosen(int op, std::optional<uint32_t> subtask);

  QTabWidget* m_pages = nullptr;
  DiffPage* m_diff = nullptr;
  WindowShell m_shell;
  OpenSession* m_session = nullptr;
  ValidateController* m_validate = nullptr;
  SummaryController* m_summary = nullptr;
  DetailsController* m_details = nullptr;
  FilesController* m_files = nullptr;
  PendingFilesController* m_pending = nullptr;
  HistoryController* m_history = nullptr;
  OperatorViewsController* m_operatorViews = nullptr;
  CannotOpenController* m_cannotOpen = nullptr;
  WriteActions* m_writes = nullptr;
  MenuController* m_menus = nullptr;
};

}  // namespace ckpt::inspector
