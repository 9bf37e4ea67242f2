#include "models/state_table_model.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>
#include <set>

#include "ckpt/base/fs.h"
#include "models/display.h"

namespace ckpt::inspector {

StateTableModel::StateTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void StateTableModel::setSource(std::shared_ptr<const ops::Snapshot> snapshot,
                                const QString& operator_ref, const QString& state) {
  beginResetModel();
  m_snapshot = std::move(snapshot);
  m_operator = operator_ref.toStdString();
  m_state = state.toStdString();
  rebuildPlan();
  endReset();
}

void StateTableModel::setFilter(const QString& key_json, std::optional<uint32_t> key_group) {
  beginResetModel();
  m_keyJson = key_json.trimmed().toStdString();
  m_keyGroup = key_group;
  rebuildPlan();
  endReset();
}

// The plan: one chunk per key group that has records in some subtask's handle (the handles
// record per-group counts), or one chunk for non-keyed state, a key filter, or handles without
// per-group counts that ops reads whole.
void StateTableModel::rebuildPlan() {
  m_chunks.clear();
  m_rowChunks.clear();
  m_lru.clear();
  m_cachedRows = 0;
  m_nextChunk = 0;
  m_rowCount = 0;
  m_error.clear();
  if (!m_snapshot || m_operator.empty()) return;
  auto op = m_snapshot->FindOperator(m_operator);
  if (!op.ok()) {
    m_error = qs(op.status().ToString());
    return;
  }
  bool keyed = false;
  for (const ops::StateInfo& s : (*op)->states) {
    if ((m_state.empty() || s.name == m_state) && s.keyed) keyed = true;
  }
  if (!keyed || !m_keyJson.empty()) {
    m_chunks.push_back(Chunk{m_keyGroup, 0, -1, false, {}});
    return;
  }
  std::set<uint32_t> groups;
  for (const ops::SubtaskInfo& st : (*op)->subtasks) {
    for (const ops::KeyedHandle& h : st.keyed) {
      for (uint32_t g = h.key_group_start; g <= h.key_group_end && g >= h.key_group_start; ++g) {
        const size_t i = g - h.key_group_start;
        const bool counted = h.kind == ops::KeyedHandleKind::kKeyGroups && i < h.key_group_records.size();
        if (counted && h.key_group_records[i] == 0) continue;
        groups.insert(g);
        if (g == UINT32_MAX) break;
      }
    }
  }
  for (uint32_t g : groups) {
    if (m_keyGroup && *m_keyGroup != g) continue;
    m_chunks.push_back(Chunk{g, 0, -1, false, {}});
  }
}

bool StateTableModel::readChunk(size_t chunk, std::vector<Row>* rows) const {
  ops::DumpOptions options;
  options.operator_ref = m_operator;
  options.state = m_state;
  options.key_json = m_keyJson;
  options.key_group = m_chunks[chunk].key_group;
  auto n = ops::Dump(base::Fs::Default(), *m_snapshot, options, [&](const ops::DumpEntry& e) {
    Row r;
    r.key = e.key_json;
    r.ns = e.namespace_json;
    r.user_key = e.kind == ops::StateKind::kTimers ? e.timestamp_json : e.user_key_json;  // timers: the timestamp
    r.value = e.value_json;
    r.state = e.state;
    if (e.source != "state") r.source = e.source + " " + e.change_op;
    r.key_group = e.key_group ? static_cast<int64_t>(*e.key_group) : -1;
    r.subtask = e.subtask ? static_cast<int32_t>(*e.subtask) : -1;
    rows->push_back(std::move(r));
    return base::Status::OK();
  });
  if (!n.ok()) {
    m_error = qs(n.status().ToString());
    return false;
  }
  return true;
}

bool StateTableModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && m_nextChunk < m_chunks.size() && m_error.isEmpty();
}

// Views (and QAbstractItemModelTester) may call fetchMore from their modelReset handler, while
// other receivers have not seen the reset yet: inserting rows then would be a change inside a
// change. Such calls are deferred to the event loop.
void StateTableModel::endReset() {
  m_resetting = true;
  endResetModel();
  m_resetting = false;
}

