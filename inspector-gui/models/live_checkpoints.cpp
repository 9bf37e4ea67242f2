// Parsing Flink's checkpoint REST answers with QJsonDocument, and the live view's table models.
#include "models/live_checkpoints.h"

#include <QFont>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <algorithm>
#include <cmath>
#include <limits>

#include "models/display.h"

namespace ckpt::inspector {

namespace {

std::optional<QJsonObject> object(const QByteArray& json, const char* what, QString* error) {
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
  if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
    if (error) {
      *error = QStringLiteral("%1: not a JSON object (%2)")
                   .arg(QLatin1String(what),
                        pe.error != QJsonParseError::NoError ? pe.errorString()
                                                             : QStringLiteral("other JSON"));
    }
    return std::nullopt;
  }
  return doc.object();
}

qint64 num(const QJsonObject& o, const char* key) {
  return static_cast<qint64>(o.value(QLatin1String(key)).toDouble());
}

LiveHistoryEntry entry(const QJsonObject& o) {
  LiveHistoryEntry e;
  e.id = num(o, "id");
  e.status = o.value(QLatin1String("status")).toString();
  e.savepoint = o.value(QLatin1String("is_savepoint")).toBool();
  e.type = o.value(QLatin1String("checkpoint_type")).toString();
  e.triggerMs = num(o, "trigger_timestamp");
  e.latestAckMs = num(o, "latest_ack_timestamp");
  e.durationMs = num(o, "end_to_end_duration");
  e.checkpointedBytes = num(o, "checkpointed_size");
  e.stateBytes = num(o, "state_size");
  e.processedBytes = num(o, "processed_data");
  e.persistedBytes = num(o, "persisted_data");
  e.subtasks = static_cast<int>(num(o, "num_subtasks"));
  e.acknowledged = static_cast<int>(num(o, "num_acknowledged_subtasks"));
  e.path = o.value(QLatin1String("external_path")).toString();
  e.discarded = o.value(QLatin1String("discarded")).toBool();
  e.failure = o.value(QLatin1String("failure_message")).toString();
  return e;
}

std::optional<LiveHistoryEntry> optionalEntry(const QJsonValue& v) {
  if (!v.isObject()) return std::nullopt;
  return entry(v.toObject());
}

void flatten(const QString& prefix, const QJsonValue& v, QVector<std::pair<QString, QString>>* out) {
  if (v.isObject()) {
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
      flatten(prefix.isEmpty() ? it.key() : prefix + QLatin1Char('.') + it.key(), it.value(), out);
    }
    return;
  }
  QString text;
  if (v.isBool()) {
    text = v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
  } else if (v.isDouble()) {
    text = QString::number(v.toDouble(), 'g', 15);
  } else if (v.isString()) {
    text = v.toString();
  } else if (v.isArray()) {
    text = QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
  } else {
    text = QStringLiteral("—");
  }
  out->push_back({prefix, text});
}

QString bytes(qint64 n) { return humanBytes(static_cast<uint64_t>(std::max<qint64>(n, 0))); }
QString ms(qint64 n) { return QStringLiteral("%1 ms").arg(n); }

// Flink writes a percentile it cannot compute as the string "NaN" (Jackson's default).
double summaryValue(const QJsonValue& v) {
  return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

bool acknowledged(const LiveSubtaskStats& s) { return s.status == QLatin1String("completed"); }

}  // namespace

QString localSnapshotPath(const QString& externalPath) {
  if (externalPath.startsWith(QLatin1Char('/'))) return externalPath;
  if (!externalPath.startsWith(QLatin1String("file:"), Qt::CaseInsensitive)) return {};
  // QUrl takes file:/a, file:///a and file://localhost/a; a file: URI naming another host is not
  // a path here.
  const QUrl url(externalPath);
  if (!url.isValid() || !url.isLocalFile()) return {};
  if (!url.host().isEmpty() && url.host() != QLatin1String("localhost")) return {};
  return url.path();  // decoded; toLocalFile() would keep "//localhost" as a UNC prefix
}

std::optional<QVector<LiveJob>> parseJobsOverview(const QByteArray& json, QString* error) {
  std::optional<QJsonObject> o = object(json, "/jobs/overview", error);
  if (!o) return std::nullopt;
  QVector<LiveJob> jobs;
  for (const QJsonValue& v : o->value(QLatin1String("jobs")).toArray()) {
    const QJsonObject j = v.toObject();
    jobs.push_back({j.value(QLatin1String("jid")).toString(), j.value(QLatin1String("name")).toString(),
                    j.value(QLatin1String("state")).toString()});
  }
  return jobs;
}

std::optional<QVector<LiveVertex>> parseJobVertices(const QByteArray& json, QString* error) {
  std::optional<QJsonObject> o = object(json, "/jobs/:jobid", error);
  if (!o) return std::nullopt;
  QVector<LiveVertex> out;
  for (const QJsonValue& v : o->value(QLatin1String("vertices")).toArray()) {
    const QJsonObject j = v.toObject();
    out.push_back({j.value(QLatin1String("id")).toString(), j.value(QLatin1String("name")).toString(),
                   static_cast<int>(num(j, "parallelism"))});
  }
  return out;
}

