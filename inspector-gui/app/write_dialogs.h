// Guarded write dialogs. RemapDialog: operator-ID remapping into a NEW directory (the input is
// never touched); PruneDialog: retention and orphan cleanup of a checkpoint root. Both show the
// dry-run plan first, enable the write only for the plan on screen, ask before deleting (prune),
// then validate what was written and show the result. GUI thread only; ops work runs in the
// background.
#pragma once

#include <QDialog>
#include <functional>
#include <memory>

#include "models/loaders.h"

class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTreeWidget;
class QLabel;
class QTextEdit;

namespace ckpt::inspector {

class TaskProgress;

class RemapDialog : public QDialog {
  Q_OBJECT

 public:
  // Remaps `snapshot` on `fs` (the output directory is on the same Fs).
  RemapDialog(base::Fs& fs, const QString& snapshot, QWidget* parent = nullptr);
  // OLD=NEW per line.
  void setMappings(const QString& text);
  void setDrops(const QString& commaSeparated);
  void setAgainstJob(const QString& path);
  void setOutputDir(const QString& dir);
  // Runs the dry run (emits planned) / the remap and its validation (emits written).
  void plan();
  void write();
  bool canWrite() const;
  std::shared_ptr<const RemapOutcome> lastOutcome() const { return m_outcome; }
  QString message() const;
  QTreeWidget* planView() const { return m_plan; }

 Q_SIGNALS:
  void planned(bool ok);
  void written(bool ok);

 private:
  ops::RemapOptions options(bool dryRun) const;
  void run(bool dryRun);
  void showOutcome(const RemapOutcome& outcome);

  base::Fs& m_fs;
  QString m_snapshot;
  QPlainTextEdit* m_mappings;
  QLineEdit* m_drops;
  QLineEdit* m_against;
  QLineEdit* m_output;
  QTreeWidget* m_plan;
  QTextEdit* m_result;
  QPushButton* m_planButton;
  QPushButton* m_writeButton;
  TaskProgress* m_progress;
  std::shared_ptr<const RemapOutcome> m_outcome;
  bool m_planCurrent = false;
};

class PruneDialog : public QDialog {
  Q_OBJECT

 public:
  // Prunes the checkpoint root or job directory `root` on `fs`.
  PruneDialog(base::Fs& fs, const QString& root, QWidget* parent = nullptr);
  void setKeepLast(int n);
  // Duration text as ckpt-tool accepts ("7d", "90s"); empty = unset.
  void setOlderThan(const QString& text);
  void setMinOrphanAge(const QString& text);
  // Asked before anything is deleted; default: a QMessageBox. Tests replace it.
  void setConfirmation(std::function<bool(const QString& question)> confirm) { m_confirm = std::move(confirm); }
  void plan();
  void prune();
  bool canPrune() const;
  std::shared_ptr<const ops::PrunePlan> currentPlan() const { return m_plan; }
  std::shared_ptr<const ValidatedWrite> lastResult() const { return m_result; }
  QString message() const;
  QTreeWidget* planView() const { return m_planView; }

 Q_SIGNALS:
  void planned(bool ok);
  void pruned(bool ok);

 private:
  base::Fs& m_fs;
  QString m_root;
  QSpinBox* m_keepLast;
  QLineEdit* m_olderThan;
  QLineEdit* m_minAge;
  QTreeWidget* m_planView;
  QTextEdit* m_text;
  QPushButton* m_planButton;
  QPushButton* m_pruneButton;
  TaskProgress* m_progress;
  std::function<bool(const QString&)> m_confirm;
  std::shared_ptr<const ops::PrunePlan> m_plan;
  std::shared_ptr<const ValidatedWrite> m_result;
};

}  // namespace ckpt::inspector
