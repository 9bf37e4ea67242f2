// Charts painted with QPainter in palette colours (Qt Charts is GPL-3): key-group size skew of
// one operator, size and duration across a job's checkpoint history, and per-subtask
// start-delay / alignment / sync / async bars. Each takes plain ops results. GUI thread only.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "models/loaders.h"

namespace ckpt::inspector {

// Shared frame: title, empty-state text, palette-derived series colours.
class ChartBase : public QWidget {
  Q_OBJECT

 public:
  explicit ChartBase(QWidget* parent = nullptr);
  QSize sizeHint() const override { return {640, 320}; }
  QSize minimumSizeHint() const override { return {240, 160}; }
  // Colour of series `i` derived from the palette's highlight.
  QColor seriesColor(int i) const;
  // Where the header legend was drawn (empty when the chart has none), after a paint.
  QRectF headerLegendRect() const { return m_headerLegend; }
  // Where the plot was drawn, after a paint.
  QRectF plotRect() const { return m_plotRect; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  // Paints the chart into `plot` (inside the title and margins); returns false when empty.
  virtual bool paintChart(QPainter& p, const QRectF& plot) = 0;
  virtual QString title() const = 0;
  void drawLegend(QPainter& p, const QRectF& plot, const QStringList& names);
  // Series named in the title row, right-aligned (clear of the axes and their labels); the
  // title is elided to the room left. Default: none.
  virtual QStringList headerLegend() const { return {}; }

 private:
  QRectF m_headerLegend;
  QRectF m_plotRect;
};

// Logical bytes per key group of one operator (stats), median line, largest groups labelled.
class KeyGroupChart : public ChartBase {
  Q_OBJECT

 public:
  explicit KeyGroupChart(QWidget* parent = nullptr) : ChartBase(parent) {}
  void setStats(std::shared_ptr<const ops::StatsReport> stats, int operatorIndex);
  int operatorIndex() const { return m_op; }

 protected:
  bool paintChart(QPainter& p, const QRectF& plot) override;
  QString title() const override;

 private:
  std::shared_ptr<const ops::StatsReport> m_stats;
  int m_op = -1;
};

// Checkpointed and full size bars (left axis, bytes) and the end-to-end duration line (right
// axis, ms) per snapshot of a job, in checkpoint order with trigger times under the ids; axes
// with "nice" ticks and a grid; failed (corrupt) and incomplete checkpoints drawn as marked
// slots, never as silent gaps; a tooltip per snapshot.
class HistoryChart : public ChartBase {
  Q_OBJECT

 public:
  explicit HistoryChart(QWidget* parent = nullptr);
  void setHistory(std::shared_ptr<const std::vector<ops::HistoryRow>> history);
  // The snapshot (index into the history) whose slot holds `pos`, or -1.
  int pointAt(const QPoint& pos) const;
  // What the tooltip of snapshot `i` says.
  QString tooltipFor(int i) const;
  // 0 and evenly spaced 1-2-5 steps up to at least `max` (about `target` of them).
  static std::vector<double> niceTicks(double max, int target = 5);
  // Byte-axis ticks: niceTicks in the binary unit (B, KiB, MiB, ...) that `max_bytes` reaches,
  // so every label is a 1-2-5 multiple of that unit ("512 KiB", "1.5 MiB" never "1.95 MiB").
  static std::vector<double> byteTicks(double max_bytes, int target = 5);
  // A byte tick's label: its value in the unit byteTicks chose for `max_bytes`, without
  // trailing zeros ("0 B", "200 KiB", "1.5 MiB").
  static QString byteTickLabel(double bytes, double max_bytes);
  // Where snapshot `i`'s slot is centred, in widget coordinates (after a paint).
  double slotCenter(int i) const;
  // The x axis: trigger time to scale (default, when at least two snapshots have distinct
  // trigger times; a snapshot without one sits between its neighbours), or one even slot per
  // snapshot in checkpoint order.
  void setProportionalTime(bool on);
  bool proportionalTime() const;
  // Tick times (ms since the epoch) for [t0, t1]: multiples of a 1-2-5 / clock step (ms, s,
  // min, h, days) giving about `target` ticks.
  static std::vector<int64_t> timeTicks(int64_t t0, int64_t t1, int target = 6);

 protected:
  QStringList headerLegend() const override;
  bool paintChart(QPainter& p, const QRectF& plot) override;
  QString title() const override { return tr("Checkpoint history: size and duration"); }
  bool event(QEvent* event) override;

 private:
  // x of every snapshot for `plot` (proportional or slotted), and the bar half-width.
  std::vector<double> positions(const QRectF& plot, double* barWidth) const;

  std::shared_ptr<const std::vector<ops::HistoryRow>> m_history;
  QRectF m_plot;
  bool m_proportional = true;
  std::vector<double> m_xs;  // of the last paint
};

// Per subtask of one operator: start delay, alignment, sync and async durations, stacked;
// subtasks whose checkpoint went unaligned are hatched and labelled "U" (the accessible
// description counts them).
class SubtaskBarsChart : public ChartBase {
  Q_OBJECT

 public:
  explicit SubtaskBarsChart(QWidget* parent = nullptr) : ChartBase(parent) {}
  void setOperator(std::shared_ptr<const ops::Snapshot> snapshot, int operatorIndex);
  // The operator shown (index into the snapshot's operators), -1 for none.
  int operatorIndex() const { return m_op; }

 protected:
  bool paintChart(QPainter& p, const QRectF& plot) override;
  QString title() const override;

 private:
  std::shared_ptr<const ops::Snapshot> m_snapshot;
  int m_op = -1;
  int m_unaligned = 0;  // subtasks of m_op with an unaligned checkpoint
};

}  // namespace ckpt::inspector
