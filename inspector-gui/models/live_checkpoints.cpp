// The live view's types from ckpt::ops's live structs, and its table models.
#include "models/live_checkpoints.h"

#include <QFont>
#include <QHash>
#include <algorithm>
#include <cmath>

#include "ckpt/base/fs_resolver.h"
#include "models/display.h"

namespace ckpt::inspector {

namespace {

QString liveText(const std::string& s) { return QString::fromStdString(s); }

QString bytes(qint64 n) { return humanBytes(static_cast<uint64_t>(std::max<qint64>(n, 0))); }
QString ms(qint64 n) { return QStringLiteral("%1 ms").arg(n); }

bool acknowledged(const LiveSubtaskStats& s) { return s.status == QLatin1String("completed"); }

// An ops parser's result in the view's types, or nullopt with `*error` set.
template <class T>
auto liveParsed(const base::Result<T>& parsed, QString* error)
    -> std::optional<decltype(liveFromOps(*parsed))> {
  if (!parsed.ok()) {
    if (error) *error = QString::fromStdString(parsed.status().message());
    return std::nullopt;
  }
  return liveFromOps(*parsed);
}

std::string_view liveBytes(const QByteArray& json) {
  return std::string_view(json.constData(), static_cast<size_t>(json.size()));
}

}  // namespace

QString localSnapshotPath(const QString& externalPath) {
  base::Result<std::string> local = base::LocalPathOf(externalPath.toStdString());
  // Only an absolute path names a snapshot here: a relative one would resolve against this
  // process's working directory, not the cluster's.
  if (!local.ok() || local->empty() || local->front() != '/') return {};
  return QString::fromStdString(*local);
}

LiveJob liveFromOps(const ops::LiveJob& job) {
  return {liveText(job.id), liveText(job.name), liveText(job.state)};
}

LiveVertex liveFromOps(const ops::LiveVertex& vertex) {
  return {liveText(vertex.id), liveText(vertex.name), vertex.parallelism};
}

LiveHistoryEntry liveFromOps(const ops::LiveCheckpoint& c) {
  LiveHistoryEntry e;
  e.id = c.id;
  e.status = liveText(c.status);
  e.savepoint = c.is_savepoint;
  e.type = liveText(c.type);
  e.triggerMs = c.trigger_ms;
  e.latestAckMs = c.latest_ack_ms;
  e.durationMs = c.duration_ms;
  e.checkpointedBytes = c.checkpointed_bytes;
  e.stateBytes = c.state_bytes;
  e.processedBytes = c.processed_bytes;
  e.persistedBytes = c.persisted_bytes;
  e.subtasks = c.subtasks;
  e.acknowledged = c.acknowledged;
  e.path = liveText(c.external_path);
  e.discarded = c.discarded;
  e.failure = liveText(c.failure_message);
  return e;
}

LiveCheckpoints liveFromOps(const ops::LiveCheckpoints& in) {
  LiveCheckpoints c;
  c.restored = in.counts.restored;
  c.total = in.counts.total;
  c.inProgress = in.counts.in_progress;
  c.completed = in.counts.completed;
  c.failed = in.counts.failed;
  for (const ops::LiveSummaryRow& r : in.summary) {
    LiveSummaryRow row;
    row.metric = liveText(r.metric);
    std::copy(std::begin(r.values), std::end(r.values), std::begin(row.values));
    c.summary.push_back(row);
  }
  c.history = liveFromOps(in.history);
  if (in.latest_completed) c.latestCompleted = liveFromOps(*in.latest_completed);
  if (in.latest_savepoint) c.latestSavepoint = liveFromOps(*in.latest_savepoint);
  if (in.latest_failed) c.latestFailed = liveFromOps(*in.latest_failed);
  c.restoredId = in.restored_id;
  c.restoredPath = liveText(in.restored_path);
  return c;
}

LiveTaskStats liveFromOps(const ops::LiveTaskStats& t) {
  LiveTaskStats s;
  s.vertexId = liveText(t.vertex_id);
  s.status = liveText(t.status);
  s.subtasks = t.subtasks;
  s.acknowledged = t.acknowledged;
  s.durationMs = t.duration_ms;
  s.checkpointedBytes = t.checkpointed_bytes;
  s.stateBytes = t.state_bytes;
  s.processedBytes = t.processed_bytes;
  s.persistedBytes = t.persisted_bytes;
  return s;
}

LiveSubtaskStats liveFromOps(const ops::LiveSubtaskStats& t) {
  LiveSubtaskStats s;
  s.index = t.index;
  s.status = liveText(t.status);
  s.ackMs = t.ack_ms;
  s.durationMs = t.duration_ms;
  s.stateBytes = t.state_bytes;
  s.checkpointedBytes = t.checkpointed_bytes;
  s.syncMs = t.sync_ms;
  s.asyncMs = t.async_ms;
  s.alignmentMs = t.alignment_ms;
  s.startDelayMs = t.start_delay_ms;
  s.processedBytes = t.processed_bytes;
  s.persistedBytes = t.persisted_bytes;
  s.unaligned = t.unaligned;
  return s;
}

QVector<std::pair<QString, QString>> liveFromOps(const ops::LiveConfig& config) {
  QVector<std::pair<QString, QString>> out;
  out.reserve(static_cast<qsizetype>(config.size()));
  for (const auto& [key, value] : config) out.push_back({liveText(key), liveText(value)});
  return out;
}

std::optional<QVector<LiveJob>> parseJobsOverview(const QByteArray& json, QString* error) {
  return liveParsed(ops::ParseJobsOverview(liveBytes(json)), error);
}

std::optional<QVector<LiveVertex>> parseJobVertices(const QByteArray& json, QString* error) {
  return liveParsed(ops::ParseJobVertices(liveBytes(json)), error);
}

std::optional<LiveCheckpoints> parseCheckpointingStatistics(const QByteArray& json,
                                                            QString* error) {
  return liveParsed(ops::ParseCheckpointingStatistics(liveBytes(json)), error);
}

std::optional<QVector<std::pair<QString, QString>>> parseCheckpointConfig(const QByteArray& json,
                                                                          QString* error) {
  return liveParsed(ops::ParseCheckpointConfig(liveBytes(json)), error);
}

std::optional<QVector<LiveTaskStats>> parseCheckpointDetails(const QByteArray& json,
                                                             QString* error) {
  return liveParsed(ops::ParseCheckpointDetails(liveBytes(json)), error);
}

std::optional<QVector<LiveSubtaskStats>> parseSubtaskDetails(const QByteArray& json,
                                                             QString* error) {
  return liveParsed(ops::ParseSubtaskDetails(liveBytes(json)), error);
}

// --- LiveHistoryModel -------------------------------------------------------------------------

void LiveHistoryModel::setEntries(const QVector<LiveHistoryEntry>& entries) {
  // Where each new id stands; the kept old rows must appear in the new list in the same order
  // (ids are unique in a history), else the change is not a live update and the model resets.
  QHash<qint64, int> position;
  for (int j = 0; j < entries.size(); ++j) position.insert(entries[j].id, j);
  bool ordered = position.size() == entries.size();
  int last = -1;
  for (int i = 0; ordered && i < m_entries.size(); ++i) {
    const auto it = position.constFind(m_entries[i].id);
    if (it == position.cend()) continue;
    ordered = *it > last;
    last = *it;
  }
  if (!ordered) {
    beginResetModel();
    m_entries = entries;
    endResetModel();
    return;
  }
  // Rows that left the history, bottom up, one contiguous run at a time.
  for (int r = static_cast<int>(m_entries.size()) - 1; r >= 0;) {
    if (position.contains(m_entries[r].id)) {
      --r;
      continue;
    }
    const int end = r;
    while (r >= 0 && !position.contains(m_entries[r].id)) --r;
    beginRemoveRows({}, r + 1, end);
    m_entries.remove(r + 1, end - r);
    endRemoveRows();
  }
  // New rows between the kept ones (m_entries is now an ordered subsequence of `entries`).
  int i = 0;
  for (int j = 0; j < entries.size();) {
    if (i < m_entries.size() && m_entries[i].id == entries[j].id) {
      m_entries[i++] = entries[j++];
      continue;
    }
    const int first = j;
    while (j < entries.size() && (i >= m_entries.size() || entries[j].id != m_entries[i].id)) ++j;
    beginInsertRows({}, i, i + (j - first) - 1);
    m_entries.insert(i, j - first, LiveHistoryEntry());
    for (int k = first; k < j; ++k) m_entries[i++] = entries[k];
    endInsertRows();
  }
  if (!m_entries.isEmpty()) {
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
  }
}

int LiveHistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}
int LiveHistoryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant LiveHistoryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_entries.size()) return {};
  const LiveHistoryEntry& e = m_entries[index.row()];
  if (role == Qt::UserRole) return e.id;
  const bool openable = e.status == QLatin1String("COMPLETED") && !e.path.isEmpty() && !e.discarded;
  if (role == Qt::ToolTipRole) {
    if (e.status == QLatin1String("FAILED")) return e.failure;
    return openable && index.column() == kPathOrFailure ? tr("%1\nClick to open").arg(e.path)
                                                        : e.path;
  }
  if (role == Qt::FontRole && index.column() == kPathOrFailure && openable) {
    QFont link;  // the path of a snapshot one click opens, shown as a link
    link.setUnderline(true);
    return link;
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kId: return e.id;
    case kStatus: return e.status;
    case kType: return e.savepoint && e.type.isEmpty() ? QStringLiteral("SAVEPOINT") : e.type;
    case kTriggered: return formatTimestamp(e.triggerMs);
    case kDuration: return ms(e.durationMs);
    case kCheckpointed: return bytes(e.checkpointedBytes);
    case kFullSize: return bytes(e.stateBytes);
    case kProcessed: return bytes(e.processedBytes);
    case kPersisted: return bytes(e.persistedBytes);
    case kAcknowledged: return QStringLiteral("%1/%2").arg(e.acknowledged).arg(e.subtasks);
    case kPathOrFailure: return e.status == QLatin1String("FAILED") ? e.failure : e.path;
    default: return {};
  }
}

