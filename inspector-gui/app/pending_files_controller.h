// PendingFilesController: the Pending files page, the two-phase-commit sink files the open
// snapshot records as pending, checked on disk in the background (ops::ListPendingFiles).
// Selecting a row selects its operator and subtask everywhere. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "app/window_shell.h"

class QLabel;
class QTableView;
class QWidget;

namespace ckpt::inspector {

class OpenSession;
class PendingFilesModel;
class SortProxy;

class PendingFilesController : public QObject {
  Q_OBJECT

 public:
  PendingFilesController(OpenSession& session, const WindowShell& shell, QObject* parent);

  // Lists and checks the open snapshot's pending files (emits pendingFilesLoaded).
  void load();
  void clear();
  // The page's headline (how many files, in which state).
  QString text() const;

  QWidget* page() const { return m_page; }
  PendingFilesModel* model() const { return m_pendingModel; }
  QTableView* view() const { return m_pendingView; }

 Q_SIGNALS:
  void pendingFilesLoaded();
  // A row of operator `op` (index into the snapshot's operators), subtask `subtask` was selected.
  void operatorChosen(int op, std::optional<uint32_t> subtask);

 private:
  OpenSession& m_session;
  WindowShell m_shell;
  QWidget* m_page;
  PendingFilesModel* m_pendingModel;
  SortProxy* m_pendingProxy;
  QTableView* m_pendingView;
  QLabel* m_pendingSummary;
};

}  // namespace ckpt::inspector
