// HistoryPage: a job's checkpoint history like Flink's Checkpoints tab: overview counts
// (completed, failed, incomplete, restored), min / avg / max / p50 / p99 of end-to-end duration and
// sizes, the latest snapshot's checkpointing settings, the size/duration chart, the storage
// growth chart (ops::ComputeGrowth) and the sortable history table. Selecting a row opens that snapshot. GUI thread only.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "ckpt/ops/growth.h"
#include "ckpt/ops/history.h"

class QCheckBox;
class QLabel;
class QTableView;

namespace ckpt::inspector {

class GrowthChart;
class HistoryChart;
class HistoryTableModel;
class SortProxy;

class HistoryPage : public QWidget {
  Q_OBJECT

 public:
  explicit HistoryPage(QWidget* parent = nullptr);
  // Shows `history` (null: none): its rows, and the overview from its ops::HistorySummary.
  void setHistory(std::shared_ptr<const ops::JobHistory> history);
  // Shows the job's storage growth (null: none) in the growth chart.
  void setGrowth(std::shared_ptr<const ops::JobGrowth> growth);
  HistoryChart* chart() const { return m_chart; }
  GrowthChart* growthChart() const { return m_growthChart; }
  HistoryTableModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QCheckBox* timeScaleBox() const { return m_timeScale; }
  QString overviewText() const;

 Q_SIGNALS:
  // A history row was activated: the snapshot at `path` (relative to the root).
  void snapshotActivated(const QString& path);

 private:
  HistoryChart* m_chart;
  GrowthChart* m_growthChart;
  HistoryTableModel* m_model;
  SortProxy* m_proxy;
  QTableView* m_table;
  QLabel* m_overview;
  QCheckBox* m_timeScale;
};

}  // namespace ckpt::inspector
