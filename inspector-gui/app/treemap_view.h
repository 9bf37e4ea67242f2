// TreemapView: a squarified size treemap of one snapshot, operator -> state -> file, painted
// with QPainter in palette colours. Keyboard: arrows move between siblings, Enter zooms into the
// selected node, Backspace/Escape zooms out; a click selects. GUI thread only.
#pragma once

#include <QRectF>
#include <QWidget>
#include <memory>
#include <vector>

#include "ckpt/ops/snapshot.h"

namespace ckpt::inspector {

class TreemapView : public QWidget {
  Q_OBJECT

 public:
  struct Node {
    QString label;
    uint64_t bytes = 0;
    int parent = -1;
    std::vector<int> children;
    int file = -1;      // file table index for file nodes
    int op = -1;        // operator index
    QRectF rect;        // laid out in widget coordinates
  };

  explicit TreemapView(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot);
  const std::vector<Node>& nodes() const { return m_nodes; }
  int selectedNode() const { return m_selected; }
  int rootNode() const { return m_root; }
  void selectNode(int node);
  QSize sizeHint() const override { return {640, 420}; }

  // Squarified layout of `sizes` into `rect` (Bruls, Huizing, van Wijk); exposed for tests.
  static std::vector<QRectF> squarify(const std::vector<double>& sizes, const QRectF& rect);

 Q_SIGNALS:
  void nodeSelected(int node);
  void fileActivated(int fileIndex);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void layout();
  void layoutNode(int node, const QRectF& rect, int depth);
  int nodeAt(const QPointF& pos) const;
  QColor colorFor(int node) const;

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  std::vector<Node> m_nodes;  // [0] = snapshot root
  int m_root = 0;             // zoomed-in node
  int m_selected = -1;
};

}  // namespace ckpt::inspector
