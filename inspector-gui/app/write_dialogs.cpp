#include "app/write_dialogs.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <algorithm>
#include <cstdint>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTextEdit>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/task_progress.h"
#include "ckpt/ops/mapping.h"
#include "ckpt/ops/operator_label.h"
#include "models/display.h"
#include "models/tone.h"

namespace ckpt::inspector {
namespace {

QString reportText(const std::string& what, const ops::ValidateReport& r) {
  size_t errors = 0, warnings = 0;
  for (const auto& f : r.findings) {
    errors += f.severity == ops::Severity::kError;
    warnings += f.severity == ops::Severity::kWarning;
  }
  QString text = QCoreApplication::translate("ckpt-inspector", "%1: %2 — %3 errors, %4 warnings, %5 files checked")
                     .arg(qs(what), qs(r.snapshot_type)).arg(errors).arg(warnings).arg(r.files_checked);
  for (const auto& f : r.findings) text += QStringLiteral("\n  %1 %2: %3").arg(qs(ops::SeverityName(f.severity)), qs(f.rule_id), qs(f.message));
  return text;
}

// One line per snapshot a prune kept, as ops' post-prune check found it.
QString pruneVerifiedText(const ops::PruneVerifiedSnapshot& v) {
  QString text = QCoreApplication::translate("ckpt-inspector", "%1 (%2): %3")
                     .arg(qs(v.path), qs(ops::SnapshotVerdictName(v.verdict)),
                          v.opens ? QCoreApplication::translate("ckpt-inspector", "opens")
                                  : QCoreApplication::translate("ckpt-inspector", "does not open"));
  if (v.restorable) {
    text += *v.restorable ? QCoreApplication::translate("ckpt-inspector", ", restores")
                          : QCoreApplication::translate("ckpt-inspector", ", does not restore");
  }
  if (!v.problem.empty()) text += QStringLiteral(" — ") + qs(v.problem);
  return text;
}

}  // namespace

RemapDialog::RemapDialog(base::Fs& fs, const QString& snapshot, QWidget* parent)
    : QDialog(parent),
      m_fs(fs),
      m_snapshot(snapshot),
      m_mappings(new QPlainTextEdit(this)),
      m_drops(new QLineEdit(this)),
      m_against(new QLineEdit(this)),
      m_output(new QLineEdit(this)),
      m_plan(new QTreeWidget(this)),
      m_result(new QTextEdit(this)),
      m_planButton(new QPushButton(tr("Show plan (dry run)"), this)),
      m_writeButton(new QPushButton(tr("Write remapped savepoint"), this)),
      m_progress(new TaskProgress(this)) {
  setWindowTitle(tr("Remap operator IDs — %1").arg(snapshot));
  m_mappings->setPlaceholderText(tr("OLD=NEW per line: OLD is an operator ID, uid or name; NEW an ID or uid"));
  m_mappings->setMaximumHeight(90);
  m_drops->setPlaceholderText(tr("operators whose state to leave out, comma-separated"));
  m_against->setPlaceholderText(tr("optional: new job spec (JSON) to map onto"));
  m_output->setPlaceholderText(tr("new directory (must not exist)"));
  auto* form = new QFormLayout;
  form->addRow(tr("Mappings"), m_mappings);
  form->addRow(tr("Drop"), m_drops);
  form->addRow(tr("Against job"), m_against);
  form->addRow(tr("Output"), m_output);
  m_plan->setHeaderLabels({tr("Operator"), tr("Action"), tr("Old ID"), tr("New ID / uid"), tr("Reason"), tr("State")});
  m_plan->setRootIsDecorated(false);
  m_result->setReadOnly(true);
  m_writeButton->setEnabled(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(m_planButton, QDialogButtonBox::ActionRole);
  buttons->addButton(m_writeButton, QDialogButtonBox::ActionRole);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_plan, 2);
  layout->addWidget(m_result, 1);
  layout->addWidget(m_progress);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_planButton, &QPushButton::clicked, this, &RemapDialog::plan);
  connect(m_writeButton, &QPushButton::clicked, this, &RemapDialog::write);
  // Any edit invalidates the plan on screen: the write must match what was reviewed.
  auto stale = [this] {
    m_planCurrent = false;
    m_writeButton->setEnabled(false);
  };
  connect(m_mappings, &QPlainTextEdit::textChanged, this, stale);
  for (QLineEdit* e : {m_drops, m_against, m_output}) connect(e, &QLineEdit::textChanged, this, stale);
  resize(820, 560);
}

