#include "app/treemap_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <map>
#include <numeric>

#include "ckpt/ops/operator_label.h"
#include "models/display.h"

namespace ckpt::inspector {

TreemapView::TreemapView(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(200, 150);
  setToolTip(QString());
}

void TreemapView::setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot) {
  m_snapshot = std::move(snapshot);
  m_nodes.clear();
  m_root = 0;
  m_selected = -1;
  Node root;
  root.label = tr("snapshot");
  m_nodes.push_back(root);
  if (m_snapshot) {
    auto add = [this](Node n) {
      const int id = static_cast<int>(m_nodes.size());
      m_nodes[static_cast<size_t>(n.parent)].children.push_back(id);
      m_nodes.push_back(std::move(n));
      return id;
    };
    const ops::Snapshot& s = *m_snapshot;
    for (size_t oi = 0; oi < s.operators.size(); ++oi) {
      const ops::OperatorInfo& op = s.operators[oi];
      // Files grouped by what they hold; keyed states of an operator share their files. Each
      // group also sums the bytes its handles keep inline in `_metadata`: that is the size of
      // its `_metadata` node, never the whole file (docs/sizes.md).
      std::map<QString, std::pair<std::vector<uint32_t>, uint64_t>> groups;
      QStringList keyed, opstates;
      for (const auto& st : op.states) (st.keyed ? keyed : opstates) << qs(st.name);
      for (const auto& sub : op.subtasks) {
        for (const auto& h : sub.keyed) {
          auto& [v, inline_bytes] = groups[tr("keyed: %1").arg(keyed.join(QStringLiteral(", ")))];
          v.insert(v.end(), h.file_indexes.begin(), h.file_indexes.end());
          inline_bytes += h.inline_bytes;
        }
        for (const auto& h : sub.operator_state) {
          QStringList names;
          for (const auto& p : h.partitions) names << qs(p.state_name);
          auto& [v, inline_bytes] = groups[tr("operator: %1").arg(names.join(QStringLiteral(", ")))];
          v.push_back(h.file_index);
          inline_bytes += h.inline_bytes;
        }
        for (const auto& c : sub.channels) {
          auto& [v, inline_bytes] = groups[tr("in-flight data")];
          v.insert(v.end(), c.file_indexes.begin(), c.file_indexes.end());
          inline_bytes += c.inline_bytes;
        }
      }
      if (op.coordinator && op.coordinator->file_index) groups[tr("coordinator")].first.push_back(*op.coordinator->file_index);
      Node on;
      on.label = qs(ops::OperatorLabel(op.name, op.uid, op.id_hex));
      on.parent = 0;
      on.op = static_cast<int>(oi);
      const int op_node = add(on);
      for (auto& [label, group] : groups) {
        auto& [files, inline_bytes] = group;
        std::sort(files.begin(), files.end());
        files.erase(std::unique(files.begin(), files.end()), files.end());
        Node gn;
        gn.label = label;
        gn.parent = op_node;
        gn.op = static_cast<int>(oi);
        const int g = add(gn);
        for (uint32_t f : files) {
          if (f >= s.files.size()) continue;
          Node fn;
          fn.label = qs(s.files[f].path);
          fn.bytes = s.files[f].is_metadata ? inline_bytes : s.files[f].size_bytes;
          fn.parent = g;
          fn.op = static_cast<int>(oi);
          fn.file = static_cast<int>(f);
          add(fn);
          m_nodes[static_cast<size_t>(g)].bytes += fn.bytes;
        }
        m_nodes[static_cast<size_t>(op_node)].bytes += m_nodes[static_cast<size_t>(g)].bytes;
      }
      m_nodes[0].bytes += m_nodes[static_cast<size_t>(op_node)].bytes;
    }
  }
  layout();
  update();
}

