// HistoryTableModel: one row per snapshot of a job, like the history table of Flink's
// Checkpoints tab: id, status, type, trigger time, end-to-end duration, checkpointed and full
// size, processed and persisted in-flight data, unaligned flag, and why a failed or incomplete
// one is not usable. A thin adapter over loadHistory's ops::JobHistory (its rows; the overview
// counts and metric summaries are its ops::HistorySummary); GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "ckpt/ops/history.h"

namespace ckpt::inspector {

class HistoryTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kId, kStatus, kType, kTriggered, kDuration, kCheckpointedSize, kFullSize,
                kProcessed, kPersisted, kUnaligned, kProblem, kColumnCount };
  explicit HistoryTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  // The job's history (null: none); one row per ops::HistoryRow, in its order.
  void setHistory(std::shared_ptr<const ops::JobHistory> history);
  const std::shared_ptr<const ops::JobHistory>& history() const { return m_history; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const ops::JobHistory> m_history;
};

}  // namespace ckpt::inspector