void RemapDialog::setMappings(const QString& text) { m_mappings->setPlainText(text); }
void RemapDialog::setDrops(const QString& text) { m_drops->setText(text); }
void RemapDialog::setAgainstJob(const QString& path) { m_against->setText(path); }
void RemapDialog::setOutputDir(const QString& dir) { m_output->setText(dir); }
bool RemapDialog::canWrite() const { return m_writeButton->isEnabled(); }
QString RemapDialog::message() const { return m_result->toPlainText(); }

ops::RemapOptions RemapDialog::options(bool dryRun) const {
  ops::RemapOptions o;
  // ops parses the mappings for both faces; run() has already refused text it cannot parse.
  o.mappings = ops::ParseMappingLines(m_mappings->toPlainText().toStdString())
                   .ValueOr(std::vector<ops::OperatorMapping>{});
  for (const QString& d : m_drops->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) o.drop.push_back(d.trimmed().toStdString());
  o.against_job_path = m_against->text().trimmed().toStdString();
  o.dry_run = dryRun;
  return o;
}

void RemapDialog::plan() { run(true); }

void RemapDialog::write() {
  if (!m_planCurrent) return;
  run(false);
}

void RemapDialog::run(bool dryRun) {
  if (auto parsed = ops::ParseMappingLines(m_mappings->toPlainText().toStdString()); !parsed.ok()) {
    m_result->setPlainText(qs(parsed.status().ToString()));
    m_planCurrent = false;
    m_writeButton->setEnabled(false);
    if (dryRun) {
      Q_EMIT planned(false);
    } else {
      Q_EMIT written(false);
    }
    return;
  }
  m_planButton->setEnabled(false);
  m_writeButton->setEnabled(false);
  auto task = m_progress->start(dryRun ? tr("Planning") : tr("Writing"));
  auto* watcher = new QFutureWatcher<Loaded<RemapOutcome>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, dryRun] {
    const auto r = watcher->result();
    watcher->deleteLater();
    m_progress->finish();
    m_planButton->setEnabled(true);
    if (!r.ok()) {
      m_result->setPlainText(r.error);
      m_planCurrent = false;
      if (dryRun) {
        Q_EMIT planned(false);
      } else {
        Q_EMIT written(false);
      }
      return;
    }
    m_outcome = r.value;
    showOutcome(*r.value);
    m_planCurrent = dryRun;
    // A mapping that matches no operator is refused before anything is written: fix it first.
    m_writeButton->setEnabled(dryRun && r.value->result.unmatched.empty());
    if (dryRun && !r.value->result.unmatched.empty()) {
      m_result->append(tr("\nWrite is disabled: every mapping must match an operator of the snapshot."));
    }
    if (dryRun) {
      Q_EMIT planned(true);
    } else {
      Q_EMIT written(true);
    }
  });
  watcher->setFuture(remapSnapshot(m_fs, m_snapshot, m_output->text().trimmed(), options(dryRun), task));
}

void RemapDialog::showOutcome(const RemapOutcome& outcome) {
  const ops::RemapResult& r = outcome.result;
  m_plan->clear();
  for (const ops::RemapEntry& e : r.operators) {
    auto* item = new QTreeWidgetItem(m_plan, {qs(ops::OperatorLabel(e.name, e.old_uid, e.old_id_hex)), qs(ops::RemapActionName(e.action)), qs(e.old_id_hex),
                                              qs(e.new_id_hex) + (e.new_uid.empty() ? QString() : QStringLiteral(" (%1)").arg(qs(e.new_uid))),
                                              qs(e.reason), tr("%1 states, %2").arg(e.states).arg(humanBytes(e.state_bytes))});
    if (e.action != ops::RemapAction::kKeep) {
      for (int c = 0; c < 6; ++c) item->setForeground(c, toneColor(e.action == ops::RemapAction::kDrop ? Tone::kRemoved : Tone::kChanged));
    }
  }
  m_plan->header()->resizeSections(QHeaderView::ResizeToContents);
  QStringList lines;
  lines << (!r.written ? (r.dry_run ? tr("Dry run: nothing written. %1 files, %2, would go to %3.")
                                     : tr("Nothing written. %1 files, %2, would go to %3."))
                            .arg(r.files).arg(humanBytes(r.total_bytes)).arg(qs(r.output_dir))
                      : tr("Wrote %1 (%2 files: %3 hard-linked, %4 copied).")
                            .arg(qs(r.output_dir)).arg(r.files).arg(r.files_linked).arg(humanBytes(r.bytes_copied)));
  if (!r.refused.empty()) lines << qs(r.refused);
  for (const auto& u : r.unmatched) lines << tr("unmatched: %1").arg(qs(u));
  for (const auto& w : r.warnings) lines << tr("warning: %1").arg(qs(w));
  if (outcome.validated) lines << reportText("validated " + r.output_dir, *outcome.validated);
  m_result->setPlainText(lines.join(QLatin1Char('\n')));
}

