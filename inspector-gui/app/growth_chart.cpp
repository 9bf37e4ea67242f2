#include "app/growth_chart.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "models/display.h"

namespace ckpt::inspector {

GrowthChart::GrowthChart(QWidget* parent) : ChartBase(parent) { setMouseTracking(true); }

void GrowthChart::setGrowth(std::shared_ptr<const ops::JobGrowth> growth) {
  m_growth = std::move(growth);
  m_bars.clear();
  m_still.clear();
  if (m_growth && !m_growth->checkpoints.empty()) {
    setAccessibleDescription(
        tr("%1 retained checkpoints; the latest needs %2 of %3 stored (amplification %4x); "
           "%5 orphaned, %6 not yet deletable")
            .arg(m_growth->checkpoints.size())
            .arg(humanBytes(m_growth->needed_bytes), humanBytes(m_growth->stored_bytes))
            .arg(m_growth->amplification, 0, 'f', 2)
            .arg(humanBytes(m_growth->orphaned_bytes),
                 humanBytes(m_growth->not_yet_deletable_bytes)));
  } else {
    setAccessibleDescription(QString());
  }
  update();
}

QString GrowthChart::title() const {
  if (!m_growth || m_growth->checkpoints.empty()) return tr("Storage growth");
  return tr("Storage growth: bytes introduced per checkpoint (amplification %1x)")
      .arg(m_growth->amplification, 0, 'f', 2);
}

QStringList GrowthChart::headerLegend() const {
  return {tr("still referenced by the latest"), tr("no longer referenced")};
}

QRectF GrowthChart::barRect(int i) const {
  return i >= 0 && i < static_cast<int>(m_bars.size()) ? m_bars[static_cast<size_t>(i)] : QRectF();
}

QRectF GrowthChart::stillReferencedRect(int i) const {
  if (i < 0 || i >= static_cast<int>(m_still.size())) return QRectF();
  return m_still[static_cast<size_t>(i)];
}

int GrowthChart::barAt(const QPoint& pos) const {
  const QRectF plot = plotRect();
  for (size_t i = 0; i < m_bars.size(); ++i) {
    // The whole column over the bar: a short bar is still easy to point at.
    const QRectF column(m_bars[i].left(), plot.top(), m_bars[i].width(), plot.height());
    if (column.contains(pos)) return static_cast<int>(i);
  }
  return -1;
}

QString GrowthChart::tooltipFor(int i) const {
  if (!m_growth || i < 0 || i >= static_cast<int>(m_growth->checkpoints.size())) return {};
  const ops::GrowthCheckpoint& c = m_growth->checkpoints[static_cast<size_t>(i)];
  return tr("%1 (id %2)\nintroduced %3 in %4 files (%5 shared)\n"
            "still referenced by the latest: %6\nreferences %7 in %8 files")
      .arg(qs(c.path))
      .arg(c.checkpoint_id)
      .arg(humanBytes(c.introduced_bytes))
      .arg(c.introduced_files)
      .arg(humanBytes(c.introduced_shared_bytes), humanBytes(c.still_referenced_bytes),
           humanBytes(c.referenced_bytes))
      .arg(c.referenced_files);
}

bool GrowthChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = tooltipFor(barAt(help->pos()));
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return ChartBase::event(event);
}

bool GrowthChart::paintChart(QPainter& p, const QRectF& plot) {
  m_bars.clear();
  m_still.clear();
  if (!m_growth || m_growth->checkpoints.empty()) return false;
  const auto& cps = m_growth->checkpoints;
  uint64_t max_bytes = 1;
  for (const auto& c : cps) max_bytes = std::max(max_bytes, c.introduced_bytes);
  const std::vector<double> ticks = HistoryChart::byteTicks(static_cast<double>(max_bytes));
  const double top = ticks.back();
  const QColor text = palette().color(QPalette::Text), grid = palette().color(QPalette::Mid);
  for (double v : ticks) {
    const double y = plot.bottom() - plot.height() * v / top;
    p.setPen(QPen(grid, 1, Qt::DotLine));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(text);
    p.drawText(QRectF(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               HistoryChart::byteTickLabel(v, static_cast<double>(max_bytes)));
  }
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.topLeft(), plot.bottomLeft());
  const double slot = plot.width() / static_cast<double>(cps.size());
  const double width = std::max(1.0, slot * 0.7);
  const size_t labelEvery = std::max<size_t>(1, static_cast<size_t>(std::ceil(60.0 / slot)));
  for (size_t i = 0; i < cps.size(); ++i) {
    const double x = plot.left() + slot * static_cast<double>(i) + (slot - width) / 2;
    const double h = plot.height() * static_cast<double>(cps[i].introduced_bytes) / top;
    const double hs = plot.height() * static_cast<double>(cps[i].still_referenced_bytes) / top;
    const QRectF bar(x, plot.bottom() - h, width, h);
    const QRectF still(x, plot.bottom() - hs, width, hs);
    p.fillRect(bar, seriesColor(1));
    p.fillRect(still, seriesColor(0));
    m_bars.push_back(bar);
    m_still.push_back(still);
    if (i % labelEvery == 0 || i + 1 == cps.size()) {
      p.setPen(text);
      p.drawText(QRectF(x + width / 2 - 40, plot.bottom() + 2, 80, 16), Qt::AlignCenter,
                 QString::number(cps[i].checkpoint_id));
    }
  }
  p.setPen(palette().color(QPalette::PlaceholderText));
  p.drawText(QRectF(plot.left(), plot.bottom() + 18, plot.width(), 16), Qt::AlignLeft,
             tr("latest needs %1, %2 stored; %3 orphaned, %4 not yet deletable")
                 .arg(humanBytes(m_growth->needed_bytes), humanBytes(m_growth->stored_bytes),
                      humanBytes(m_growth->orphaned_bytes),
                      humanBytes(m_growth->not_yet_deletable_bytes)));
  return true;
}

}  // namespace ckpt::inspector