QVariant LiveHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"ID",        "Status",    "Type",      "Triggered",
                                "Duration",  "Checkpointed", "Full size", "Processed",
                                "Persisted", "Acknowledged", "Path / failure"};
  return section >= 0 && section < kColumnCount ? tr(names[section]) : QVariant();
}

// --- LiveSummaryModel -------------------------------------------------------------------------

void LiveSummaryModel::setRows(const QVector<LiveSummaryRow>& rows) {
  beginResetModel();
  m_rows = rows;
  endResetModel();
}
int LiveSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}
int LiveSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 9; }

QVariant LiveSummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows.size()) return {};
  const LiveSummaryRow& r = m_rows[index.row()];
  if (role == Qt::UserRole && index.column() > 0) return r.values[index.column() - 1];
  if (role != Qt::DisplayRole) return {};
  if (index.column() == 0) return r.metric;
  const double v = r.values[index.column() - 1];
  if (std::isnan(v)) return QStringLiteral("—");
  if (r.metric == QLatin1String("end_to_end_duration")) return ms(static_cast<qint64>(v));
  return bytes(static_cast<qint64>(v));
}

QVariant LiveSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Metric", "Min", "Max", "Avg", "p50", "p90", "p95", "p99", "p99.9"};
  return section >= 0 && section < 9 ? QString::fromLatin1(names[section]) : QVariant();
}

