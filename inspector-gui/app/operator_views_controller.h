// OperatorViewsController: the pages that show the snapshot by operator: State (the state
// browser), Treemap, Key groups, Subtasks and Job graph, and the operator selection they share.
// GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "app/state_browser.h"
#include "app/window_shell.h"
#include "ckpt/ops/stats.h"

class QWidget;

namespace ckpt::inspector {

class JobGraphView;
class KeyGroupChart;
class OpenSession;
class SubtaskBarsChart;
class TreemapView;

class OperatorViewsController : public QObject {
  Q_OBJECT

 public:
  OperatorViewsController(OpenSession& session, const WindowShell& shell, QObject* parent);

  // Fills the pages from the open snapshot / empties them.
  void show();
  void clear();
  void setStats(std::shared_ptr<const ops::StatsReport> stats);
  // Operator `op` (index into the snapshot's operators) in the job graph and subtask chart;
  // false (nothing changed) when there is no such operator.
  bool selectOperator(int op);
  // Operator `op`'s state in the state browser (when it has any) and a status message.
  void showOperatorState(int op);
  // The tree's selection belongs to operator `op`: the subtask chart and graph follow.
  void followTreeOperator(int op);

  StateBrowser* stateBrowser() const { return m_state; }
  TreemapView* treemap() const { return m_treemap; }
  KeyGroupChart* keyGroups() const { return m_keyGroups; }
  SubtaskBarsChart* subtasks() const { return m_subtasks; }
  JobGraphView* jobGraph() const { return m_jobGraph; }
  // The Job graph page (the graph in a scroll area).
  QWidget* jobGraphPage() const { return m_jobGraphPage; }

 Q_SIGNALS:
  // The job graph's operator `op` was clicked.
  void operatorChosen(int op, std::optional<uint32_t> subtask);
  // A treemap file node was selected / activated.
  void fileSelected(int file);
  void fileActivated(int file);
  // A state row was selected (`rec`: its record's bytes when known) / described.
  void stateRecordSelected(const QString& opId, int subtask, int keyGroup, const StateBrowser::SelectedRecord& rec);
  void stateEntryDescribed(const QString& text);

 private:
  OpenSession& m_session;
  WindowShell m_shell;
  StateBrowser* m_state;
  TreemapView* m_treemap;
  KeyGroupChart* m_keyGroups;
  SubtaskBarsChart* m_subtasks;
  JobGraphView* m_jobGraph;
  QWidget* m_jobGraphPage;
};

}  // namespace ckpt::inspector
