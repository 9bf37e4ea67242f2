#include "app/charts.h"

#include <QHelpEvent>
#include <QPainter>
#include <QTimeZone>
#include <QToolTip>
#include <cmath>
#include <cstdlib>
#include <algorithm>

#include "ckpt/ops/operator_label.h"
#include "models/display.h"
#include "models/tone.h"

namespace ckpt::inspector {

ChartBase::ChartBase(QWidget* parent) : QWidget(parent) { setAutoFillBackground(false); }

QColor ChartBase::seriesColor(int i) const {
  const QColor base = palette().color(QPalette::Highlight);
  const int hue = (std::max(0, base.hsvHue()) + i * 75) % 360;
  return QColor::fromHsv(hue, std::max(90, base.hsvSaturation()), std::max(150, base.value()));
}

void ChartBase::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().color(QPalette::Base));
  p.setPen(palette().color(QPalette::Text));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  const int th = fontMetrics().height() + 6;
  // The header legend, right-aligned in the title row; the title gets what is left.
  const QStringList legend = headerLegend();
  const QFontMetrics fm(font());
  qreal legendWidth = 0;
  for (const QString& name : legend) legendWidth += 24 + fm.horizontalAdvance(name);
  m_headerLegend = legend.isEmpty() ? QRectF() : QRectF(width() - 8 - legendWidth, 4, legendWidth, th);
  const int titleWidth = static_cast<int>(legend.isEmpty() ? width() - 16 : m_headerLegend.left() - 16 - 8);
  p.drawText(QRect(8, 4, std::max(0, titleWidth), th), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetrics(bold).elidedText(title(), Qt::ElideRight, std::max(0, titleWidth)));
  p.setFont(font());
  qreal lx = m_headerLegend.left();
  for (int i = 0; i < legend.size(); ++i) {
    const qreal y = 4 + (th - 10) / 2.0;
    p.fillRect(QRectF(lx, y, 10, 10), seriesColor(i));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(lx + 14, 4, fm.horizontalAdvance(legend[i]) + 2, th), Qt::AlignLeft | Qt::AlignVCenter, legend[i]);
    lx += 24 + fm.horizontalAdvance(legend[i]);
  }
  const QRectF plot(76, th + 8, width() - 76 - 76, height() - th - 8 - 40);
  m_plotRect = plot;
  if (plot.width() < 20 || plot.height() < 20 || !paintChart(p, plot)) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No data"));
  }
}

void ChartBase::drawLegend(QPainter& p, const QRectF& plot, const QStringList& names) {
  qreal x = plot.left();
  const qreal y = plot.bottom() + 20;
  for (int i = 0; i < names.size(); ++i) {
    p.fillRect(QRectF(x, y, 10, 10), seriesColor(i));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QPointF(x + 14, y + 10), names[i]);
    x += 24 + fontMetrics().horizontalAdvance(names[i]);
  }
}

QString KeyGroupChart::title() const {
  if (!m_stats || m_op < 0) return tr("Size per key group");
  const ops::OperatorStats& o = m_stats->operators[static_cast<size_t>(m_op)];
  return tr("Size per key group: %1 (skew %2x median)").arg(qs(ops::OperatorLabel(o.name, o.uid, o.id_hex))).arg(o.skew, 0, 'f', 1);
}

void KeyGroupChart::setStats(std::shared_ptr<const ops::StatsReport> stats, int operatorIndex) {
  m_stats = std::move(stats);
  m_op = operatorIndex;
  if (m_stats && m_op < 0) {
    // Default to the operator with keyed data and the largest skew.
    for (size_t i = 0; i < m_stats->operators.size(); ++i) {
      if (!m_stats->operators[i].key_groups.empty() &&
          (m_op < 0 || m_stats->operators[i].skew > m_stats->operators[static_cast<size_t>(m_op)].skew)) {
        m_op = static_cast<int>(i);
      }
    }
  }
  update();
}

