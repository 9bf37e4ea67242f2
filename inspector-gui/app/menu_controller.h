// MenuController: the menu bar (File, View, Tools), Open Recent and the recent-files list,
// the theme choice, and which actions an open snapshot enables. Actions that belong to a page
// or a dialog are signals; MainWindow wires them. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include "app/theme.h"
#include "app/window_shell.h"

class QAction;
class QMenu;

namespace ckpt::inspector {

class MenuController : public QObject {
  Q_OBJECT

 public:
  MenuController(const WindowShell& shell, QObject* parent);

  // Validate, Remap and Compare need an open snapshot.
  void updateActions(bool snapshotOpen);
  void setTheme(Theme theme);
  // File > Open…: asks for a snapshot or root and emits openRequested.
  void openDialog();
  // File > Open Location…: asks for a location as text (a path or a URI such as s3://bucket/key,
  // for stores a file dialog cannot browse) and emits openRequested with it, trimmed.
  void openLocationDialog();
  // Open Recent, newest first (at most 8).
  QStringList recentFiles() const;
  void addRecent(const QString& path);

  // View: other windows add their actions at its end.
  QMenu* viewMenu() const { return m_viewMenu; }

 Q_SIGNALS:
  void openRequested(const QString& path);
  void reloadRequested();
  void compareRequested(const QString& other);
  void remapRequested();
  void pruneRequested();
  void findInStateRequested();
  void validateRequested(bool deep);
  void liveViewRequested(const QString& address);

 private:
  void rebuildRecentMenu();

  WindowShell m_shell;
  QAction* m_validateAction = nullptr;
  QAction* m_deepValidateAction = nullptr;
  QAction* m_remapAction = nullptr;
  QAction* m_compareAction = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QAction* m_themeActions[3] = {};
};

}  // namespace ckpt::inspector