PruneDialog::PruneDialog(base::Fs& fs, const QString& root, QWidget* parent)
    : QDialog(parent),
      m_fs(fs),
      m_root(root),
      m_keepLast(new QSpinBox(this)),
      m_olderThan(new QLineEdit(this)),
      m_minAge(new QLineEdit(this)),
      m_planView(new QTreeWidget(this)),
      m_text(new QTextEdit(this)),
      m_planButton(new QPushButton(tr("Show plan (dry run)"), this)),
      m_pruneButton(new QPushButton(tr("Prune…"), this)),
      m_progress(new TaskProgress(this)) {
  setWindowTitle(tr("Prune checkpoints — %1").arg(root));
  m_keepLast->setRange(1, 10000);
  m_keepLast->setValue(1);
  m_keepLast->setToolTip(tr("Complete checkpoints kept per job, newest first (Flink's num-retained)"));
  m_olderThan->setPlaceholderText(tr("e.g. 7d (optional)"));
  m_minAge->setPlaceholderText(tr("default 1h: orphans younger than this are kept"));
  auto* form = new QFormLayout;
  form->addRow(tr("Keep last"), m_keepLast);
  form->addRow(tr("Older than"), m_olderThan);
  form->addRow(tr("Orphan age guard"), m_minAge);
  m_planView->setHeaderLabels({tr("Path"), tr("Verdict / action"), tr("Size"), tr("Reason")});
  m_text->setReadOnly(true);
  m_pruneButton->setEnabled(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(m_planButton, QDialogButtonBox::ActionRole);
  buttons->addButton(m_pruneButton, QDialogButtonBox::DestructiveRole);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_planView, 2);
  layout->addWidget(m_text, 1);
  layout->addWidget(m_progress);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_planButton, &QPushButton::clicked, this, &PruneDialog::plan);
  connect(m_pruneButton, &QPushButton::clicked, this, &PruneDialog::prune);
  auto stale = [this] { m_pruneButton->setEnabled(false); };
  connect(m_keepLast, &QSpinBox::valueChanged, this, stale);
  connect(m_olderThan, &QLineEdit::textChanged, this, stale);
  connect(m_minAge, &QLineEdit::textChanged, this, stale);
  m_confirm = [this](const QString& question) {
    // Irreversible: the default button is Cancel.
    return QMessageBox::question(this, tr("Prune"), question, QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
  };
  resize(820, 560);
}

void PruneDialog::setKeepLast(int n) { m_keepLast->setValue(n); }
void PruneDialog::setOlderThan(const QString& t) { m_olderThan->setText(t); }
void PruneDialog::setMinOrphanAge(const QString& t) { m_minAge->setText(t); }
bool PruneDialog::canPrune() const { return m_pruneButton->isEnabled(); }
QString PruneDialog::message() const { return m_text->toPlainText(); }

