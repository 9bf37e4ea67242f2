// MainWindow's Summary page: a loaded snapshot's summary and a "Cannot open" page.
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

// The page of a snapshot that does not open: the error, validate's rule and hint for it, what
// the root listing knows, and the files on disk (Files tab). Nothing of another snapshot stays.
void MainWindow::showCannotOpen(const QString& path, const QString& error, const ops::SnapshotEntry* entry) {
  clearSnapshotViews();
  m_cannotOpen = true;
  m_shownPath = path;
  setWindowTitle(tr("Cannot open %1 — ckpt-inspector").arg(path));
  statusBar()->showMessage(tr("Cannot open %1").arg(path));
  auto page = [this, path, error](const std::optional<ops::SnapshotEntry>& e, const Unopenable* diag) {
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p>").arg(tr("Cannot open %1").arg(path).toHtmlEscaped(), error.toHtmlEscaped());
    if (diag != nullptr) {
      for (const ops::Finding& f : diag->findings) {
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
    if (diag != nullptr) {
      uint64_t bytes = 0;
      for (const ops::FileRow& f : diag->files) bytes += f.size_bytes;
      html += row(tr("Files on disk"), tr("%1 (%2) — see the Files tab").arg(diag->files.size()).arg(humanBytes(bytes)));
    } else {
      html += row(tr("Files on disk"), tr("listing…"));
    }
    html += QStringLiteral("</table>");
    m_summary->setHtml(html);
  };
  std::optional<ops::SnapshotEntry> e;
  if (entry != nullptr) e = *entry;
  page(e, nullptr);
  m_findingsSummary->setText(tr("%1 could not be opened; nothing was validated.").arg(path));
  showPage(kSummaryPage);
  const uint64_t generation = m_generation;
  whenReady(this, diagnoseUnopenable(path), [this, generation, page, e, path](const Loaded<Unopenable>& r) {
    if (generation != m_generation || !m_cannotOpen) return;
    if (r.ok()) {
      page(e, r.value.get());
      m_filesModel->setRows(r.value->files);
      m_findingsModel->setFindings(r.value->findings);
    }
    Q_EMIT cannotOpenShown(path);
  });
}

void MainWindow::updateSummary() {
  if (!m_snapshot) return;
  const ops::Snapshot& s = *m_snapshot;
  auto row = [](const QString& k, const QString& v) {
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
  };
  QString kind = qs(ops::SnapshotKindName(s.kind));
  if (s.kind == ops::SnapshotKind::kSavepoint) kind += QStringLiteral(" (%1)").arg(qs(ops::SavepointFormatName(s.savepoint_format)));
  else kind += QStringLiteral(" (%1)").arg(qs(ops::CheckpointTypeName(s.checkpoint_type)));
  QString html = QStringLiteral("<h2>%1 %2</h2><table cellspacing=4>").arg(kind.toHtmlEscaped()).arg(s.checkpoint_id);
  html += row(tr("Directory"), qs(s.dir));
  html += row(tr("Job"), tr("%1 (%2)").arg(qs(s.job_name), qs(s.job_id_hex)));
  html += row(tr("Format"), tr("version %1, written by %2 %3").arg(s.format_version).arg(qs(s.engine_name), qs(s.engine_version)));
  html += row(tr("Mode"), qs(ops::CheckpointingModeName(s.mode)) + (s.post_action != ops::PostAction::kUnspecified ? tr(", post action %1").arg(qs(ops::PostActionName(s.post_action))) : QString()));
  html += row(tr("Triggered"), formatTimestamp(s.trigger_timestamp_ms));
  html += row(tr("Completed"), tr("%1 (end-to-end %2 ms)").arg(formatTimestamp(s.completion_timestamp_ms)).arg(s.metrics.end_to_end_duration));
  html += row(tr("Full size"), humanBytes(s.full_size_bytes));
  html += row(tr("Checkpointed size"), humanBytes(s.checkpointed_size_bytes));
  html += row(tr("Files"), tr("%1 files, %2 (metadata %3)").arg(s.files.size()).arg(humanBytes(s.total_file_bytes), humanBytes(s.metadata_size_bytes)));
  size_t subtasks = 0;
  for (const auto& op : s.operators) subtasks += op.subtasks.size();
  html += row(tr("Operators"), tr("%1 operators, %2 subtask states").arg(s.operators.size()).arg(subtasks));
  if (s.restored_from) html += row(tr("Restored from"), tr("%1 (checkpoint %2)").arg(qs(s.restored_from->path)).arg(s.restored_from->checkpoint_id));
  html += QStringLiteral("</table><p><small>%1</small></p>").arg(sizeExplanation().toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));

  // Every warning is computed by ops (validate's rules, stats findings); the page only shows it.
  QStringList warnings;
  std::vector<ops::Finding> shown;
  auto add = [&](const ops::Finding& f) {
    if (f.severity == ops::Severity::kInfo) return;
    if (std::find(shown.begin(), shown.end(), f) != shown.end()) return;
    shown.push_back(f);
    warnings << QStringLiteral("%1 %2: %3").arg(qs(ops::SeverityName(f.severity)), qs(f.rule_id), qs(f.message));
  };
  if (m_summaryReport) {
    for (const auto& f : m_summaryReport->warnings) add(f);
    for (const auto& n : m_summaryReport->notes) warnings << qs(n);
  }
  for (const auto& f : m_validateFindings) add(f);
  html += verdictHtml();
  html += QStringLiteral("<h3>%1</h3>").arg(tr("Warnings"));
  if (warnings.isEmpty()) {
    QString none;
    if (m_checked == Checked::kDeep) none = tr("None: the deep validate (every record decoded) found no problems.");
    else if (m_checked == Checked::kChecksums) none = tr("None: validate (sizes and checksums) found no problems.");
    else none = tr("None in the metadata. Files were not read: Tools > Validate checks sizes and checksums.");
    html += QStringLiteral("<p>%1</p>").arg(none);
  } else {
    html += QStringLiteral("<ul>");
    for (const QString& w : warnings) html += QStringLiteral("<li>%1</li>").arg(w.toHtmlEscaped());
    html += QStringLiteral("</ul>");
  }
  std::vector<const ops::OperatorInfo*> ops_by_size;
  for (const auto& op : s.operators) ops_by_size.push_back(&op);
  std::sort(ops_by_size.begin(), ops_by_size.end(), [](auto* a, auto* b) { return a->total_bytes > b->total_bytes; });
  html += QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(tr("Largest operators"));
  const uint64_t top = ops_by_size.empty() ? 1 : std::max<uint64_t>(1, ops_by_size.front()->total_bytes);
  const QString bar = palette().color(QPalette::Highlight).name();
  for (size_t i = 0; i < std::min<size_t>(5, ops_by_size.size()); ++i) {
    const auto* op = ops_by_size[i];
    const int w = static_cast<int>(200.0 * static_cast<double>(op->total_bytes) / static_cast<double>(top));
    html += QStringLiteral("<tr><td>%1</td><td>%2</td><td><table cellspacing=0 cellpadding=0><tr><td width=%3 bgcolor=%4>&nbsp;</td></tr></table></td><td>p=%5</td></tr>")
                .arg(qs(op->name.empty() ? op->id_hex : op->name).toHtmlEscaped(), humanBytes(op->total_bytes))
                .arg(std::max(1, w)).arg(bar).arg(op->parallelism);
  }
  html += QStringLiteral("</table>");
  m_summary->setHtml(html);
}

}  // namespace ckpt::inspector