bool KeyGroupChart::paintChart(QPainter& p, const QRectF& plot) {
  if (!m_stats || m_op < 0 || m_op >= static_cast<int>(m_stats->operators.size())) return false;
  const ops::OperatorStats& o = m_stats->operators[static_cast<size_t>(m_op)];
  if (o.key_groups.empty() || o.max_parallelism == 0) return false;
  uint64_t mx = 1;
  for (const auto& g : o.key_groups) mx = std::max(mx, g.bytes);
  const double bw = plot.width() / o.max_parallelism;
  p.setPen(palette().color(QPalette::Mid));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  for (const auto& g : o.key_groups) {
    const double h = plot.height() * static_cast<double>(g.bytes) / static_cast<double>(mx);
    p.fillRect(QRectF(plot.left() + g.key_group * bw, plot.bottom() - h, std::max(1.0, bw - 1), h),
               seriesColor(0));
  }
  const double my = plot.bottom() - plot.height() * static_cast<double>(o.median_key_group_bytes) / static_cast<double>(mx);
  p.setPen(QPen(seriesColor(1), 1.5, Qt::DashLine));
  p.drawLine(QPointF(plot.left(), my), QPointF(plot.right(), my));
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QPointF(plot.right() + 4, my + 4), tr("median"));
  p.drawText(QRectF(0, plot.top() - 2, plot.left() - 4, 16), Qt::AlignRight, humanBytes(mx));
  p.drawText(QPointF(plot.left(), plot.bottom() + 14), QStringLiteral("0"));
  p.drawText(QRectF(plot.right() - 160, plot.bottom() + 2, 160, 16), Qt::AlignRight,
             tr("key group %1").arg(o.max_parallelism - 1));
  return true;
}

HistoryChart::HistoryChart(QWidget* parent) : ChartBase(parent) { setMouseTracking(true); }

void HistoryChart::setHistory(std::shared_ptr<const std::vector<ops::HistoryRow>> history) {
  m_history = std::move(history);
  update();
}

std::vector<double> HistoryChart::niceTicks(double max, int target) {
  if (max <= 0) return {0, 1};
  const double raw = max / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  // Multiples of the step (not a running sum, which drifts off 0.6 to 0.6000000000000001).
  std::vector<double> ticks;
  for (int i = 0; i == 0 || ticks.back() < max * (1 - 1e-9); ++i) ticks.push_back(i * step);
  if (ticks.size() < 2) ticks.push_back(step);
  return ticks;
}

namespace {
// The binary unit (1, 1024, 1024^2, ...) `bytes` reaches, up to TiB.
double HistoryByteUnit(double bytes) {
  double unit = 1;
  for (int k = 0; k < 4 && bytes >= unit * 1024; ++k) unit *= 1024;
  return unit;
}
}  // namespace

std::vector<double> HistoryChart::byteTicks(double max_bytes, int target) {
  const double unit = HistoryByteUnit(max_bytes);
  std::vector<double> ticks = niceTicks(max_bytes / unit, target);
  // Bytes are whole: below 1 B steps make no sense.
  if (unit == 1 && ticks.size() > 1 && ticks[1] < 1) ticks = {0, 1};
  for (double& t : ticks) t *= unit;
  return ticks;
}

QString HistoryChart::byteTickLabel(double bytes, double max_bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  const double unit = HistoryByteUnit(max_bytes);
  int k = 0;
  for (double u = unit; u >= 1024; u /= 1024) ++k;
  return QStringLiteral("%1 %2").arg(QString::number(bytes / unit, 'g', 6), QLatin1String(kUnits[k]));
}

void HistoryChart::setProportionalTime(bool on) {
  m_proportional = on;
  update();
}

// Proportional only when the trigger times span something (two distinct ones at least).
bool HistoryChart::proportionalTime() const {
  if (!m_proportional || !m_history) return false;
  int64_t lo = 0, hi = 0;
  for (const auto& pt : *m_history) {
    const int64_t t = pt.entry.trigger_timestamp_ms;
    if (t <= 0) continue;
    lo = lo == 0 ? t : std::min(lo, t);
    hi = std::max(hi, t);
  }
  return hi > lo;
}

std::vector<int64_t> HistoryChart::timeTicks(int64_t t0, int64_t t1, int target) {
  static constexpr int64_t kSteps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000,
                                       30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000,
                                       7200000, 10800000, 21600000, 43200000, 86400000, 172800000,
                                       604800000};
  if (t1 <= t0) return {t0};
  const int64_t want = (t1 - t0) / std::max(1, target);
  int64_t step = kSteps[std::size(kSteps) - 1];
  for (int64_t s : kSteps) {
    if (s >= want) {
      step = s;
      break;
    }
  }
  while ((t1 - t0) / step > 4 * target) step *= 2;  // spans beyond a week
  std::vector<int64_t> ticks;
  for (int64_t t = (t0 + step - 1) / step * step; t <= t1; t += step) ticks.push_back(t);
  return ticks;
}

