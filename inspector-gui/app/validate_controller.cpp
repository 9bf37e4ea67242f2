#include "app/validate_controller.h"

#include <QLabel>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "app/main_window_util.h"
#include "app/open_session.h"
#include "app/task_progress.h"
#include "models/display.h"
#include "models/loaders.h"
#include "models/sort_proxy.h"
#include "models/table_models.h"

namespace ckpt::inspector {

using detail::base_join;
using detail::fitColumns;
using detail::whenReady;

ValidateController::ValidateController(OpenSession& session, const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_shell(shell) {
  QWidget* window = m_shell.window;
  m_findingsModel = new FindingsModel(this);
  m_findingsView = new QTableView(window);
  m_findingsProxy = new SortProxy(this);
  m_findingsProxy->setSourceModel(m_findingsModel);
  m_findingsView->setModel(m_findingsProxy);
  m_findingsView->setSortingEnabled(true);
  // Messages and paths keep their start (where the rule says what is wrong); the whole text is
  // each cell's tooltip.
  m_findingsView->setTextElideMode(Qt::ElideRight);
  m_findingsView->setWordWrap(false);
  m_findingsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(m_findingsModel, &QAbstractItemModel::modelReset, this, [this] { fitColumns(m_findingsView, FindingsModel::kMessage); });
  m_findingsSummary = new QLabel(tr("Tools > Validate (Ctrl+R) checks the metadata, every file's size and checksum, and key-group coverage."), window);
  m_findingsSummary->setWordWrap(true);
  m_page = new QWidget(window);
  auto* layout = new QVBoxLayout(m_page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_findingsSummary);
  layout->addWidget(m_findingsView, 1);
  connect(m_findingsView, &QTableView::activated, this,
          [this](const QModelIndex& i) { Q_EMIT findingActivated(m_findingsProxy->mapToSource(i).row()); });
}

void ValidateController::clear() {
  m_report.reset();
  m_validateFindings.clear();
  m_validated = false;
  m_checked = Checked::kMetadata;
  m_cancelNote.clear();
  m_findingsModel->setFindings({});
  m_findingsSummary->setText(tr("Not validated yet: Tools > Validate (Ctrl+R)."));
}

void ValidateController::showUnopenable(const QString& path) {
  m_findingsSummary->setText(tr("%1 could not be opened; nothing was validated.").arg(path));
}

void ValidateController::setDiagnosisFindings(const std::vector<ops::Finding>& findings) {
  m_findingsModel->setFindings(findings);
}

const ops::Finding* ValidateController::finding(int row) const {
  return m_findingsModel->finding(m_findingsModel->index(row, 0));
}

QString ValidateController::verdictText() const { return m_findingsSummary->text(); }

// What was checked and ops' verdict for this snapshot: the last complete validate's capability
// table, else ops::CapabilitiesVerdict over the metadata-only checks (ops::Summarize).
QString ValidateController::verdictHtml(const ops::SummaryReport* summary) const {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot) return {};
  QString checked;
  switch (m_checked) {
    case Checked::kMetadata: checked = tr("metadata only (no file was read; Tools > Validate checks sizes and checksums)"); break;
    case Checked::kChecksums: checked = tr("checksums: %1 files, %2 read").arg(m_report->files_checked).arg(humanBytes(m_report->bytes_checked)); break;
    case Checked::kDeep: checked = tr("deep: %1 files, %2 read, %3 records decoded").arg(m_report->files_checked).arg(humanBytes(m_report->bytes_checked)).arg(m_report->records_checked); break;
  }
  std::vector<ops::Capability> caps;
  if (m_report) {
    caps = m_report->capabilities;
  } else {
    std::vector<ops::Finding> known;
    if (summary != nullptr) known = summary->warnings;
    caps = ops::CapabilitiesVerdict(*snapshot, known, {});
  }
  QString html = QStringLiteral("<h3>%1</h3><p><b>%2</b> %3</p>").arg(tr("Verdict"), tr("Checked:"), checked.toHtmlEscaped());
  if (!m_cancelNote.isEmpty()) html += QStringLiteral("<p><b>%1</b></p>").arg(m_cancelNote.toHtmlEscaped());
  if (m_validated && !m_report && m_cancelNote.isEmpty()) html += QStringLiteral("<p>%1</p>").arg(tr("Validating… (results appear when it completes)").toHtmlEscaped());
  html += QStringLiteral("<ul>");
  for (const ops::Capability& c : caps) {
    QString line;
    if (c.supported) line = QStringLiteral("✔ ") + tr("%1: yes").arg(qs(c.operation));
    else if (c.undetermined) line = QStringLiteral("? ") + tr("%1: not determined (could not check %2)").arg(qs(c.operation), qs(base_join(c.unverified_by)));
    else if (!c.blocked_by.empty()) line = QStringLiteral("✘ ") + tr("%1: no, blocked by %2").arg(qs(c.operation), qs(base_join(c.blocked_by)));
    else line = QStringLiteral("✘ ") + tr("%1: no").arg(qs(c.operation));
    if (!c.note.empty()) line += QStringLiteral(" (%1)").arg(qs(c.note));
    if (!m_report && c.supported) line += tr(" — as far as the metadata shows");
    html += QStringLiteral("<li>%1</li>").arg(line.toHtmlEscaped());
  }
  html += QStringLiteral("</ul>");
  return html;
}

void ValidateController::validate(bool deep) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  ops::ValidateOptions options;
  options.deep = deep;
  const uint64_t generation = m_session.generation();
  m_session.taskStarted();
  const QString what = deep ? tr("Deep validate") : tr("Validate");
  std::shared_ptr<TaskState> task = m_shell.progress->start(what);
  // The previous run's results go now: a run that is cancelled or fails leaves none behind.
  m_validated = true;
  m_report.reset();
  m_checked = Checked::kMetadata;
  m_cancelNote.clear();
  m_validateFindings.clear();
  m_findingsModel->setFindings({});
  m_findingsSummary->setText(tr("%1 running…").arg(what));
  Q_EMIT changed();
  whenReady(this, validateSnapshot(*m_session.fs(), qs(snapshot->dir), options, task),
            [this, generation, what, deep, task](const Loaded<ops::ValidateReport>& r) {
              m_session.taskEnded();
              const TaskState::View progress = task->snapshot();
              m_shell.progress->finish();
              if (!m_session.isCurrent(generation)) return;
              if (!r.ok()) {
                m_validated = false;
                m_cancelNote = r.code == base::StatusCode::kCancelled
                                   ? tr("%1 was cancelled (after %2 of %3); none of its results are shown. The verdict below is from the metadata only.")
                                         .arg(what, humanBytes(progress.done), progress.total ? humanBytes(progress.total) : tr("unknown"))
                                   : tr("%1 failed: %2. The verdict below is from the metadata only.").arg(what, r.error);
                m_findingsSummary->setText(m_cancelNote);
                m_shell.status(m_cancelNote);
                Q_EMIT changed();
                Q_EMIT validationFinished(false);
                return;
              }
              m_report = r.value;
              m_checked = deep ? Checked::kDeep : Checked::kChecksums;
              m_validateFindings = r.value->findings;
              QStringList caps;
              for (const ops::Capability& c : r.value->capabilities) {
                QString mark = c.supported ? QStringLiteral("✔ ") : c.undetermined ? QStringLiteral("? ") : QStringLiteral("✘ ");
                QString why;
                if (!c.blocked_by.empty()) why = tr(" (blocked by %1)").arg(qs(base_join(c.blocked_by)));
                else if (!c.unverified_by.empty()) why = tr(" (not determined: %1 not checked)").arg(qs(base_join(c.unverified_by)));
                caps << mark + qs(c.operation) + why;
              }
              const size_t errors = std::count_if(r.value->findings.begin(), r.value->findings.end(),
                                                  [](const ops::Finding& f) { return f.severity == ops::Severity::kError; });
              m_findingsSummary->setText(tr("%1 (%2): %3 findings, %4 errors; %5 rules checked%6; %7 files and %8 read%9.\nVerdict: %10")
                                             .arg(qs(r.value->snapshot_type), deep ? tr("deep: every record decoded") : tr("checksums"))
                                             .arg(r.value->findings.size()).arg(errors)
                                             .arg(r.value->checked_rules.size())
                                             .arg(r.value->not_checked.empty() ? QString() : tr(", %1 could not be checked here").arg(r.value->not_checked.size()))
                                             .arg(r.value->files_checked).arg(humanBytes(r.value->bytes_checked))
                                             .arg(deep ? tr(", %1 records").arg(r.value->records_checked) : QString())
                                             .arg(caps.join(QStringLiteral("; "))));
              m_findingsModel->setFindings(r.value->findings);
              m_shell.status(tr("validate: %1 findings, %2 files, %3 checked")
                                 .arg(r.value->findings.size()).arg(r.value->files_checked)
                                 .arg(humanBytes(r.value->bytes_checked)));
              Q_EMIT changed();
              if (!r.value->findings.empty()) m_shell.showPage(kFindingsPage);
              Q_EMIT validationFinished(true);
            });
}

}  // namespace ckpt::inspector
