// MainWindow's background validate, its verdict and the findings it links to the tree.
#include "app/main_window.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "app/charts.h"
#include "app/main_window_util.h"
#include "app/diff_page.h"
#include "app/hex_view.h"
#include "app/history_page.h"
#include "app/state_browser.h"
#include "app/task_progress.h"
#include "app/treemap_view.h"
#include "app/write_dialogs.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#include "models/snapshot_list_model.h"
#include "models/sort_proxy.h"
#include "models/table_models.h"


namespace ckpt::inspector {

using detail::base_join;
using detail::fitColumns;
using detail::whenReady;

QString MainWindow::verdictText() const { return m_findingsSummary->text(); }

// What was checked and ops' verdict for this snapshot: the last complete validate's capability
// table, else ops::CapabilitiesVerdict over the metadata-only checks (ops::Summarize).
QString MainWindow::verdictHtml() const {
  if (!m_snapshot) return {};
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
    if (m_summaryReport) known = m_summaryReport->warnings;
    caps = ops::CapabilitiesVerdict(*m_snapshot, known, {});
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

void MainWindow::validateSnapshot(bool deep) {
  if (!m_snapshot) return;
  ops::ValidateOptions options;
  options.deep = deep;
  const uint64_t generation = m_generation;
  ++m_running;
  const QString what = deep ? tr("Deep validate") : tr("Validate");
  std::shared_ptr<TaskState> task = m_progress->start(what);
  // The previous run's results go now: a run that is cancelled or fails leaves none behind.
  m_validated = true;
  m_report.reset();
  m_checked = Checked::kMetadata;
  m_cancelNote.clear();
  m_validateFindings.clear();
  m_findingsModel->setFindings({});
  m_findingsSummary->setText(tr("%1 running…").arg(what));
  updateSummary();
  whenReady(this, inspector::validateSnapshot(qs(m_snapshot->dir), options, task),
            [this, generation, what, deep, task](const Loaded<ops::ValidateReport>& r) {
              --m_running;
              const TaskState::View progress = task->snapshot();
              m_progress->finish();
              if (generation != m_generation) return;
              if (!r.ok()) {
                m_validated = false;
                m_cancelNote = r.code == base::StatusCode::kCancelled
                                   ? tr("%1 was cancelled (after %2 of %3); none of its results are shown. The verdict below is from the metadata only.")
                                         .arg(what, humanBytes(progress.done), progress.total ? humanBytes(progress.total) : tr("unknown"))
                                   : tr("%1 failed: %2. The verdict below is from the metadata only.").arg(what, r.error);
                m_findingsSummary->setText(m_cancelNote);
                statusBar()->showMessage(m_cancelNote);
                updateSummary();
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
              m_findingsSummary->setText(tr("%1 (%2): %3 findings, %4 errors; %5 rules checked%6; %7 files and %8 read%9.\\nVerdict: %10")
                                             .arg(qs(r.value->snapshot_type), deep ? tr("deep: every record decoded") : tr("checksums"))
                                             .arg(r.value->findings.size()).arg(errors)
                                             .arg(r.value->checked_rules.size())
                                             .arg(r.value->not_checked.empty() ? QString() : tr(", %1 could not be checked here").arg(r.value->not_checked.size()))
                                             .arg(r.value->files_checked).arg(humanBytes(r.value->bytes_checked))
                                             .arg(deep ? tr(", %1 records").arg(r.value->records_checked) : QString())
                                             .arg(caps.join(QStringLiteral("; "))));
              m_findingsModel->setFindings(r.value->findings);
              statusBar()->showMessage(tr("validate: %1 findings, %2 files, %3 checked")
                                           .arg(r.value->findings.size()).arg(r.value->files_checked)
                                           .arg(humanBytes(r.value->bytes_checked)));
              updateSummary();
              if (!r.value->findings.empty()) showPage(kFindingsPage);
              Q_EMIT validationFinished(true);
            });
}

void MainWindow::showFinding(int row) {
  const ops::Finding* f = m_findingsModel->finding(m_findingsModel->index(row, 0));
  if (f == nullptr || !m_snapshot) return;
  const ops::Finding finding = *f;
  const QModelIndex idx = m_treeModel->indexForLocation(finding.location);
  showPage(kDetailsPage);
  if (!idx.isValid()) {
    statusBar()->showMessage(tr("%1 names no node of the tree: %2").arg(qs(finding.rule_id), qs(finding.message)));
    return;
  }
  m_tree->scrollTo(idx);
  m_tree->setCurrentIndex(idx);
  if (idx.data(kNodeKindRole).toInt() == DetailTreeModel::kFile) {
    showFileBytes(idx.data(kFileIndexRole).toInt(), finding.location.key_group, finding);
  }
  m_decoded->appendPlainText(QStringLiteral("\n%1 %2: %3\n%4").arg(qs(ops::SeverityName(finding.severity)), qs(finding.rule_id), qs(finding.message), qs(finding.hint)));
}

}  // namespace ckpt::inspector
