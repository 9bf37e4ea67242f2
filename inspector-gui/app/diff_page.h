// DiffPage: compares two snapshots in the background (ops::Diff, and optionally ops::DiffKeys)
// and shows the diff tree coloured added / removed / changed with size deltas, plus the
// key-level differences. GUI thread only.
#pragma once

#include <QWidget>

#include "models/diff_models.h"

class QLineEdit;
class QCheckBox;
class QLabel;
class QTreeView;
class QTableView;

namespace ckpt::inspector {

class TaskProgress;

class DiffPage : public QWidget {
  Q_OBJECT

 public:
  explicit DiffPage(QWidget* parent = nullptr);
  // Sets side A and side B. With `olderFirst`, the next comparison puts the snapshot ops reports
  // the lower checkpoint id for on side A (comparing again with the sides swapped if needed).
  void setPaths(const QString& a, const QString& b, bool olderFirst = false);
  QString pathA() const;
  QString pathB() const;
  // Exchanges sides A and B and compares again when a comparison was shown.
  void swapSides();
  // Starts the comparison; diffFinished is emitted when it is done.
  void compare(bool withKeys);
  DiffTreeModel* treeModel() const { return m_tree; }
  KeyDiffModel* keyModel() const { return m_keys; }
  QTreeView* treeView() const { return m_treeView; }
  QString summary() const;

 Q_SIGNALS:
  void diffFinished(bool ok);

 private:
  QLineEdit* m_a;
  QLineEdit* m_b;
  QCheckBox* m_withKeys;
  QLabel* m_summary;
  DiffTreeModel* m_tree;
  KeyDiffModel* m_keys;
  QTreeView* m_treeView;
  QTableView* m_keyView;
  TaskProgress* m_progress;
  int m_pending = 0;
  bool m_ok = true;
  bool m_olderFirst = false;  // setPaths(..., true): order the sides by ops' checkpoint ids
  bool m_shown = false;
  bool m_reorder = false;     // the sides were swapped: compare again once this run ends       // a comparison result is on the page
};

}  // namespace ckpt::inspector
