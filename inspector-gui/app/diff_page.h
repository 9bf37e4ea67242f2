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
  void setPaths(const QString& a, const QString& b);
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
};

}  // namespace ckpt::inspector
