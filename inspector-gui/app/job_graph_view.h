// JobGraphView: the job graph of a snapshot, painted with QPainter (Qt Charts is not used), as
// Flink's web UI draws it: one box per operator chain (chained operators stacked inside it, in
// chain order), columns by distance from the sources, arrows between chains labelled with their
// partitioning, and operators that have state but are not in the job graph in a column of their
// own. Clicking an operator selects it (operatorActivated); the window links it to the tree, the
// subtask chart and the state browser. GUI thread only.
#pragma once

#include <QRectF>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "ckpt/ops/snapshot.h"

namespace ckpt::inspector {

class JobGraphView : public QWidget {
  Q_OBJECT

 public:
  // One arrow as drawn: between operators (indexes into Snapshot::operators).
  struct Arrow {
    int source = -1;
    int target = -1;
    QString label;         // "hash", "forward", ... ("chained" inside a chain)
    bool chained = false;  // both ends in one chain: drawn inside its box
  };

  explicit JobGraphView(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot);

  // The operator whose box holds `pos`, or -1.
  int operatorAt(const QPointF& pos) const;
  // Where operator `op` is drawn (empty when it is not).
  QRectF operatorRect(int op) const;
  // Column (distance from the sources, in chains) of operator `op`; -1 when not drawn.
  int columnOf(int op) const;
  const std::vector<Arrow>& arrows() const { return m_arrows; }
  int chainCount() const { return static_cast<int>(m_chains.size()); }
  // The highlighted operator (-1: none); does not emit operatorActivated.
  void setSelectedOperator(int op);
  int selectedOperator() const { return m_selected; }
  QString tooltipFor(int op) const;
  // Whether the snapshot's metadata records a job graph (some operator is in_job_graph, or
  // there are edges); Apache Flink's `_metadata` never does.
  bool recordsJobGraph() const;
  // The caption over the operators that are not in the job graph: "Not in the job graph", or,
  // when the metadata records none, that it carries no job graph (naming Apache Flink's
  // `_metadata` for a Flink snapshot).
  QString outsideCaption() const;

  QSize sizeHint() const override { return m_size; }
  QSize minimumSizeHint() const override { return m_size; }

 Q_SIGNALS:
  void operatorActivated(int op);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Chain {
    std::vector<int> ops;  // in chain order
    int column = 0;
    QRectF box;
  };
  void layoutGraph();

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  std::vector<Chain> m_chains;
  std::vector<QRectF> m_opRects;  // per operator (empty rect: not drawn)
  std::vector<int> m_opColumn;
  std::vector<Arrow> m_arrows;
  int m_selected = -1;
  QSize m_size{320, 200};
};

}  // namespace ckpt::inspector