std::optional<LiveCheckpoints> parseCheckpointingStatistics(const QByteArray& json,
                                                            QString* error) {
  std::optional<QJsonObject> o = object(json, "/jobs/:jobid/checkpoints", error);
  if (!o) return std::nullopt;
  if (!o->value(QLatin1String("counts")).isObject()) {
    if (error) *error = QStringLiteral("/jobs/:jobid/checkpoints: no 'counts' object");
    return std::nullopt;
  }
  LiveCheckpoints c;
  const QJsonObject counts = o->value(QLatin1String("counts")).toObject();
  c.restored = num(counts, "restored");
  c.total = num(counts, "total");
  c.inProgress = num(counts, "in_progress");
  c.completed = num(counts, "completed");
  c.failed = num(counts, "failed");
  const QJsonObject summary = o->value(QLatin1String("summary")).toObject();
  const char* metrics[] = {"checkpointed_size", "state_size",     "end_to_end_duration",
                           "processed_data",    "persisted_data", "alignment_buffered"};
  const char* stats[] = {"min", "max", "avg", "p50", "p90", "p95", "p99", "p999"};
  for (const char* m : metrics) {
    if (!summary.contains(QLatin1String(m))) continue;
    const QJsonObject s = summary.value(QLatin1String(m)).toObject();
    LiveSummaryRow row;
    row.metric = QLatin1String(m);
    for (int i = 0; i < 8; ++i) row.values[i] = summaryValue(s.value(QLatin1String(stats[i])));
    c.summary.push_back(row);
  }
  const QJsonObject latest = o->value(QLatin1String("latest")).toObject();
  c.latestCompleted = optionalEntry(latest.value(QLatin1String("completed")));
  c.latestSavepoint = optionalEntry(latest.value(QLatin1String("savepoint")));
  c.latestFailed = optionalEntry(latest.value(QLatin1String("failed")));
  const QJsonValue restored = latest.value(QLatin1String("restored"));
  if (restored.isObject()) {
    c.restoredId = num(restored.toObject(), "id");
    c.restoredPath = restored.toObject().value(QLatin1String("external_path")).toString();
  }
  for (const QJsonValue& v : o->value(QLatin1String("history")).toArray()) {
    if (v.isObject()) c.history.push_back(entry(v.toObject()));
  }
  return c;
}

std::optional<QVector<std::pair<QString, QString>>> parseCheckpointConfig(const QByteArray& json,
                                                                          QString* error) {
  std::optional<QJsonObject> o = object(json, "/jobs/:jobid/checkpoints/config", error);
  if (!o) return std::nullopt;
  QVector<std::pair<QString, QString>> out;
  flatten(QString(), *o, &out);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<QVector<LiveTaskStats>> parseCheckpointDetails(const QByteArray& json,
                                                             QString* error) {
  std::optional<QJsonObject> o = object(json, "/jobs/:jobid/checkpoints/details/:id", error);
  if (!o) return std::nullopt;
  QVector<LiveTaskStats> out;
  const QJsonObject tasks = o->value(QLatin1String("tasks")).toObject();
  for (auto it = tasks.begin(); it != tasks.end(); ++it) {
    const QJsonObject t = it.value().toObject();
    LiveTaskStats s;
    s.vertexId = it.key();
    s.status = t.value(QLatin1String("status")).toString();
    s.subtasks = static_cast<int>(num(t, "num_subtasks"));
    s.acknowledged = static_cast<int>(num(t, "num_acknowledged_subtasks"));
    s.durationMs = num(t, "end_to_end_duration");
    s.checkpointedBytes = num(t, "checkpointed_size");
    s.stateBytes = num(t, "state_size");
    s.processedBytes = num(t, "processed_data");
    s.persistedBytes = num(t, "persisted_data");
    out.push_back(s);
  }
  return out;
}

std::optional<QVector<LiveSubtaskStats>> parseSubtaskDetails(const QByteArray& json,
                                                             QString* error) {
  std::optional<QJsonObject> o =
      object(json, "/jobs/:jobid/checkpoints/details/:id/subtasks/:vertexid", error);
  if (!o) return std::nullopt;
  QVector<LiveSubtaskStats> out;
  for (const QJsonValue& v : o->value(QLatin1String("subtasks")).toArray()) {
    const QJsonObject j = v.toObject();
    LiveSubtaskStats s;
    s.index = static_cast<int>(num(j, "index"));
    s.status = j.value(QLatin1String("status")).toString();
    s.ackMs = num(j, "ack_timestamp");
    s.durationMs = num(j, "end_to_end_duration");
    s.stateBytes = num(j, "state_size");
    s.checkpointedBytes = num(j, "checkpointed_size");
    const QJsonObject cp = j.value(QLatin1String("checkpoint")).toObject();
    s.syncMs = num(cp, "sync");
    s.asyncMs = num(cp, "async");
    const QJsonObject al = j.value(QLatin1String("alignment")).toObject();
    s.alignmentMs = num(al, "duration");
    s.processedBytes = num(al, "processed");
    s.persistedBytes = num(al, "persisted");
    s.startDelayMs = num(j, "start_delay");
    s.unaligned = j.value(QLatin1String("unaligned_checkpoint")).toBool();
    out.push_back(s);
  }
  return out;
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
