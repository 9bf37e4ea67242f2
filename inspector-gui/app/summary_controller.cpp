#include "app/summary_controller.h"

#include <QTextBrowser>
#include <QUrl>
#include <algorithm>
#include <vector>

#include "app/main_window_util.h"
#include "app/open_session.h"
#include "app/task_progress.h"
#include "app/validate_controller.h"
#include "ckpt/ops/operator_label.h"
#include "models/display.h"
#include "models/loaders.h"

namespace ckpt::inspector {

using detail::whenReady;

namespace {

QString summaryTableRow(const QString& k, const QString& v) {
  return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
}

// A resume position as `ckpt-tool positions` prints it (docs/positions.md): Kafka's special
// start offsets by name, the engine file source's finished split as "done".
QString offsetText(const std::optional<int64_t>& offset, bool kafka, bool engineFile) {
  if (!offset) return QStringLiteral("—");
  if (kafka && *offset == ops::kKafkaEarliestOffset) return QStringLiteral("earliest");
  if (kafka && *offset == ops::kKafkaLatestOffset) return QStringLiteral("latest");
  if (kafka && *offset == ops::kKafkaCommittedOffset) return QStringLiteral("committed");
  if (engineFile && *offset == -1) return QStringLiteral("done");
  return QString::number(*offset);
}

QString cell(const QString& text) { return QStringLiteral("<td>%1</td>").arg(text.toHtmlEscaped()); }

// One operator's splits and sink transactions as HTML tables.
QString positionsHtml(const ops::OperatorPositions& op) {
  QString html = QStringLiteral("<p><b>%1</b> (%2)</p>")
                     .arg(qs(op.name).toHtmlEscaped(), qs(ops::ConnectorKindName(op.connector)).toHtmlEscaped());
  if (!op.splits.empty()) {
    html += QStringLiteral("<table cellspacing=4><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
                .arg(SummaryController::tr("Split"), SummaryController::tr("Subtask"),
                     SummaryController::tr("Topic/partition or path"), SummaryController::tr("Resume at"),
                     SummaryController::tr("Stop at"));
    for (const ops::SourcePosition& p : op.splits) {
      const bool kafka = !p.topic.empty();
      const QString who = p.origin == ops::PositionOrigin::kReader && p.subtask >= 0
                              ? QString::number(p.subtask)
                              : qs(ops::PositionOriginName(p.origin));
      const QString where = kafka ? QStringLiteral("%1/%2").arg(qs(p.topic)).arg(p.partition)
                                  : !p.path.empty() ? qs(p.path) : QStringLiteral("—");
      QString resume, stop = QStringLiteral("—");
      if (p.next_value) {
        resume = QString::number(*p.next_value);
        if (p.end_value) stop = SummaryController::tr("%1 (exclusive)").arg(*p.end_value);
      } else if (p.next_offset) {
        resume = offsetText(p.next_offset, true, false);
        stop = p.stopping_offset ? QString::number(*p.stopping_offset) : SummaryController::tr("none");
      } else {
        resume = offsetText(p.resume_offset, kafka, op.connector == ops::ConnectorKind::kEngineFileSource);
        if (p.records_to_skip && *p.records_to_skip > 0) resume += SummaryController::tr(" skip %1").arg(*p.records_to_skip);
        if (p.split_offset && p.split_length) stop = QString::number(*p.split_offset + *p.split_length);
      }
      html += QStringLiteral("<tr>") + cell(qs(p.split_id)) + cell(who) + cell(where) + cell(resume) + cell(stop) +
              QStringLiteral("</tr>");
    }
    html += QStringLiteral("</table>");
  }
  if (op.sink) {
    if (!op.sink->transactional_id_prefix.empty()) {
      html += QStringLiteral("<p>%1</p>").arg(SummaryController::tr("Transactional ID prefix: %1")
                                                  .arg(qs(op.sink->transactional_id_prefix))
                                                  .toHtmlEscaped());
    }
    if (op.sink->transactions.empty()) {
      html += QStringLiteral("<p>%1</p>").arg(SummaryController::tr("Nothing pending: a restore commits and aborts nothing.").toHtmlEscaped());
    } else {
      html += QStringLiteral("<table cellspacing=4><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
                  .arg(SummaryController::tr("Subtask"), SummaryController::tr("Checkpoint"),
                       SummaryController::tr("Transaction / pending file"), SummaryController::tr("Final file"),
                       SummaryController::tr("On restore"));
      for (const ops::SinkTransaction& t : op.sink->transactions) {
        html += QStringLiteral("<tr>") + cell(t.subtask >= 0 ? QString::number(t.subtask) : QStringLiteral("—")) +
                cell(t.checkpoint_id != 0 ? QString::number(t.checkpoint_id) : QStringLiteral("—")) +
                cell(qs(t.transactional_id.empty() ? t.pending_path : t.transactional_id)) +
                cell(t.final_path.empty() ? QStringLiteral("—") : qs(t.final_path)) +
                cell(qs(ops::SinkActionName(t.action))) + QStringLiteral("</tr>");
      }
      html += QStringLiteral("</table>");
    }
  }
  return html;
}

}  // namespace

SummaryController::SummaryController(OpenSession& session, ValidateController& validate,
                                     const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_validate(validate), m_shell(shell) {
  m_summary = new QTextBrowser(m_shell.window);
  m_summary->setOpenLinks(false);
  connect(m_summary, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == QLatin1String("action") && url.path() == QLatin1String("open")) Q_EMIT openDialogRequested();
    if (url.scheme() == QLatin1String("recent")) Q_EMIT recentRequested(url.path().toInt());
  });
}

void SummaryController::showStartPage(const QStringList& recent) {
  QString html = QStringLiteral("<h2>ckpt-inspector</h2><p><a href=\"action:open\">%1</a> %2</p><p>%3</p>")
                     .arg(tr("Open…").toHtmlEscaped(),
                          tr("a savepoint, a checkpoint or a checkpoint root (Ctrl+O).").toHtmlEscaped(),
                          tr("Or drop a snapshot directory, its _metadata or a checkpoint root on this window.").toHtmlEscaped());
  if (!recent.isEmpty()) {
    html += QStringLiteral("<h3>%1</h3><ul>").arg(tr("Recent"));
    for (int i = 0; i < recent.size(); ++i) {
      html += QStringLiteral("<li><a href=\"recent:%1\">%2</a></li>").arg(i).arg(recent[i].toHtmlEscaped());
    }
    html += QStringLiteral("</ul>");
  }
  m_summary->setHtml(html);
  m_shell.showPage(kSummaryPage);
}

void SummaryController::showEmptyRoot(const QString& path) {
  m_summary->setHtml(QStringLiteral("<h2>%1</h2><p>%2</p>")
                         .arg(tr("No snapshot in %1").arg(path).toHtmlEscaped(),
                              tr("This folder holds no checkpoint (chk-<n>), savepoint or _metadata up to three levels down. Open a snapshot directory, its _metadata, or a checkpoint root.").toHtmlEscaped()));
  m_shell.showPage(kSummaryPage);
}

void SummaryController::setHtml(const QString& html) { m_summary->setHtml(html); }

void SummaryController::clear() {
  m_stats.reset();
  m_summaryReport.reset();
  m_positions.reset();
  m_positionsError.clear();
}

QString SummaryController::text() const { return m_summary->toPlainText(); }

void SummaryController::loadSummary() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  const uint64_t generation = m_session.generation();
  m_session.taskStarted();
  whenReady(this, summarize(*m_session.fs(), snapshot, m_stats), [this, generation](const Loaded<ops::SummaryReport>& r) {
    m_session.taskEnded();
    if (!m_session.isCurrent(generation)) return;
    if (r.ok()) {
      m_summaryReport = r.value;
    } else {
      m_shell.status(tr("summary: %1").arg(r.error));
    }
    update();
  });
}

void SummaryController::loadPositions() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  const uint64_t generation = m_session.generation();
  m_session.taskStarted();
  whenReady(this, computePositions(*m_session.fs(), snapshot), [this, generation](const Loaded<ops::PositionsReport>& r) {
    m_session.taskEnded();
    if (!m_session.isCurrent(generation)) return;
    if (r.ok()) {
      m_positions = r.value;
    } else {
      m_positionsError = r.error;
      m_shell.status(tr("positions: %1").arg(r.error));
    }
    update();
  });
}