std::vector<QRectF> TreemapView::squarify(const std::vector<double>& sizes, const QRectF& rect) {
  std::vector<QRectF> out(sizes.size());
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
  if (total <= 0 || rect.isEmpty()) return out;
  const double scale = rect.width() * rect.height() / total;
  QRectF free = rect;
  size_t i = 0;
  auto worst = [](const std::vector<double>& row, double side) {
    const double sum = std::accumulate(row.begin(), row.end(), 0.0);
    const auto [mn, mx] = std::minmax_element(row.begin(), row.end());
    return std::max(side * side * *mx / (sum * sum), sum * sum / (side * side * *mn));
  };
  while (i < order.size()) {
    const double side = std::min(free.width(), free.height());
    std::vector<double> row{std::max(sizes[order[i]] * scale, 1e-9)};
    size_t j = i + 1;
    while (j < order.size()) {
      std::vector<double> next = row;
      next.push_back(std::max(sizes[order[j]] * scale, 1e-9));
      if (worst(next, side) > worst(row, side)) break;
      row = std::move(next);
      ++j;
    }
    const double sum = std::accumulate(row.begin(), row.end(), 0.0);
    const bool horizontal = free.width() >= free.height();  // lay the row along the short side
    const double thickness = sum / side;
    double pos = horizontal ? free.top() : free.left();
    for (size_t k = 0; k < row.size(); ++k) {
      const double len = row[k] / thickness;
      out[order[i + k]] = horizontal ? QRectF(free.left(), pos, thickness, len)
                                     : QRectF(pos, free.top(), len, thickness);
      pos += len;
    }
    if (horizontal) free.setLeft(free.left() + thickness);
    else free.setTop(free.top() + thickness);
    i = j;
  }
  return out;
}

void TreemapView::layout() {
  for (Node& n : m_nodes) n.rect = QRectF();
  if (!m_nodes.empty()) layoutNode(m_root, QRectF(rect()).adjusted(2, 2, -2, -2), 0);
}

void TreemapView::layoutNode(int node, const QRectF& r, int depth) {
  Node& n = m_nodes[static_cast<size_t>(node)];
  n.rect = r;
  if (n.children.empty()) return;
  // Room for the label of non-leaf nodes.
  const double header = depth == 0 ? 0.0 : std::min(r.height() / 4, static_cast<double>(fontMetrics().height() + 2));
  const QRectF inner = r.adjusted(2, header + 1, -2, -2);
  std::vector<double> sizes;
  for (int c : n.children) sizes.push_back(static_cast<double>(m_nodes[static_cast<size_t>(c)].bytes));
  const std::vector<QRectF> rects = squarify(sizes, inner);
  for (size_t k = 0; k < n.children.size(); ++k) layoutNode(n.children[k], rects[k], depth + 1);
}

QColor TreemapView::colorFor(int node) const {
  const Node& n = m_nodes[static_cast<size_t>(node)];
  // Palette colours: the highlight hue rotated per operator, lighter for deeper nodes.
  const QColor base = palette().color(QPalette::Highlight);
  const int hue = (std::max(0, base.hsvHue()) + n.op * 47) % 360;
  int depth = 0;
  for (int p = n.parent; p > 0; p = m_nodes[static_cast<size_t>(p)].parent) ++depth;
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const int value = dark ? 150 - depth * 25 : 170 + depth * 25;
  return QColor::fromHsv(hue, std::max(60, base.hsvSaturation() - depth * 30), std::clamp(value, 40, 255));
}

void TreemapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (m_nodes.size() <= 1 || m_nodes[0].bytes == 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, m_snapshot ? tr("This snapshot holds no state files.") : tr("No snapshot open."));
    return;
  }
  std::vector<int> stack{m_root};
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    const Node& n = m_nodes[static_cast<size_t>(id)];
    if (n.rect.width() < 1 || n.rect.height() < 1) continue;
    if (id != m_root) {
      p.setPen(palette().color(QPalette::Window));
      p.setBrush(colorFor(id));
      p.drawRect(n.rect);
      if (n.rect.width() > 30 && n.rect.height() > fontMetrics().height()) {
        p.setPen(palette().color(colorFor(id).lightness() < 128 ? QPalette::BrightText : QPalette::Text));
        const QString text = fontMetrics().elidedText(
            n.label + QStringLiteral(" (") + humanBytes(n.bytes) + QLatin1Char(')'), Qt::ElideRight,
            static_cast<int>(n.rect.width()) - 6);
        p.drawText(n.rect.adjusted(3, 1, -3, -1), Qt::AlignLeft | Qt::AlignTop, text);
      }
    }
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back(*it);
  }
  if (m_selected > 0) {
    QPen pen(palette().color(QPalette::Highlight), 3);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(m_nodes[static_cast<size_t>(m_selected)].rect.adjusted(1, 1, -1, -1));
  }
}

void TreemapView::resizeEvent(QResizeEvent*) { layout(); }

int TreemapView::nodeAt(const QPointF& pos) const {
  int found = -1;
  int id = m_root;
  while (true) {
    int next = -1;
    for (int c : m_nodes[static_cast<size_t>(id)].children) {
      if (m_nodes[static_cast<size_t>(c)].rect.contains(pos)) next = c;
    }
    if (next < 0) return found;
    found = id = next;
  }
}

void TreemapView::selectNode(int node) {
  if (node < 0 || node >= static_cast<int>(m_nodes.size())) return;
  m_selected = node;
  update();
  Q_EMIT nodeSelected(node);
}

void TreemapView::keyPressEvent(QKeyEvent* e) {
  if (m_nodes.size() <= 1) return QWidget::keyPressEvent(e);
  int sel = m_selected > 0 ? m_selected : -1;
  const auto& root_children = m_nodes[static_cast<size_t>(m_root)].children;
  switch (e->key()) {
    case Qt::Key_Right:
    case Qt::Key_Down:
    case Qt::Key_Left:
    case Qt::Key_Up: {
      if (sel < 0) {
        if (!root_children.empty()) selectNode(root_children.front());
        return;
      }
      const auto& sib = m_nodes[static_cast<size_t>(m_nodes[static_cast<size_t>(sel)].parent)].children;
      auto it = std::find(sib.begin(), sib.end(), sel);
      const bool forward = e->key() == Qt::Key_Right || e->key() == Qt::Key_Down;
      if (forward && it + 1 != sib.end()) selectNode(*(it + 1));
      if (!forward && it != sib.begin()) selectNode(*(it - 1));
      return;
    }
    case Qt::Key_Return:
    case Qt::Key_Enter:
      if (sel < 0) return;
      if (m_nodes[static_cast<size_t>(sel)].children.empty()) {
        Q_EMIT fileActivated(m_nodes[static_cast<size_t>(sel)].file);
        return;
      }
      m_root = sel;
      layout();
      selectNode(m_nodes[static_cast<size_t>(sel)].children.front());
      return;
    case Qt::Key_Backspace:
    case Qt::Key_Escape:
      if (m_root == 0) return;
      sel = m_root;
      m_root = m_nodes[static_cast<size_t>(m_root)].parent;
      layout();
      selectNode(sel);
      return;
    default:
      QWidget::keyPressEvent(e);
  }
}

void TreemapView::mousePressEvent(QMouseEvent* e) {
  const int n = nodeAt(e->position());
  if (n > 0) selectNode(n);
}

void TreemapView::mouseDoubleClickEvent(QMouseEvent* e) {
  const int n = nodeAt(e->position());
  if (n > 0 && m_nodes[static_cast<size_t>(n)].file >= 0) Q_EMIT fileActivated(m_nodes[static_cast<size_t>(n)].file);
}

bool TreemapView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int n = nodeAt(help->pos());
    if (n > 0) {
      const Node& node = m_nodes[static_cast<size_t>(n)];
      QToolTip::showText(help->globalPos(), node.label + QLatin1Char('\n') + humanBytes(node.bytes) +
                                                tr(" on disk (file sizes; shared files count once per operator)"));
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace ckpt::inspector