void PruneDialog::plan() {
  ops::PruneOptions o;
  o.keep_last = static_cast<uint32_t>(m_keepLast->value());
  o.verify_output = true;  // ops checks what the prune kept once it ran
  for (auto [edit, target] : {std::pair{m_olderThan, 0}, std::pair{m_minAge, 1}}) {
    const QString t = edit->text().trimmed();
    if (t.isEmpty()) continue;
    auto ms = ops::ParseDuration(t.toStdString());
    if (!ms.ok()) {
      m_text->setPlainText(qs(ms.status().ToString()));
      Q_EMIT planned(false);
      return;
    }
    if (target == 0) o.older_than_ms = *ms;
    else o.min_orphan_age_ms = *ms;
  }
  m_pruneButton->setEnabled(false);
  auto* watcher = new QFutureWatcher<Loaded<ops::PrunePlan>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    const auto r = watcher->result();
    watcher->deleteLater();
    if (!r.ok()) {
      m_text->setPlainText(r.error);
      Q_EMIT planned(false);
      return;
    }
    m_plan = r.value;
    m_planView->clear();
    auto* snaps = new QTreeWidgetItem(m_planView, {tr("Snapshots")});
    // In numeric checkpoint order (chk-9 before chk-10), savepoints after them.
    std::vector<const ops::PruneSnapshot*> ordered;
    for (const auto& s : m_plan->snapshots) ordered.push_back(&s);
    std::stable_sort(ordered.begin(), ordered.end(), [](const ops::PruneSnapshot* a, const ops::PruneSnapshot* b) {
      const int64_t ia = a->checkpoint_id < 0 ? INT64_MAX : a->checkpoint_id;
      const int64_t ib = b->checkpoint_id < 0 ? INT64_MAX : b->checkpoint_id;
      return ia < ib;
    });
    for (const ops::PruneSnapshot* s : ordered) {
      new QTreeWidgetItem(snaps, {qs(s->path), qs(ops::SnapshotVerdictName(s->verdict)), QString(), qs(s->reason)});
    }
    auto* steps = new QTreeWidgetItem(m_planView, {tr("Steps (in order)")});
    for (const auto& s : m_plan->steps) {
      new QTreeWidgetItem(steps, {qs(s.path), qs(ops::PruneActionName(s.action)), humanBytes(s.size_bytes), qs(s.reason)});
    }
    auto* kept = new QTreeWidgetItem(m_planView, {tr("Kept files")});
    for (const auto& k : m_plan->kept) new QTreeWidgetItem(kept, {qs(k.path), tr("kept"), QString(), qs(k.reason)});
    snaps->setExpanded(true);
    steps->setExpanded(true);
    m_planView->header()->resizeSections(QHeaderView::ResizeToContents);
    QStringList lines{tr("Dry run: %1 files to delete, %2 to free. Nothing has been deleted.")
                          .arg(m_plan->files_to_delete).arg(humanBytes(m_plan->bytes_to_free))};
    if (m_plan->uploads_to_abort > 0) {
      lines << tr("%1 open multipart uploads left by stopped jobs to abort.").arg(m_plan->uploads_to_abort);
    }
    for (const auto& n : m_plan->notes) lines << qs(n);
    m_text->setPlainText(lines.join(QLatin1Char('\n')));
    m_pruneButton->setEnabled(!m_plan->steps.empty());
    Q_EMIT planned(true);
  });
  watcher->setFuture(planPrune(m_fs, m_root, o));
}

void PruneDialog::prune() {
  if (!m_plan || !canPrune()) return;
  const QString question = tr("Delete %1 files (%2) under %3? This cannot be undone.")
                               .arg(m_plan->files_to_delete).arg(humanBytes(m_plan->bytes_to_free)).arg(m_root);
  if (!m_confirm(question)) {
    m_text->append(tr("Cancelled: nothing deleted."));
    Q_EMIT pruned(false);
    return;
  }
  m_pruneButton->setEnabled(false);
  m_planButton->setEnabled(false);
  auto task = m_progress->start(tr("Pruning"));
  auto* watcher = new QFutureWatcher<Loaded<PruneOutcome>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    const auto r = watcher->result();
    watcher->deleteLater();
    m_progress->finish();
    m_planButton->setEnabled(true);
    if (!r.ok()) {
      m_text->setPlainText(r.error);
      Q_EMIT pruned(false);
      return;
    }
    m_result = r.value;
    QStringList lines{tr("Pruned: %1 steps done. What the prune kept, checked again:").arg(r.value->steps_done)};
    for (const ops::PruneVerifiedSnapshot& v : r.value->verification.snapshots) lines << pruneVerifiedText(v);
    m_text->setPlainText(lines.join(QLatin1Char('\n')));
    Q_EMIT pruned(true);
  });
  watcher->setFuture(executePrune(m_fs, m_plan, task));
}

}  // namespace ckpt::inspector