void SummaryController::loadStats() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || m_session.fs() == nullptr) return;
  const uint64_t generation = m_session.generation();
  m_session.taskStarted();
  TaskProgress* progress = m_shell.progress;
  std::shared_ptr<TaskState> task = progress->running() ? std::make_shared<TaskState>() : progress->start(tr("Statistics"));
  whenReady(this, computeStats(*m_session.fs(), snapshot, task), [this, generation, task](const Loaded<ops::StatsReport>& r) {
    m_session.taskEnded();
    if (m_shell.progress->running() && !m_validate.validated()) m_shell.progress->finish();
    if (!m_session.isCurrent(generation)) return;
    if (r.ok()) {
      m_stats = r.value;
      Q_EMIT statsArrived(m_stats);
      loadSummary();  // again, now with the stats findings
    } else {
      m_shell.status(tr("statistics: %1").arg(r.error));
    }
    update();
    Q_EMIT statsLoaded();
  });
}

void SummaryController::update() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot) return;
  const ops::Snapshot& s = *snapshot;
  const auto row = summaryTableRow;
  QString kind = qs(ops::SnapshotKindName(s.kind));
  if (s.kind == ops::SnapshotKind::kSavepoint) kind += QStringLiteral(" (%1)").arg(qs(ops::SavepointFormatName(s.savepoint_format)));
  else kind += QStringLiteral(" (%1)").arg(qs(ops::CheckpointTypeName(s.checkpoint_type)));
  QString html = QStringLiteral("<h2>%1 %2</h2><table cellspacing=4>").arg(kind.toHtmlEscaped()).arg(s.checkpoint_id);
  html += row(tr("Directory"), qs(s.dir));
  // Unknown values print as "—", never as "()" or 0.
  const QString unknown = QStringLiteral("—");
  const QString job_name = s.job_name.empty() ? QString() : qs(s.job_name);
  const QString job_id = s.job_id_hex.empty() ? QString() : qs(s.job_id_hex);
  html += row(tr("Job"), job_name.isEmpty() && job_id.isEmpty() ? unknown
                         : job_name.isEmpty()                   ? job_id
                         : job_id.isEmpty()                     ? job_name
                                                                : tr("%1 (%2)").arg(job_name, job_id));
  html += row(tr("Format"), tr("version %1, written by %2 %3").arg(s.format_version).arg(qs(s.engine_name), qs(s.engine_version)));
  html += row(tr("Mode"), qs(ops::CheckpointingModeName(s.mode)) + (s.post_action != ops::PostAction::kUnspecified ? tr(", post action %1").arg(qs(ops::PostActionName(s.post_action))) : QString()));
  html += row(tr("Triggered"), formatTimestamp(s.trigger_timestamp_ms));
  html += row(tr("Completed"), s.metrics.end_to_end_duration > 0
                                   ? tr("%1 (end-to-end %2 ms)").arg(formatTimestamp(s.completion_timestamp_ms)).arg(s.metrics.end_to_end_duration)
                                   : formatTimestamp(s.completion_timestamp_ms));
  html += row(tr("Full size"), humanBytes(s.full_size_bytes));
  html += row(tr("Checkpointed size"), humanBytes(s.checkpointed_size_bytes));
  html += row(tr("Files"), tr("%1 files, %2").arg(s.files.size()).arg(humanBytes(s.total_file_bytes)));
  // docs/sizes.md: inline state counts in its operators; the rest of `_metadata` on its own.
  html += row(tr("_metadata"), tr("%1 besides %2 of inline state (%3 on disk)")
                                   .arg(humanBytes(s.metadata_own_bytes()), humanBytes(s.inline_state_bytes),
                                        humanBytes(s.metadata_size_bytes)));
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
  for (const auto& f : m_validate.findings()) add(f);
  html += m_validate.verdictHtml(m_summaryReport.get());
  html += QStringLiteral("<h3>%1</h3>").arg(tr("Warnings"));
  if (warnings.isEmpty()) {
    QString none;
    using Checked = ValidateController::Checked;
    if (m_validate.checked() == Checked::kDeep) none = tr("None: the deep validate (every record decoded) found no problems.");
    else if (m_validate.checked() == Checked::kChecksums) none = tr("None: validate (sizes and checksums) found no problems.");
    else none = tr("None in the metadata. Files were not read: Tools > Validate checks sizes and checksums.");
    html += QStringLiteral("<p>%1</p>").arg(none);
  } else {
    html += QStringLiteral("<ul>");
    for (const QString& w : warnings) html += QStringLiteral("<li>%1</li>").arg(w.toHtmlEscaped());
    html += QStringLiteral("</ul>");
  }
  // Where each source resumes and what each sink commits on restore (ops::ComputePositions).
  if (m_positions && !m_positions->operators.empty()) {
    html += QStringLiteral("<h3>%1</h3>").arg(tr("Source positions"));
    for (const ops::OperatorPositions& op : m_positions->operators) html += positionsHtml(op);
    if (!m_positions->findings.empty()) {
      html += QStringLiteral("<ul>");
      for (const ops::Finding& f : m_positions->findings) {
        html += QStringLiteral("<li>%1</li>").arg(QStringLiteral("%1 %2: %3").arg(qs(ops::SeverityName(f.severity)), qs(f.rule_id), qs(f.message)).toHtmlEscaped());
      }
      html += QStringLiteral("</ul>");
    }
  } else if (!m_positionsError.isEmpty()) {
    html += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(tr("Source positions"), m_positionsError.toHtmlEscaped());
  }
  std::vector<const ops::OperatorInfo*> ops_by_size;
  for (const auto& op : s.operators) ops_by_size.push_back(&op);
  std::sort(ops_by_size.begin(), ops_by_size.end(), [](auto* a, auto* b) { return a->total_bytes > b->total_bytes; });
  html += QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(tr("Largest operators"));
  const uint64_t top = ops_by_size.empty() ? 1 : std::max<uint64_t>(1, ops_by_size.front()->total_bytes);
  const QString bar = m_shell.window->palette().color(QPalette::Highlight).name();
  for (size_t i = 0; i < std::min<size_t>(5, ops_by_size.size()); ++i) {
    const auto* op = ops_by_size[i];
    const int w = static_cast<int>(200.0 * static_cast<double>(op->total_bytes) / static_cast<double>(top));
    html += QStringLiteral("<tr><td>%1</td><td>%2</td><td><table cellspacing=0 cellpadding=0><tr><td width=%3 bgcolor=%4>&nbsp;</td></tr></table></td><td>p=%5</td></tr>")
                .arg(qs(ops::OperatorLabel(op->name, op->uid, op->id_hex)).toHtmlEscaped(), humanBytes(op->total_bytes))
                .arg(std::max(1, w)).arg(bar).arg(op->parallelism);
  }
  html += QStringLiteral("</table>");
  m_summary->setHtml(html);
}

}  // namespace ckpt::inspector
