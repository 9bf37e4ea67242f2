// OpenSession: what the window has open. Resolves a location once (models/location.h) to its
// Fs and path, opens a snapshot or a checkpoint root in the background, owns the Snapshots dock
// (the root's listing) and the shown snapshot, and tells the other controllers through signals
// when the views are to be emptied, filled, or replaced by a "Cannot open" page. Also counts the
// background loads still running (busy). GUI thread only.
#pragma once

#include <QModelIndex>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>

#include "app/window_shell.h"
#include "ckpt/base/fs.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/snapshot.h"

class QDockWidget;
class QTreeView;

namespace ckpt::inspector {

class SnapshotListModel;

class OpenSession : public QObject {
  Q_OBJECT

 public:
  OpenSession(const WindowShell& shell, QObject* parent);

  // Opens `location` (a snapshot directory, its `_metadata`, or a checkpoint root; a bare path
  // or a file: URI) in the background. Emits snapshotLoaded / rootLoaded, or openFailed (an
  // unknown scheme fails here, before anything is read).
  void openPath(const QString& location);
  // Opens what was opened last again (no-op when nothing was).
  void reload();
  // Opens the snapshot at `index` of the Snapshots list (no-op when it is already shown).
  void openListedSnapshot(const QModelIndex& index);
  // Selects the listed snapshot at `relativePath` of the root (which opens it).
  void selectListed(const QString& relativePath);

  // The filesystem of what is open (null before the first open).
  base::Fs* fs() const { return m_fs; }
  std::shared_ptr<const ops::Snapshot> snapshot() const { return m_snapshot; }
  QString currentPath() const { return m_path; }
  QString rootPath() const { return m_root; }
  QString shownPath() const { return m_shownPath; }
  bool showingCannotOpen() const { return m_cannotOpen; }
  // A snapshot is shown and open (not a "Cannot open" page).
  bool snapshotOpen() const { return m_snapshot != nullptr && !m_cannotOpen; }

  // Results of a background load started at generation() are applied only while isCurrent().
  uint64_t generation() const { return m_generation; }
  bool isCurrent(uint64_t generation) const { return generation == m_generation; }
  // Background loads: taskStarted() before, taskEnded() when its result arrives.
  void taskStarted() { ++m_running; }
  void taskEnded() { --m_running; }
  bool busy() const { return m_running > 0; }

  QTreeView* listView() const { return m_list; }
  SnapshotListModel* listModel() const { return m_listModel; }
  QDockWidget* listDock() const { return m_listDock; }

 Q_SIGNALS:
  // Every view of the previous snapshot is to be emptied (a snapshot or a page follows).
  void cleared();
  // snapshot() is new: the views fill themselves and start their background loads.
  void snapshotShown();
  // shownPath() could not be opened: `error`, and the root listing's entry when it has one.
  // `fs` is null when the location did not even resolve to a filesystem.
  void cannotOpenShown(const QString& path, const QString& error,
                       const std::optional<ops::SnapshotEntry>& entry, base::Fs* fs);
  // A checkpoint root without any snapshot was opened.
  void emptyRootShown(const QString& path);
  // The History page is to show job `jobIdHex` of rootPath(): always after a root was opened
  // (`reload`), and when a listed snapshot of another job is chosen.
  void historyJobChosen(const std::string& jobIdHex, bool reload);
  // A single snapshot (no root) is open: the History page has nothing to show.
  void historyCleared();
  // `path` opened as a snapshot or a root with jobs (worth a place in Open Recent).
  void openedForRecent(const QString& path);
  void snapshotLoaded(const QString& path);
  void rootLoaded(const QString& path);
  void openFailed(const QString& message);

 protected:
  // Refits the Snapshots list's columns when its viewport is resized.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // Sizes the shown columns of the Snapshots list to their contents and gives the name column
  // the rest of the viewport's width (at least 60 pixels).
  void fitListColumns();
  void clear();
  void show(std::shared_ptr<const ops::Snapshot> snapshot);
  void showCannotOpen(const QString& path, const QString& error,
                      std::optional<ops::SnapshotEntry> entry, base::Fs* fs);

  WindowShell m_shell;
  base::Fs* m_fs = nullptr;  // of m_path (and of every snapshot listed under m_root)
  QString m_path;            // what was opened last
  QString m_root;            // checkpoint root, if one was opened
  std::shared_ptr<const ops::Snapshot> m_snapshot;
  bool m_cannotOpen = false;
  QString m_shownPath;
  int m_running = 0;
  uint64_t m_generation = 0;  // discards results for a snapshot no longer shown
  QTreeView* m_list;
  SnapshotListModel* m_listModel;
  QDockWidget* m_listDock;
};

}  // namespace ckpt::inspector