std::vector<double> HistoryChart::positions(const QRectF& plot, double* barWidth) const {
  std::vector<double> xs;
  if (!m_history || m_history->empty()) return xs;
  const auto& h = *m_history;
  const size_t n = h.size();
  const double slot = plot.width() / static_cast<double>(n);
  if (!proportionalTime()) {
    for (size_t i = 0; i < n; ++i) xs.push_back(plot.left() + slot * static_cast<double>(i) + slot / 2);
    if (barWidth) *barWidth = std::max(2.0, slot / 3);
    return xs;
  }
  int64_t t0 = 0, t1 = 0;
  for (const auto& pt : h) {
    const int64_t t = pt.entry.trigger_timestamp_ms;
    if (t <= 0) continue;
    t0 = t0 == 0 ? t : std::min(t0, t);
    t1 = std::max(t1, t);
  }
  const double pad = std::min(plot.width() * 0.04, 30.0);
  const double w = plot.width() - 2 * pad;
  xs.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t t = h[i].entry.trigger_timestamp_ms;
    if (t > 0) xs[i] = plot.left() + pad + w * static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
  }
  // No trigger time (a failed or incomplete checkpoint): spread between its timed neighbours.
  for (size_t i = 0; i < n; ++i) {
    if (xs[i] >= 0) continue;
    size_t j = i;
    while (j < n && xs[j] < 0) ++j;
    const double left = i > 0 ? xs[i - 1] : plot.left() + pad / 2;
    const double right = j < n ? xs[j] : plot.right() - pad / 2;
    const double count = static_cast<double>(j - i);
    for (size_t k = i; k < j; ++k) xs[k] = left + (right - left) * static_cast<double>(k - i + 1) / (count + 1);
    i = j - 1;
  }
  double gap = w;
  for (size_t i = 1; i < n; ++i) {
    const double d = std::abs(xs[i] - xs[i - 1]);
    if (d > 0.5) gap = std::min(gap, d);
  }
  // Thin bars however sparse the history: at most 24 px, and never past the padding.
  if (barWidth) *barWidth = std::clamp(std::min(gap / 3, slot / 3), 2.0, std::max(2.0, std::min(24.0, pad)));
  return xs;
}

double HistoryChart::slotCenter(int i) const {
  if (i < 0 || static_cast<size_t>(i) >= m_xs.size()) return -1;
  return m_xs[static_cast<size_t>(i)];
}

// The snapshot drawn nearest `pos` (within a few pixels of its bar pair).
int HistoryChart::pointAt(const QPoint& pos) const {
  if (!m_history || m_xs.empty() || !m_plot.adjusted(-8, 0, 8, 36).contains(pos)) return -1;
  int best = -1;
  double bestDist = 1e9;
  for (size_t i = 0; i < m_xs.size(); ++i) {
    const double d = std::abs(pos.x() - m_xs[i]);
    if (d < bestDist) {
      bestDist = d;
      best = static_cast<int>(i);
    }
  }
  const double reach = m_xs.size() > 1 ? std::max(8.0, m_plot.width() / static_cast<double>(m_xs.size()) / 2) : m_plot.width();
  return bestDist <= reach ? best : -1;
}

