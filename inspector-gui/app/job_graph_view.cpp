#include "app/job_graph_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

#include "ckpt/ops/operator_label.h"
#include "models/display.h"

namespace ckpt::inspector {
namespace {

constexpr double kMargin = 16;
constexpr double kBoxWidth = 220;
constexpr double kOpHeight = 58;
constexpr double kChainGap = 14;  // between operators inside one chain (the "chained" arrow)
constexpr double kColumnGap = 90;
constexpr double kRowGap = 28;
constexpr double kPad = 8;

}  // namespace

JobGraphView::JobGraphView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void JobGraphView::setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot) {
  m_snapshot = std::move(snapshot);
  m_selected = -1;
  layoutGraph();
  updateGeometry();
  resize(m_size.expandedTo(size()));
  update();
}

// Chains from chain_index (operators of the job graph), columns by the longest path from a
// source over the edges between chains; operators outside the job graph go to a last column.
void JobGraphView::layoutGraph() {
  m_chains.clear();
  m_arrows.clear();
  m_opRects.clear();
  m_opColumn.clear();
  m_size = QSize(320, 120);
  if (!m_snapshot) return;
  const auto& ops = m_snapshot->operators;
  m_opRects.assign(ops.size(), QRectF());
  m_opColumn.assign(ops.size(), -1);
  std::map<uint32_t, size_t> chainOf;  // chain_index -> m_chains index
  std::vector<int> chainOfOp(ops.size(), -1);
  std::vector<int> outside;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].in_job_graph) {
      outside.push_back(static_cast<int>(i));
      continue;
    }
    auto [it, added] = chainOf.emplace(ops[i].chain_index, m_chains.size());
    if (added) m_chains.emplace_back();
    m_chains[it->second].ops.push_back(static_cast<int>(i));
    chainOfOp[i] = static_cast<int>(it->second);
  }
  for (Chain& c : m_chains) {
    std::stable_sort(c.ops.begin(), c.ops.end(), [&](int a, int b) {
      return ops[static_cast<size_t>(a)].position_in_chain < ops[static_cast<size_t>(b)].position_in_chain;
    });
  }
  auto opIndex = [&](const std::string& id) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].id_hex == id) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<std::pair<int, int>> chainEdges;
  for (const ops::EdgeInfo& e : m_snapshot->edges) {
    Arrow a;
    a.source = opIndex(e.source_id_hex);
    a.target = opIndex(e.target_id_hex);
    if (a.source < 0 || a.target < 0) continue;
    const int sc = chainOfOp[static_cast<size_t>(a.source)], tc = chainOfOp[static_cast<size_t>(a.target)];
    a.chained = sc >= 0 && sc == tc;
    a.label = qs(ops::PartitioningName(e.partitioning));
    if (a.chained) a.label = tr("chained (%1)").arg(a.label);
    if (sc >= 0 && tc >= 0 && sc != tc) chainEdges.emplace_back(sc, tc);
    m_arrows.push_back(a);
  }
  // Longest path from a source; at most one pass per chain, so a (malformed) cycle ends.
  for (size_t pass = 0; pass < m_chains.size(); ++pass) {
    bool changed = false;
    for (const auto& [s, t] : chainEdges) {
      Chain& target = m_chains[static_cast<size_t>(t)];
      const int want = m_chains[static_cast<size_t>(s)].column + 1;
      if (target.column < want && want < static_cast<int>(m_chains.size())) {
        target.column = want;
        changed = true;
      }
    }
    if (!changed) break;
  }
  int columns = 0;
  for (const Chain& c : m_chains) columns = std::max(columns, c.column + 1);
  std::vector<double> columnY(static_cast<size_t>(columns) + 1, kMargin);
  double bottom = kMargin;
  auto place = [&](const std::vector<int>& members, int column) {
    const double x = kMargin + column * (kBoxWidth + kColumnGap);
    double& y = columnY[static_cast<size_t>(column)];
    const double h = 2 * kPad + members.size() * kOpHeight + (members.size() - 1) * kChainGap;
    const QRectF box(x, y, kBoxWidth, h);
    for (size_t k = 0; k < members.size(); ++k) {
      const auto op = static_cast<size_t>(members[k]);
      m_opRects[op] = QRectF(x + kPad, y + kPad + k * (kOpHeight + kChainGap), kBoxWidth - 2 * kPad, kOpHeight);
      m_opColumn[op] = column;
    }
    y += h + kRowGap;
    bottom = std::max(bottom, y);
    return box;
  };
  for (Chain& c : m_chains) c.box = place(c.ops, c.column);
  if (!outside.empty()) {
    Chain extra;
    extra.ops = outside;
    extra.column = columns;
    columnY.resize(static_cast<size_t>(columns) + 1, kMargin + 20);
    columnY[static_cast<size_t>(columns)] = kMargin + 20;  // room for the column's caption
    extra.box = place(outside, columns);
    ++columns;
  }
  m_size = QSize(static_cast<int>(kMargin * 2 + columns * kBoxWidth + std::max(0, columns - 1) * kColumnGap),
                 static_cast<int>(bottom + kMargin));
  if (!outside.empty()) {  // the last column's caption is drawn whole
    const double captionRight = m_opRects[static_cast<size_t>(outside.front())].left() + QFontMetricsF(font()).horizontalAdvance(outsideCaption()) + kMargin;
    m_size.setWidth(std::max(m_size.width(), static_cast<int>(std::ceil(captionRight))));
  }
}

