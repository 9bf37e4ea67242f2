#include "app/write_actions.h"

#include <QFileDialog>

#include "app/open_session.h"
#include "app/write_dialogs.h"
#include "models/display.h"
#include "models/location.h"

namespace ckpt::inspector {

WriteActions::WriteActions(OpenSession& session, const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_shell(shell) {}

void WriteActions::remapDialog() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  RemapDialog dialog(*m_session.fs(), qs(snapshot->dir), m_shell.window);
  dialog.setOutputDir(qs(snapshot->dir) + QStringLiteral("-remapped"));
  connect(&dialog, &RemapDialog::written, this, [this, &dialog](bool ok) {
    if (ok && dialog.lastOutcome()) m_shell.status(tr("remapped savepoint written to %1").arg(qs(dialog.lastOutcome()->result.output_dir)));
  });
  dialog.exec();
}

void WriteActions::pruneDialog() {
  const QString openRoot = m_session.rootPath();
  base::Fs* fs = m_session.fs();
  QString root = openRoot;
  if (root.isEmpty()) {
    const QString picked = QFileDialog::getExistingDirectory(m_shell.window, tr("Checkpoint root or job directory to prune"));
    if (picked.isEmpty()) return;
    const OpenedLocation resolved = resolveLocation(picked);
    if (!resolved.ok()) {
      m_shell.status(resolved.error);
      return;
    }
    fs = resolved.fs;
    root = resolved.path;
  }
  if (root.isEmpty() || fs == nullptr) return;
  PruneDialog dialog(*fs, root, m_shell.window);
  dialog.exec();
  const QString rootNow = m_session.rootPath();
  if (dialog.lastResult() && !rootNow.isEmpty()) m_session.openPath(rootNow);
}

}  // namespace ckpt::inspector