QString HistoryChart::tooltipFor(int i) const {
  if (!m_history || i < 0 || i >= static_cast<int>(m_history->size())) return {};
  const ops::HistoryRow& pt = (*m_history)[static_cast<size_t>(i)];
  const ops::SnapshotEntry& e = pt.entry;
  QString t = tr("Checkpoint %1 (%2)").arg(e.checkpoint_id).arg(qs(e.path));
  if (e.health != ops::SnapshotHealth::kComplete) {
    return t + QLatin1Char('\n') + (e.health == ops::SnapshotHealth::kCorrupt ? tr("failed: ") : tr("incomplete: ")) + qs(e.problem);
  }
  t += QLatin1Char('\n') + tr("triggered %1").arg(formatTimestamp(e.trigger_timestamp_ms));
  t += QLatin1Char('\n') + tr("end-to-end %1 ms").arg(pt.duration_ms);
  t += QLatin1Char('\n') + tr("checkpointed %1, full %2").arg(humanBytes(e.checkpointed_size_bytes), humanBytes(e.full_size_bytes));
  if (pt.metrics) {
    t += QLatin1Char('\n') + tr("in-flight: processed %1, persisted %2%3").arg(humanBytes(pt.metrics->processed_data), humanBytes(pt.metrics->persisted_data),
                                                                             pt.metrics->is_unaligned ? tr(", unaligned") : QString());
  }
  return t;
}

bool HistoryChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = tooltipFor(pointAt(help->pos()));
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return ChartBase::event(event);
}

