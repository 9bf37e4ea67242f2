// WriteActions: the dialogs that write (Remap operator IDs, Prune checkpoints) and their
// guards: Remap needs an open snapshot; Prune works on the open root, else on a directory the
// user picks (resolved to its Fs here). After a prune of the open root the root is reopened.
// GUI thread only.
#pragma once

#include <QObject>

#include "app/window_shell.h"

namespace ckpt::inspector {

class OpenSession;

class WriteActions : public QObject {
  Q_OBJECT

 public:
  WriteActions(OpenSession& session, const WindowShell& shell, QObject* parent);

  // Remaps the open snapshot (no-op without one).
  void remapDialog();
  // Prunes the open checkpoint root, or one the user picks.
  void pruneDialog();

 private:
  OpenSession& m_session;
  WindowShell m_shell;
};

}  // namespace ckpt::inspector