int JobGraphView::operatorAt(const QPointF& pos) const {
  for (size_t i = 0; i < m_opRects.size(); ++i) {
    if (!m_opRects[i].isEmpty() && m_opRects[i].contains(pos)) return static_cast<int>(i);
  }
  return -1;
}

QRectF JobGraphView::operatorRect(int op) const {
  return op >= 0 && static_cast<size_t>(op) < m_opRects.size() ? m_opRects[static_cast<size_t>(op)] : QRectF();
}

int JobGraphView::columnOf(int op) const {
  return op >= 0 && static_cast<size_t>(op) < m_opColumn.size() ? m_opColumn[static_cast<size_t>(op)] : -1;
}

void JobGraphView::setSelectedOperator(int op) {
  if (op == m_selected) return;
  m_selected = op;
  update();
}

QString JobGraphView::tooltipFor(int op) const {
  if (!m_snapshot || op < 0 || static_cast<size_t>(op) >= m_snapshot->operators.size()) return {};
  const ops::OperatorInfo& o = m_snapshot->operators[static_cast<size_t>(op)];
  size_t pending = 0;
  for (const auto& st : o.subtasks) pending += st.committables.size();
  QString text = tr("%1\nID %2\nuid %3\nkind %4\nparallelism %5 (max %6), chain %7.%8\nstate %9 (%10 subtasks with state)")
                     .arg(qs(ops::OperatorLabel(o.name, o.uid, o.id_hex)), qs(o.id_hex),
                          o.uid.empty() ? tr("none (ID from the topology)") : qs(o.uid), qs(o.kind))
                     .arg(o.parallelism).arg(o.max_parallelism).arg(o.chain_index).arg(o.position_in_chain)
                     .arg(humanBytes(o.total_bytes)).arg(o.subtasks.size());
  if (pending > 0) text += tr("\n%1 pending sink files (two-phase commit)").arg(pending);
  if (!o.in_job_graph && recordsJobGraph()) text += tr("\nnot in the job graph: state without an operator");
  return text;
}

bool JobGraphView::recordsJobGraph() const {
  if (!m_snapshot) return false;
  const auto& ops = m_snapshot->operators;
  return !m_snapshot->edges.empty() ||
         std::any_of(ops.begin(), ops.end(), [](const ops::OperatorInfo& o) { return o.in_job_graph; });
}

QString JobGraphView::outsideCaption() const {
  if (recordsJobGraph()) return tr("Not in the job graph");
  if (m_snapshot && !m_snapshot->engine_name.empty()) {
    return tr("%1's _metadata carries no job graph: operators with state").arg(qs(m_snapshot->engine_name));
  }
  return tr("The metadata carries no job graph: operators with state");
}

