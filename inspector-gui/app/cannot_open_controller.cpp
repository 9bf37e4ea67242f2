#include "app/cannot_open_controller.h"

#include <QStringList>
#include <string>
#include <vector>

#include "app/files_controller.h"
#include "app/main_window_util.h"
#include "app/open_session.h"
#include "app/summary_controller.h"
#include "app/validate_controller.h"
#include "models/display.h"
#include "models/loaders.h"

namespace ckpt::inspector {

using detail::whenReady;

namespace {

// The Files tab rows of what is in a snapshot directory that does not open: name, type and size
// as the diagnosis found them; no metadata names them.
std::vector<ops::FileRow> cannotOpenFileRows(const ops::SnapshotDiagnosis& diagnosis) {
  std::vector<ops::FileRow> rows;
  rows.reserve(diagnosis.present.size());
  for (const ops::DiagnosedEntry& e : diagnosis.present) {
    ops::FileRow row;
    row.path = e.name;
    row.location = e.name;
    row.owner = e.is_dir ? "on disk (" + e.type + ", no metadata names it)" : "on disk (no metadata names it)";
    row.exists = true;
    row.size_bytes = e.size_bytes;
    row.actual_size = static_cast<int64_t>(e.size_bytes);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

CannotOpenController::CannotOpenController(OpenSession& session, SummaryController& summary,
                                           ValidateController& validate, FilesController& files,
                                           const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_summary(summary), m_validate(validate), m_files(files), m_shell(shell) {}

// The error, validate's rule and hint for it (`diagnosis`, once known), what the root listing
// knows, and the files on disk.
QString CannotOpenController::pageHtml(const QString& path, const QString& error,
                                       const std::optional<ops::SnapshotEntry>& e,
                                       const ops::SnapshotDiagnosis* diagnosis, const QString& listingError) const {
  QString html = QStringLiteral("<h2>%1</h2><p>%2</p>").arg(tr("Cannot open %1").arg(path).toHtmlEscaped(), error.toHtmlEscaped());
  if (diagnosis != nullptr) {
    for (const ops::Finding& f : diagnosis->findings) {
      html += QStringLiteral("<p><b>%1 %2</b>: %3<br><i>%4</i> %5</p>")
                  .arg(qs(ops::SeverityName(f.severity)).toHtmlEscaped(), qs(f.rule_id).toHtmlEscaped(),
                       qs(f.message).toHtmlEscaped(), tr("What to do:").toHtmlEscaped(), qs(f.hint).toHtmlEscaped());
    }
  }
  html += QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(tr("What can be shown"));
  auto row = [](const QString& k, const QString& v) {
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
  };
  if (e) {
    html += row(tr("Listed as"), tr("%1 %2 (%3)").arg(qs(ops::SnapshotKindName(e->kind))).arg(e->checkpoint_id).arg(qs(ops::SnapshotHealthName(e->health))));
    if (!e->problem.empty()) html += row(tr("Why"), qs(e->problem));
    if (!e->job_id_hex.empty()) html += row(tr("Job"), qs(e->job_id_hex));
    if (e->trigger_timestamp_ms > 0) html += row(tr("Triggered"), formatTimestamp(e->trigger_timestamp_ms));
  }
  if (diagnosis != nullptr) {
    uint64_t bytes = 0;
    for (const ops::DiagnosedEntry& f : diagnosis->present) bytes += f.size_bytes;
    html += row(tr("Files on disk"), tr("%1 (%2) — see the Files tab").arg(diagnosis->present.size()).arg(humanBytes(bytes)));
    QStringList missing;
    for (const std::string& m : diagnosis->missing) missing << qs(m);
    if (!missing.isEmpty()) html += row(tr("Missing"), missing.join(QStringLiteral(", ")));
  } else {
    html += row(tr("Files on disk"), listingError.isEmpty() ? tr("listing…") : tr("cannot be listed: %1").arg(listingError));
  }
  html += QStringLiteral("</table>");
  return html;
}

void CannotOpenController::show(const QString& path, const QString& error,
                                const std::optional<ops::SnapshotEntry>& entry, base::Fs* fs) {
  m_summary.setHtml(pageHtml(path, error, entry, nullptr));
  m_validate.showUnopenable(path);
  m_shell.showPage(kSummaryPage);
  if (fs == nullptr) {  // the location names no filesystem the inspector has: nothing to list
    Q_EMIT cannotOpenShown(path);
    return;
  }
  const uint64_t generation = m_session.generation();
  // The diagnosis itself (validate's metadata rules, the directory listing, what is missing) is
  // ops::DiagnoseSnapshot's.
  whenReady(this, diagnoseSnapshot(*fs, path), [this, generation, path, error, entry](const Loaded<ops::SnapshotDiagnosis>& r) {
    if (!m_session.isCurrent(generation) || !m_session.showingCannotOpen()) return;
    if (r.ok()) {
      m_summary.setHtml(pageHtml(path, error, entry, r.value.get()));
      m_files.showOnDisk(cannotOpenFileRows(*r.value));
      m_validate.setDiagnosisFindings(r.value->findings);
    } else {
      m_summary.setHtml(pageHtml(path, error, entry, nullptr, r.error));
    }
    Q_EMIT cannotOpenShown(path);
  });
}

}  // namespace ckpt::inspector
