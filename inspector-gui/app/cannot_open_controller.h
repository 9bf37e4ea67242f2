// CannotOpenController: the page of a location that does not open. Shows the error and what the
// root listing knows at once, then diagnoses the directory in the background (validate's rule
// and hint for why, and the files on disk: Summary, Findings and Files pages). Nothing of
// another snapshot stays. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "app/window_shell.h"
#include "ckpt/base/fs.h"
#include "ckpt/ops/diagnose.h"
#include "ckpt/ops/ls.h"

namespace ckpt::inspector {

class FilesController;
class OpenSession;
class SummaryController;
class ValidateController;

class CannotOpenController : public QObject {
  Q_OBJECT

 public:
  CannotOpenController(OpenSession& session, SummaryController& summary, ValidateController& validate,
                       FilesController& files, const WindowShell& shell, QObject* parent);

  // Shows the page for `path` (`error`, the listing's `entry` if any) and, when `fs` is not null,
  // diagnoses `path` on it. Emits cannotOpenShown when the page is complete.
  void show(const QString& path, const QString& error, const std::optional<ops::SnapshotEntry>& entry,
            base::Fs* fs);

 Q_SIGNALS:
  void cannotOpenShown(const QString& path);

 private:
  // The page for `path`; without a `diagnosis` its files show as still being listed, or as
  // `listingError` once the listing failed.
  QString pageHtml(const QString& path, const QString& error, const std::optional<ops::SnapshotEntry>& entry,
                   const ops::SnapshotDiagnosis* diagnosis, const QString& listingError = {}) const;

  OpenSession& m_session;
  SummaryController& m_summary;
  ValidateController& m_validate;
  FilesController& m_files;
  WindowShell m_shell;
};

}  // namespace ckpt::inspector