bool HistoryChart::paintChart(QPainter& p, const QRectF& plotIn) {
  if (!m_history || m_history->empty()) return false;
  // Room for the time labels under the ids.
  const QRectF plot = plotIn.adjusted(0, 0, 0, -14);
  m_plot = plot;
  const auto& h = *m_history;
  uint64_t max_size = 1;
  int64_t max_ms = 1;
  bool same_day = true;
  int64_t first_ms = 0;
  for (const auto& pt : h) {
    max_size = std::max({max_size, pt.entry.full_size_bytes, pt.entry.checkpointed_size_bytes});
    max_ms = std::max(max_ms, pt.duration_ms);
    if (pt.entry.trigger_timestamp_ms > 0) {
      if (first_ms == 0) first_ms = pt.entry.trigger_timestamp_ms;
      same_day &= std::llabs(pt.entry.trigger_timestamp_ms - first_ms) < 86400000;
    }
  }
  const std::vector<double> sizeTicks = byteTicks(static_cast<double>(max_size));
  const std::vector<double> msTicks = niceTicks(static_cast<double>(max_ms));
  const double sizeTop = sizeTicks.back(), msTop = msTicks.back();
  const QColor text = palette().color(QPalette::Text), grid = palette().color(QPalette::Mid);
  // Grid and left axis (bytes).
  for (double v : sizeTicks) {
    const double y = plot.bottom() - plot.height() * v / sizeTop;
    p.setPen(QPen(grid, 1, Qt::DotLine));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(text);
    p.drawText(QRectF(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, byteTickLabel(v, static_cast<double>(max_size)));
  }
  // Right axis (ms), at the same number of steps where possible.
  p.setPen(text);
  for (double v : msTicks) {
    const double y = plot.bottom() - plot.height() * v / msTop;
    p.drawLine(QPointF(plot.right(), y), QPointF(plot.right() + 4, y));
    p.drawText(QRectF(plot.right() + 6, y - 8, 60, 16), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("%1 ms").arg(v, 0, 'f', 0));
  }
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.topLeft(), plot.bottomLeft());
  p.drawLine(plot.topRight(), plot.bottomRight());
  double bw = 2;
  m_xs = positions(plot, &bw);
  const bool proportional = proportionalTime();
  // A failed / incomplete checkpoint's marked band: as wide as the bars around it.
  const double slot = proportional ? std::max(8.0, 3 * bw) : plot.width() / static_cast<double>(h.size());
  const size_t labelEvery = proportional ? 1 : std::max<size_t>(1, static_cast<size_t>(std::ceil(70.0 / std::max(1.0, slot))));
  double lastLabel = -1e9;
  if (proportional) {
    // Time ticks to scale under the checkpoint ids.
    int64_t t0 = 0, t1 = 0;
    for (const auto& pt : h) {
      if (pt.entry.trigger_timestamp_ms <= 0) continue;
      t0 = t0 == 0 ? pt.entry.trigger_timestamp_ms : std::min(t0, pt.entry.trigger_timestamp_ms);
      t1 = std::max(t1, pt.entry.trigger_timestamp_ms);
    }
    const double pad = std::min(plot.width() * 0.04, 30.0);
    const std::vector<int64_t> ticks = timeTicks(t0, t1, std::max(2, static_cast<int>(plot.width() / 110)));
    const int64_t step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1000;
    const QString format = step < 1000 ? QStringLiteral("HH:mm:ss.zzz")
                           : step >= 86400000 ? QStringLiteral("yyyy-MM-dd")
                           : same_day ? QStringLiteral("HH:mm:ss") : QStringLiteral("MM-dd HH:mm");
    for (int64_t t : ticks) {
      const double x = plot.left() + pad + (plot.width() - 2 * pad) * static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
      p.setPen(QPen(grid, 1, Qt::DotLine));
      p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 17));
      p.drawText(QRectF(x - 50, plot.bottom() + 16, 100, 14), Qt::AlignCenter,
                 QDateTime::fromMSecsSinceEpoch(t, QTimeZone::utc()).toString(format));
    }
  }
  QPolygonF line;
  for (size_t i = 0; i < h.size(); ++i) {
    const auto& e = h[i].entry;
    const double x = m_xs[i];
    if (e.health != ops::SnapshotHealth::kComplete) {
      // A failed or incomplete checkpoint: a marked slot across the plot, not a gap.
      const QColor c = toneColor(e.health == ops::SnapshotHealth::kCorrupt ? Tone::kError : Tone::kWarning, palette());
      QColor fill = c;
      fill.setAlpha(40);
      p.fillRect(QRectF(x - slot / 2 + 1, plot.top(), slot - 2, plot.height()), QBrush(fill, Qt::BDiagPattern));
      p.setPen(QPen(c, 2));
      const double m = std::min(6.0, slot / 3);
      p.drawLine(QPointF(x - m, plot.bottom() - 2 * m), QPointF(x + m, plot.bottom()));
      p.drawLine(QPointF(x - m, plot.bottom()), QPointF(x + m, plot.bottom() - 2 * m));
      if (slot > 40) {
        p.drawText(QRectF(x - slot / 2, plot.top() + 2, slot, 14), Qt::AlignCenter,
                   e.health == ops::SnapshotHealth::kCorrupt ? tr("failed") : tr("incomplete"));
      }
    } else {
      const double full = plot.height() * static_cast<double>(e.full_size_bytes) / sizeTop;
      const double ck = plot.height() * static_cast<double>(e.checkpointed_size_bytes) / sizeTop;
      p.fillRect(QRectF(x - bw, plot.bottom() - full, bw, full), seriesColor(0));
      p.fillRect(QRectF(x, plot.bottom() - ck, bw, ck), seriesColor(1));
      if (h[i].duration_ms >= 0) {
        line << QPointF(x, plot.bottom() - plot.height() * static_cast<double>(h[i].duration_ms) / msTop);
      }
    }
    if (proportional && x - lastLabel >= 36) {
      // Ids where they fit; the time ticks below carry the scale.
      lastLabel = x;
      p.setPen(text);
      p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3));
      p.drawText(QRectF(x - 40, plot.bottom() + 3, 80, 14), Qt::AlignCenter,
                 e.checkpoint_id > 0 ? QString::number(e.checkpoint_id) : QStringLiteral("?"));
    } else if (!proportional && i % labelEvery == 0) {
      p.setPen(text);
      p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3));
      p.drawText(QRectF(x - 40, plot.bottom() + 3, 80, 14), Qt::AlignCenter,
                 e.checkpoint_id > 0 ? QString::number(e.checkpoint_id) : QStringLiteral("?"));
      if (e.trigger_timestamp_ms > 0) {
        const QDateTime t = QDateTime::fromMSecsSinceEpoch(e.trigger_timestamp_ms, QTimeZone::utc());
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(x - 45, plot.bottom() + 16, 90, 14), Qt::AlignCenter,
                   t.toString(same_day ? QStringLiteral("HH:mm:ss") : QStringLiteral("MM-dd HH:mm")));
      }
    }
  }
  p.setPen(QPen(seriesColor(2), 2));
  p.drawPolyline(line);
  for (const QPointF& pt : line) p.drawEllipse(pt, 3, 3);
  p.setPen(text);
  p.drawText(QRectF(plot.left(), plotIn.bottom() + 20, plot.width(), 14), Qt::AlignRight,
             proportional ? tr("x: trigger time to scale (UTC), checkpoint ids above; hatched: failed / incomplete")
                          : tr("x: checkpoint id, trigger time (UTC); hatched: failed / incomplete"));
  return true;
}

