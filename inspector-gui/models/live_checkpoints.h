// The live Checkpoints view's data: ckpt::ops's live structs (Flink's REST answers, read by
// ops::LiveClient from ckpt-engine or a Flink cluster) in Qt types, and thin read-only table
// models over them (history, summary percentiles, configuration, per-operator and per-subtask
// details). The conversions and parse functions are thread-safe (pure functions); the models are
// GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <QByteArray>
#include <QString>
#include <QVector>
#include <optional>
#include <utility>

#include "ckpt/ops/live.h"

namespace ckpt::inspector {

struct LiveJob {
  QString id, name, state;
};

struct LiveVertex {
  QString id, name;
  int parallelism = 0;
};

struct LiveHistoryEntry {
  qint64 id = 0;
  QString status;  // COMPLETED, IN_PROGRESS, FAILED
  bool savepoint = false;
  QString type;  // Flink's checkpoint_type: CHECKPOINT, UNALIGNED_CHECKPOINT, SAVEPOINT, ...
  qint64 triggerMs = 0, latestAckMs = 0, durationMs = 0;
  qint64 checkpointedBytes = 0, stateBytes = 0, processedBytes = 0, persistedBytes = 0;
  int subtasks = 0, acknowledged = 0;
  QString path;            // external_path (completed): a plain path (ckpt-engine) or a URI (Flink)
  bool discarded = false;  // completed, then subsumed and deleted (Flink's `discarded`)
  QString failure;  // failure_message (failed)
};

// The local file-system path of a snapshot's external_path, by base::LocalPathOf's rule: a plain
// absolute path as is, a file: URI (Flink's "file:/a/b", "file:///a/b", "file://localhost/a/b")
// as its path; "" for a relative path, a file: URI naming another host, other schemes (s3://,
// hdfs://) and Flink's "<checkpoint-not-externally-addressable>".
QString localSnapshotPath(const QString& externalPath);

// One metric of Flink's summary: min, max, avg and the percentiles p50 .. p99.9. A value Flink
// sends as "NaN" (a percentile over no or too few samples) or leaves out is NaN, shown as "—".
struct LiveSummaryRow {
  QString metric;
  double values[8] = {};  // min, max, avg, p50, p90, p95, p99, p999
};

struct LiveCheckpoints {
  qint64 restored = 0, total = 0, inProgress = 0, completed = 0, failed = 0;
  QVector<LiveSummaryRow> summary;
  QVector<LiveHistoryEntry> history;  // newest first, as the REST API sends it
  std::optional<LiveHistoryEntry> latestCompleted, latestSavepoint, latestFailed;
  qint64 restoredId = -1;
  QString restoredPath;
};

// Per vertex of one checkpoint (details/:id "tasks").
struct LiveTaskStats {
  QString vertexId;
  QString status;
  int subtasks = 0, acknowledged = 0;
  qint64 durationMs = 0, checkpointedBytes = 0, stateBytes = 0, processedBytes = 0,
         persistedBytes = 0;
};

// One subtask of one vertex of one checkpoint (details/:id/subtasks/:vertex "subtasks").
struct LiveSubtaskStats {
  int index = 0;
  QString status;  // "completed", or "pending_or_failed" (then only the index is known)
  qint64 ackMs = 0, durationMs = 0, stateBytes = 0, checkpointedBytes = 0;
  qint64 syncMs = 0, asyncMs = 0, alignmentMs = 0, startDelayMs = 0;
  qint64 processedBytes = 0, persistedBytes = 0;
  bool unaligned = false;
};

// The ops structs in the view's types.
LiveJob liveFromOps(const ops::LiveJob& job);
LiveVertex liveFromOps(const ops::LiveVertex& vertex);
LiveHistoryEntry liveFromOps(const ops::LiveCheckpoint& checkpoint);
LiveCheckpoints liveFromOps(const ops::LiveCheckpoints& checkpoints);
LiveTaskStats liveFromOps(const ops::LiveTaskStats& task);
LiveSubtaskStats liveFromOps(const ops::LiveSubtaskStats& subtask);
QVector<std::pair<QString, QString>> liveFromOps(const ops::LiveConfig& config);
template <class T>
auto liveFromOps(const std::vector<T>& items) -> QVector<decltype(liveFromOps(items.front()))> {
  QVector<decltype(liveFromOps(items.front()))> out;
  out.reserve(static_cast<qsizetype>(items.size()));
  for (const T& item : items) out.push_back(liveFromOps(item));
  return out;
}

// One captured answer body through ops's parser (ops::Parse*) into the view's types. Each returns
// nullopt with `*error` set (the parser's message) when the body is not the expected answer.
std::optional<QVector<LiveJob>> parseJobsOverview(const QByteArray& json, QString* error);
std::optional<QVector<LiveVertex>> parseJobVertices(const QByteArray& json, QString* error);
std::optional<LiveCheckpoints> parseCheckpointingStatistics(const QByteArray& json,
                                                            QString* error);
// Every leaf of the checkpoint configuration as "path" -> text, sorted by path
// ("externalization.enabled" -> "true").
std::optional<QVector<std::pair<QString, QString>>> parseCheckpointConfig(const QByteArray& json,
                                                                          QString* error);
std::optional<QVector<LiveTaskStats>> parseCheckpointDetails(const QByteArray& json,
                                                             QString* error);
std::optional<QVector<LiveSubtaskStats>> parseSubtaskDetails(const QByteArray& json,
                                                             QString* error);

class LiveHistoryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kId, kStatus, kType, kTriggered, kDuration, kCheckpointed, kFullSize,
                kProcessed, kPersisted, kAcknowledged, kPathOrFailure, kColumnCount };
  explicit LiveHistoryModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  // Replaces the rows. A refresh that drops old ids and adds new ones around the kept ones in
  // the same order (the usual live update: a new checkpoint on top, the oldest leaving the
  // bottom) is applied as row removals and insertions, so the selection and the scroll position
  // stay on their checkpoint; any other change resets the model.
  void setEntries(const QVector<LiveHistoryEntry>& entries);
  const QVector<LiveHistoryEntry>& entries() const { return m_entries; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<LiveHistoryEntry> m_entries;
};

class LiveSummaryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit LiveSummaryModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setRows(const QVector<LiveSummaryRow>& rows);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<LiveSummaryRow> m_rows;
};

// Key/value rows (the configuration).
class LivePairsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit LivePairsModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setPairs(const QVector<std::pair<QString, QString>>& pairs);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<std::pair<QString, QString>> m_pairs;
};

// Per-operator (vertex) statistics of the selected checkpoint; names from the job's vertices,
// rows in the vertices' (topological) order (the REST answer keys them by vertex id).
class LiveTasksModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kOperator, kStatus, kAcknowledged, kDuration, kCheckpointed, kFullSize,
                kProcessed, kPersisted, kColumnCount };
  explicit LiveTasksModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setTasks(const QVector<LiveTaskStats>& tasks, const QVector<LiveVertex>& vertices);
  const QVector<LiveTaskStats>& tasks() const { return m_tasks; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<LiveTaskStats> m_tasks;
  QVector<QString> m_names;
};

class LiveSubtasksModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kIndex, kStatus, kAck, kDuration, kSync, kAsync, kAlignment, kStartDelay,
                kProcessed, kPersisted, kFullSize, kUnaligned, kColumnCount };
  explicit LiveSubtasksModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setSubtasks(const QVector<LiveSubtaskStats>& subtasks);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<LiveSubtaskStats> m_subtasks;
};

}  // namespace ckpt::inspector
