// GrowthChart: why a job's checkpoint storage grows, painted with QPainter from ops::JobGrowth
// (ops computes every number; this only draws): per retained checkpoint a bar of the bytes it
// introduced, split into the share the latest checkpoint still references and the rest, and
// the space amplification (stored / needed by the latest) in the title. GUI thread only.
#pragma once

#include <memory>

#include "app/charts.h"
#include "ckpt/ops/growth.h"

namespace ckpt::inspector {

class GrowthChart : public ChartBase {
  Q_OBJECT

 public:
  explicit GrowthChart(QWidget* parent = nullptr);
  // Shows `growth` (null: none).
  void setGrowth(std::shared_ptr<const ops::JobGrowth> growth);
  std::shared_ptr<const ops::JobGrowth> growth() const { return m_growth; }
  // The checkpoint (index into growth()->checkpoints) whose bar holds `pos`, or -1.
  int barAt(const QPoint& pos) const;
  // What the tooltip of checkpoint `i` says.
  QString tooltipFor(int i) const;
  // The bar of checkpoint `i` (whole height: introduced bytes) after a paint; empty if none.
  QRectF barRect(int i) const;
  // The still-referenced part of that bar after a paint (at its bottom); empty if none.
  QRectF stillReferencedRect(int i) const;

 protected:
  QStringList headerLegend() const override;
  bool paintChart(QPainter& p, const QRectF& plot) override;
  QString title() const override;
  bool event(QEvent* event) override;

 private:
  std::shared_ptr<const ops::JobGrowth> m_growth;
  std::vector<QRectF> m_bars;   // of the last paint
  std::vector<QRectF> m_still;  // of the last paint
};

}  // namespace ckpt::inspector
