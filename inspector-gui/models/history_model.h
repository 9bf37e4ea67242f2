// HistoryTableModel: one row per snapshot of a job, like the history table of Flink's
// Checkpoints tab: id, status, type, trigger time, end-to-end duration, checkpointed and full
// size, processed and persisted in-flight data, unaligned flag, and why a failed or incomplete
// one is not usable. Plus the overview counts and min / avg / max / p99 summary over the
// completed ones. A thin adapter over loadHistory's points (ops::ListRoot + metadata); GUI
// thread only.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <vector>

#include "models/loaders.h"

namespace ckpt::inspector {

// min / avg / max / p99 of one metric over the completed snapshots (nearest-rank p99).
struct MetricSummary {
  double min = 0, avg = 0, max = 0, p99 = 0;
  size_t count = 0;
};
MetricSummary summarize(std::vector<double> values);

class HistoryTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kId, kStatus, kType, kTriggered, kDuration, kCheckpointedSize, kFullSize,
                kProcessed, kPersisted, kUnaligned, kProblem, kColumnCount };
  explicit HistoryTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setHistory(std::shared_ptr<const std::vector<HistoryPoint>> history);
  const std::shared_ptr<const std::vector<HistoryPoint>>& history() const { return m_history; }

  struct Counts {
    size_t completed = 0, failed = 0, incomplete = 0, restored = 0;
  };
  // Completed = complete metadata; failed = corrupt metadata; incomplete = no _metadata;
  // restored = snapshots that record a restore source.
  Counts counts() const;
  MetricSummary durationSummary() const;          // ms
  MetricSummary checkpointedSizeSummary() const;  // bytes
  MetricSummary fullSizeSummary() const;          // bytes

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const std::vector<HistoryPoint>> m_history;
};

}  // namespace ckpt::inspector