void JobGraphView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  if (!m_snapshot || m_opRects.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, m_snapshot ? tr("This snapshot records no operators.") : tr("No snapshot open."));
    return;
  }
  const auto& ops = m_snapshot->operators;
  const QColor text = pal.color(QPalette::Text), mid = pal.color(QPalette::Mid);
  const QFontMetricsF fm(font());
  // Chain boxes.
  for (const Chain& c : m_chains) {
    p.setPen(QPen(mid, 1.5));
    p.setBrush(pal.color(QPalette::AlternateBase));
    p.drawRoundedRect(c.box, 6, 6);
  }
  bool outside = false;
  for (size_t i = 0; i < ops.size(); ++i) outside = outside || (!ops[i].in_job_graph && !m_opRects[i].isEmpty());
  if (outside) {
    double x = 0, y = 1e9;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].in_job_graph) {
        x = m_opRects[i].left();
        y = std::min(y, m_opRects[i].top());
      }
    }
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QPointF(x, y - kPad - 6), outsideCaption());
  }
  // Arrows: between chains from the right edge of the source to the left edge of the target.
  for (const Arrow& a : m_arrows) {
    const QRectF s = m_opRects[static_cast<size_t>(a.source)], t = m_opRects[static_cast<size_t>(a.target)];
    if (s.isEmpty() || t.isEmpty()) continue;
    QPointF from, to;
    if (a.chained) {
      from = QPointF(s.center().x(), s.bottom());
      to = QPointF(t.center().x(), t.top());
    } else {
      from = QPointF(s.right() + kPad, s.center().y());
      to = QPointF(t.left() - kPad, t.center().y());
    }
    p.setPen(QPen(text, 1.3));
    QPainterPath path(from);
    if (a.chained) {
      path.lineTo(to);
    } else {
      const double dx = std::max(30.0, (to.x() - from.x()) / 2);
      path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
    }
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    const double angle = std::atan2(to.y() - (a.chained ? from.y() : to.y()), a.chained ? 0.0 : 1.0);
    QPolygonF head;
    head << to << to - QPointF(std::cos(angle - 0.4) * 8, std::sin(angle - 0.4) * 8)
         << to - QPointF(std::cos(angle + 0.4) * 8, std::sin(angle + 0.4) * 8);
    p.setBrush(text);
    p.drawPolygon(head);
    if (!a.chained) {
      const QPointF mid_point = path.pointAtPercent(0.5);
      const QRectF label = fm.boundingRect(a.label).adjusted(-3, -1, 3, 1);
      QRectF box(mid_point - QPointF(label.width() / 2, label.height() / 2), label.size());
      p.setPen(Qt::NoPen);
      p.setBrush(pal.color(QPalette::Base));
      p.drawRect(box);
      p.setPen(text);
      p.drawText(box, Qt::AlignCenter, a.label);
    }
  }
  // Operators.
  for (size_t i = 0; i < ops.size(); ++i) {
    const QRectF r = m_opRects[i];
    if (r.isEmpty()) continue;
    const ops::OperatorInfo& o = ops[i];
    const bool selected = static_cast<int>(i) == m_selected;
    p.setPen(QPen(selected ? pal.color(QPalette::Highlight) : mid, selected ? 2.5 : 1));
    p.setBrush(selected ? pal.color(QPalette::Highlight) : pal.color(QPalette::Base));
    p.drawRoundedRect(r, 4, 4);
    p.setPen(selected ? pal.color(QPalette::HighlightedText) : text);
    const QRectF inner = r.adjusted(6, 3, -6, -3);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const QString name = qs(ops::OperatorLabel(o.name, o.uid, o.id_hex));
    p.drawText(inner, Qt::AlignLeft | Qt::AlignTop, QFontMetricsF(bold).elidedText(name, Qt::ElideMiddle, inner.width()));
    p.setFont(font());
    // Flink's `_metadata` does not say whether an ID came from a uid: never "no uid" there.
    const QString second = o.uid_origin == ops::UidOrigin::kNotRecorded
                               ? tr("uid not recorded · %1").arg(qs(o.id_hex.substr(0, 8)))
                           : o.uid.empty() ? tr("no uid · %1").arg(qs(o.id_hex.substr(0, 8)))
                                           : tr("uid %1").arg(qs(o.uid));
    QString third = tr("p=%1 · %2").arg(o.parallelism).arg(humanBytes(o.total_bytes));
    size_t pending = 0;
    for (const auto& st : o.subtasks) pending += st.committables.size();
    if (pending > 0) third += tr(" · %1 pending").arg(pending);
    const double line = fm.height();
    p.drawText(QRectF(inner.left(), inner.top() + line, inner.width(), line), Qt::AlignLeft,
               fm.elidedText(second, Qt::ElideMiddle, inner.width()));
    p.drawText(QRectF(inner.left(), inner.top() + 2 * line, inner.width(), line), Qt::AlignLeft,
               fm.elidedText(third, Qt::ElideRight, inner.width()));
  }
}

void JobGraphView::mousePressEvent(QMouseEvent* event) {
  const int op = operatorAt(event->position());
  if (op < 0) return QWidget::mousePressEvent(event);
  setSelectedOperator(op);
  Q_EMIT operatorActivated(op);
}

bool JobGraphView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int op = operatorAt(help->pos());
    if (op >= 0) QToolTip::showText(help->globalPos(), tooltipFor(op), this);
    else QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace ckpt::inspector
