// FilesController: the Files page, the open snapshot's files (ops::ListFiles, in the background)
// or, for a directory that does not open, what is on disk there. Selecting a row selects the
// file in the Details tree; activating it shows its bytes. GUI thread only.
#pragma once

#include <QObject>
#include <memory>
#include <vector>

#include "app/window_shell.h"
#include "ckpt/ops/files.h"

class QTableView;

namespace ckpt::inspector {

class FilesModel;
class OpenSession;
class SortProxy;

class FilesController : public QObject {
  Q_OBJECT

 public:
  FilesController(OpenSession& session, const WindowShell& shell, QObject* parent);

  // Lists the open snapshot's files in the background (emits filesLoaded when they are shown).
  void load();
  // The files of a directory that does not open (no metadata names them).
  void showOnDisk(const std::vector<ops::FileRow>& rows);
  void clear();

  QTableView* view() const { return m_filesView; }

 Q_SIGNALS:
  void filesLoaded();
  // File `file` (index into the snapshot's file table) was selected / activated.
  void fileSelected(int file);
  void fileActivated(int file);

 private:
  OpenSession& m_session;
  WindowShell m_shell;
  std::shared_ptr<const std::vector<ops::FileRow>> m_files;
  QTableView* m_filesView;
  FilesModel* m_filesModel;
  SortProxy* m_filesProxy;
};

}  // namespace ckpt::inspector
