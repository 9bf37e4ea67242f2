#include "app/operator_views_controller.h"

#include <QScrollArea>

#include "app/charts.h"
#include "app/job_graph_view.h"
#include "app/open_session.h"
#include "app/treemap_view.h"
#include "ckpt/ops/operator_label.h"
#include "models/display.h"

namespace ckpt::inspector {

OperatorViewsController::OperatorViewsController(OpenSession& session, const WindowShell& shell, QObject* parent)
    : QObject(parent), m_session(session), m_shell(shell) {
  QWidget* window = m_shell.window;
  m_state = new StateBrowser(window);
  m_treemap = new TreemapView(window);
  m_keyGroups = new KeyGroupChart(window);
  m_subtasks = new SubtaskBarsChart(window);
  m_jobGraph = new JobGraphView(window);
  auto* graphScroll = new QScrollArea(window);
  graphScroll->setWidget(m_jobGraph);
  graphScroll->setWidgetResizable(false);
  graphScroll->setBackgroundRole(QPalette::Base);
  m_jobGraphPage = graphScroll;

  connect(m_state, &StateBrowser::recordSelected, this, [this](const QString& op, int subtask, int keyGroup) {
    Q_EMIT stateRecordSelected(op, subtask, keyGroup, m_state->currentRecord());
  });
  connect(m_state, &StateBrowser::entrySelected, this, &OperatorViewsController::stateEntryDescribed);
  connect(m_treemap, &TreemapView::fileActivated, this, &OperatorViewsController::fileActivated);
  connect(m_jobGraph, &JobGraphView::operatorActivated, this, [this](int op) { Q_EMIT operatorChosen(op, std::nullopt); });
  connect(m_treemap, &TreemapView::nodeSelected, this, [this](int node) {
    const auto& n = m_treemap->nodes()[static_cast<size_t>(node)];
    if (n.op >= 0) m_subtasks->setOperator(m_session.snapshot(), n.op);
    if (n.file >= 0 && m_session.snapshot()) Q_EMIT fileSelected(n.file);
    m_shell.status(n.label + QStringLiteral(" — ") + humanBytes(n.bytes));
  });
}

void OperatorViewsController::show() {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (m_session.fs() != nullptr) m_state->setSnapshot(*m_session.fs(), snapshot);
  m_treemap->setSnapshot(snapshot);
  m_subtasks->setOperator(snapshot, -1);
  m_jobGraph->setSnapshot(snapshot);
}

void OperatorViewsController::clear() {
  m_state->clearSnapshot();
  m_treemap->setSnapshot(nullptr);
  m_subtasks->setOperator(nullptr, -1);
  m_keyGroups->setStats(nullptr, -1);
  m_jobGraph->setSnapshot(nullptr);
}

void OperatorViewsController::setStats(std::shared_ptr<const ops::StatsReport> stats) {
  m_state->setStats(stats);
  m_keyGroups->setStats(std::move(stats), -1);
}

bool OperatorViewsController::selectOperator(int op) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || op < 0 || static_cast<size_t>(op) >= snapshot->operators.size()) return false;
  m_jobGraph->setSelectedOperator(op);
  m_subtasks->setOperator(snapshot, op);
  return true;
}

void OperatorViewsController::followTreeOperator(int op) {
  m_subtasks->setOperator(m_session.snapshot(), op);
  m_jobGraph->setSelectedOperator(op);
}

void OperatorViewsController::showOperatorState(int op) {
  const std::shared_ptr<const ops::Snapshot> snapshot = m_session.snapshot();
  if (!snapshot || op < 0 || static_cast<size_t>(op) >= snapshot->operators.size()) return;
  const ops::OperatorInfo& info = snapshot->operators[static_cast<size_t>(op)];
  if (info.has_state) m_state->showState(qs(info.id_hex), QString());
  m_shell.status(tr("%1: %2").arg(qs(ops::OperatorLabel(info.name, info.uid, info.id_hex)), qs(info.id_hex)), 5000);
}

}  // namespace ckpt::inspector