QStringList HistoryChart::headerLegend() const {
  return {tr("full size"), tr("checkpointed size"), tr("end-to-end duration")};
}

QString SubtaskBarsChart::title() const {
  if (!m_snapshot || m_op < 0) return tr("Per-subtask checkpoint timings");
  const ops::OperatorInfo& o = m_snapshot->operators[static_cast<size_t>(m_op)];
  const QString t = tr("Per-subtask checkpoint timings: %1").arg(qs(ops::OperatorLabel(o.name, o.uid, o.id_hex)));
  return m_unaligned > 0 ? t + tr(" (%1 unaligned, marked U)").arg(m_unaligned) : t;
}

void SubtaskBarsChart::setOperator(std::shared_ptr<const ops::Snapshot> snapshot, int operatorIndex) {
  m_snapshot = std::move(snapshot);
  m_op = operatorIndex;
  if (m_snapshot && m_op < 0) {
    for (size_t i = 0; i < m_snapshot->operators.size() && m_op < 0; ++i) {
      if (!m_snapshot->operators[i].subtasks.empty()) m_op = static_cast<int>(i);
    }
  }
  // Subtasks whose checkpoint went unaligned (persisted in-flight data): marked in the chart and
  // named in its accessible description.
  m_unaligned = 0;
  int total = 0;
  if (m_snapshot && m_op >= 0 && m_op < static_cast<int>(m_snapshot->operators.size())) {
    for (const auto& st : m_snapshot->operators[static_cast<size_t>(m_op)].subtasks) {
      ++total;
      if (st.metrics.unaligned_checkpoint) ++m_unaligned;
    }
  }
  setAccessibleDescription(total == 0 ? QString()
                                      : tr("%1 of %2 subtasks took an unaligned checkpoint").arg(m_unaligned).arg(total));
  update();
}

bool SubtaskBarsChart::paintChart(QPainter& p, const QRectF& plot) {
  if (!m_snapshot || m_op < 0 || m_op >= static_cast<int>(m_snapshot->operators.size())) return false;
  const auto& subs = m_snapshot->operators[static_cast<size_t>(m_op)].subtasks;
  if (subs.empty()) return false;
  int64_t mx = 1;
  for (const auto& s : subs) {
    const auto& m = s.metrics;
    mx = std::max(mx, m.start_delay + m.alignment_duration + m.sync_duration + m.async_duration);
  }
  // Horizontal bars, one per subtask; at most one pixel row each when there are many.
  const double bh = std::min(28.0, plot.height() / static_cast<double>(subs.size()));
  for (size_t i = 0; i < subs.size(); ++i) {
    const auto& m = subs[i].metrics;
    const int64_t parts[] = {m.start_delay, m.alignment_duration, m.sync_duration, m.async_duration};
    double x = plot.left();
    const double y = plot.top() + bh * static_cast<double>(i);
    for (int k = 0; k < 4; ++k) {
      const double w = plot.width() * static_cast<double>(std::max<int64_t>(0, parts[k])) / static_cast<double>(mx);
      p.fillRect(QRectF(x, y + (bh > 4 ? 1 : 0), w, std::max(1.0, bh - (bh > 4 ? 2 : 0))), seriesColor(k));
      x += w;
    }
    const bool unaligned = m.unaligned_checkpoint;
    if (unaligned) {
      // Hatched over the whole bar: this subtask's checkpoint persisted in-flight data.
      p.fillRect(QRectF(plot.left(), y, std::max(2.0, x - plot.left()), std::max(1.0, bh)),
                 QBrush(palette().color(QPalette::Text), Qt::BDiagPattern));
    }
    if (bh >= fontMetrics().height()) {
      p.setPen(palette().color(QPalette::Text));
      p.drawText(QRectF(0, y, plot.left() - 4, bh), Qt::AlignRight | Qt::AlignVCenter,
                 QString::number(subs[i].index) + (unaligned ? QStringLiteral(" U") : QString()));
    }
  }
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRectF(plot.right() - 100, plot.bottom() + 2, 100, 14), Qt::AlignRight, QStringLiteral("%1 ms").arg(mx));
  drawLegend(p, plot, {tr("start delay"), tr("alignment"), tr("sync"), tr("async")});
  return true;
}

}  // namespace ckpt::inspector