// --- LivePairsModel ---------------------------------------------------------------------------

void LivePairsModel::setPairs(const QVector<std::pair<QString, QString>>& pairs) {
  beginResetModel();
  m_pairs = pairs;
  endResetModel();
}
int LivePairsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_pairs.size());
}
int LivePairsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 2; }
QVariant LivePairsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_pairs.size() || role != Qt::DisplayRole) return {};
  return index.column() == 0 ? m_pairs[index.row()].first : m_pairs[index.row()].second;
}
QVariant LivePairsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? tr("Option") : tr("Value");
}

// --- LiveTasksModel ---------------------------------------------------------------------------

void LiveTasksModel::setTasks(const QVector<LiveTaskStats>& tasks,
                              const QVector<LiveVertex>& vertices) {
  beginResetModel();
  m_tasks = tasks;
  const auto rank = [&vertices](const QString& id) {
    for (int i = 0; i < vertices.size(); ++i) {
      if (vertices[i].id == id) return i;
    }
    return static_cast<int>(vertices.size());
  };
  std::stable_sort(m_tasks.begin(), m_tasks.end(),
                   [&rank](const LiveTaskStats& a, const LiveTaskStats& b) {
                     return rank(a.vertexId) < rank(b.vertexId);
                   });
  m_names.clear();
  for (const LiveTaskStats& t : m_tasks) {
    QString name = t.vertexId;
    for (const LiveVertex& v : vertices) {
      if (v.id == t.vertexId) name = v.name;
    }
    m_names.push_back(name);
  }
  endResetModel();
}
int LiveTasksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_tasks.size());
}
int LiveTasksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}
QVariant LiveTasksModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_tasks.size()) return {};
  const LiveTaskStats& t = m_tasks[index.row()];
  if (role == Qt::UserRole) return t.vertexId;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kOperator: return m_names[index.row()];
    case kStatus: return t.status;
    case kAcknowledged: return QStringLiteral("%1/%2").arg(t.acknowledged).arg(t.subtasks);
    case kDuration: return ms(t.durationMs);
    case kCheckpointed: return bytes(t.checkpointedBytes);
    case kFullSize: return bytes(t.stateBytes);
    case kProcessed: return bytes(t.processedBytes);
    case kPersisted: return bytes(t.persistedBytes);
    default: return {};
  }
}
QVariant LiveTasksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Operator",     "Status",    "Acknowledged", "Duration",
                                "Checkpointed", "Full size", "Processed",    "Persisted"};
  return section >= 0 && section < kColumnCount ? tr(names[section]) : QVariant();
}