void StateTableModel::fetchMore(const QModelIndex& parent) {
  if (parent.isValid()) return;
  // Also re-entrant calls (a receiver of rowsAboutToBeInserted / rowsInserted asking for more)
  // must wait: rows of the next key group would otherwise be numbered before this one's.
  if (m_resetting || m_fetching) {
    QMetaObject::invokeMethod(this, [this] { if (canFetchMore({})) fetchMore({}); }, Qt::QueuedConnection);
    return;
  }
  m_fetching = true;
  int added = 0;
  // Bounded work per call even when many key groups hold nothing of the selected state.
  for (int visited = 0; m_nextChunk < m_chunks.size() && added < kFetchBatchRows && visited < 512;
       ++visited) {
    const size_t c = m_nextChunk;
    std::vector<Row> rows;
    if (!readChunk(c, &rows)) {
      m_nextChunk = m_chunks.size();
      m_fetching = false;
      Q_EMIT loadFailed(m_error);
      return;
    }
    ++m_nextChunk;
    Chunk& chunk = m_chunks[c];
    chunk.first_row = m_rowCount;
    chunk.rows = static_cast<int>(rows.size());
    if (rows.empty()) continue;
    beginInsertRows({}, m_rowCount, m_rowCount + chunk.rows - 1);
    chunk.data = std::move(rows);
    chunk.cached = true;
    m_cachedRows += chunk.data.size();
    m_rowChunks.push_back(c);
    m_rowCount += chunk.rows;
    touch(c);
    endInsertRows();
    added += chunk.rows;
  }
  m_fetching = false;
}

void StateTableModel::touch(size_t chunk) const {
  auto it = std::find(m_lru.begin(), m_lru.end(), chunk);
  if (it != m_lru.end()) m_lru.erase(it);
  m_lru.push_front(chunk);
  while (m_cachedRows > kMaxCachedRows && m_lru.size() > 1) {
    Chunk& victim = m_chunks[m_lru.back()];
    m_lru.pop_back();
    m_cachedRows -= victim.data.size();
    std::vector<Row>().swap(victim.data);
    victim.cached = false;
  }
}

const StateTableModel::Row* StateTableModel::rowAt(int row) const {
  auto it = std::upper_bound(m_rowChunks.begin(), m_rowChunks.end(), row,
                             [this](int r, size_t c) { return r < m_chunks[c].first_row; });
  if (it == m_rowChunks.begin()) return nullptr;
  const size_t c = *std::prev(it);
  Chunk& chunk = m_chunks[c];
  if (!chunk.cached) {
    // Evicted: read the key group again (ops seeks to its section).
    std::vector<Row> rows;
    if (!readChunk(c, &rows)) return nullptr;
    chunk.data = std::move(rows);
    chunk.cached = true;
    m_cachedRows += chunk.data.size();
  }
  touch(c);
  const size_t i = static_cast<size_t>(row - chunk.first_row);
  return i < chunk.data.size() ? &chunk.data[i] : nullptr;
}

int StateTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rowCount; }
int StateTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant StateTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const Row* r = rowAt(index.row());
  if (r == nullptr) return {};
  switch (index.column()) {
    case kSubtask: return r->subtask < 0 ? QVariant() : QVariant(r->subtask);
    case kKeyGroup: return r->key_group < 0 ? QVariant() : QVariant::fromValue<qlonglong>(r->key_group);
    case kKey: return qs(r->key);
    case kNamespace: return qs(r->ns);
    case kUserKey: return qs(r->user_key);
    case kValue: return qs(r->value);
    case kSource: return r->source.empty() ? qs(r->state) : qs(r->state + " (" + r->source + ")");
    default: return {};
  }
}

QVariant StateTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Subtask", "Key group", "Key", "Namespace", "User key", "Value", "State"};
  return section >= 0 && section < kColumnCount ? tr(kNames[section]) : QVariant();
}

QByteArray StateTableModel::rowsToJson(const QModelIndexList& indexes) {
  std::set<int> rows;
  for (const QModelIndex& i : indexes) {
    if (i.isValid() && i.model() == this) rows.insert(i.row());
  }
  // Values are JSON texts already (ops renders them through the state's types): embed them
  // verbatim rather than as strings.
  QByteArray out("[");
  bool first = true;
  for (int row : rows) {
    const Row* r = rowAt(row);
    if (r == nullptr) continue;
    auto str = [](const std::string& s) {
      return QJsonDocument(QJsonObject{{QStringLiteral("s"), qs(s)}}).toJson(QJsonDocument::Compact).mid(5).chopped(1);
    };
    auto raw = [](const std::string& s) { return s.empty() ? QByteArray("null") : QByteArray::fromStdString(s); };
    out += first ? "\n" : ",\n";
    first = false;
    out += "{\"state\":" + str(r->state) + ",\"subtask\":" +
           (r->subtask < 0 ? QByteArray("null") : QByteArray::number(r->subtask)) +
           ",\"key_group\":" + (r->key_group < 0 ? QByteArray("null") : QByteArray::number(r->key_group)) + ",\"key\":" + raw(r->key) +
           ",\"namespace\":" + raw(r->ns) + ",\"user_key\":" + raw(r->user_key) +
           ",\"value\":" + raw(r->value) + "}";
  }
  out += "\n]\n";
  return out;
}

}  // namespace ckpt::inspector