// --- LiveSubtasksModel ------------------------------------------------------------------------

void LiveSubtasksModel::setSubtasks(const QVector<LiveSubtaskStats>& subtasks) {
  beginResetModel();
  m_subtasks = subtasks;
  endResetModel();
}
int LiveSubtasksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_subtasks.size());
}
int LiveSubtasksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}
QVariant LiveSubtasksModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_subtasks.size() || role != Qt::DisplayRole) return {};
  const LiveSubtaskStats& s = m_subtasks[index.row()];
  // A subtask that has not acknowledged has no statistics yet (Flink sends only its index).
  if (!acknowledged(s) && index.column() != kIndex && index.column() != kStatus) {
    return QStringLiteral("—");
  }
  switch (index.column()) {
    case kIndex: return s.index;
    case kStatus: return s.status;
    case kAck: return s.ackMs > 0 ? formatTimestamp(s.ackMs) : QStringLiteral("—");
    case kDuration: return ms(s.durationMs);
    case kSync: return ms(s.syncMs);
    case kAsync: return ms(s.asyncMs);
    case kAlignment: return ms(s.alignmentMs);
    case kStartDelay: return ms(s.startDelayMs);
    case kProcessed: return bytes(s.processedBytes);
    case kPersisted: return bytes(s.persistedBytes);
    case kFullSize: return bytes(s.stateBytes);
    case kUnaligned: return s.unaligned ? tr("yes") : tr("no");
    default: return {};
  }
}
QVariant LiveSubtasksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Subtask",   "Status",    "Acknowledged", "End to end",
                                "Sync",      "Async",     "Alignment",    "Start delay",
                                "Processed", "Persisted", "Full size",    "Unaligned"};
  return section >= 0 && section < kColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace ckpt::inspector
