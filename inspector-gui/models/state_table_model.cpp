#include "models/state_table_model.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaObject>
#include <QPointer>
#include <algorithm>
#include <atomic>
#include <utility>

#include "ckpt/base/fs.h"
#include "ckpt/ops/state_entries.h"
#include "models/display.h"
#include "models/timestamp_text.h"

namespace ckpt::inspector {
namespace {

using Row = StateTableModel::Row;
using Query = StateTableModel::Query;
using KeyMatch = StateTableModel::KeyMatch;

// The key as the table shows it, for prefix / substring matching: a string key without its
// JSON quotes.
std::string_view keyText(const std::string& key_json) {
  std::string_view k(key_json);
  if (k.size() >= 2 && k.front() == '"' && k.back() == '"') k = k.substr(1, k.size() - 2);
  return k;
}

// The key text filters (prefix, substring) are the table's own: ops::Dump filters by exact key
// (DumpOptions::key_json) only, so the model matches the other two on the entries Dump emits.
bool keyMatches(const Query& q, const ops::DumpEntry& e) {
  if (q.match == KeyMatch::kExact || q.key.empty()) return true;
  if (q.match == KeyMatch::kValueContains) return keyText(e.value_json).find(q.key) != std::string_view::npos;
  const std::string_view k = keyText(e.key_json);
  if (q.match == KeyMatch::kPrefix) return k.substr(0, q.key.size()) == q.key;
  return k.find(q.key) != std::string_view::npos;
}

// Sort order of two cells: empty first, then numbers by value (before text), then text.
int CompareStateCells(const QVariant& a, const QVariant& b) {
  const QString sa = a.toString(), sb = b.toString();
  if (sa.isEmpty() || sb.isEmpty()) return sa.isEmpty() == sb.isEmpty() ? 0 : (sa.isEmpty() ? -1 : 1);
  bool na = false, nb = false;
  const double da = sa.toDouble(&na), db = sb.toDouble(&nb);
  if (na && nb) return da < db ? -1 : da > db ? 1 : 0;
  if (na != nb) return na ? -1 : 1;
  return sa.compare(sb);
}

// Field `i` of `value_json` as its cell shows it: a string without its quotes, anything else as
// compact JSON (Qt keeps integers that fit 64 bits exact); empty when the value lacks it (null,
// an opaque value, another shape).
QString StateFieldText(const std::string& value_json, const ops::StateValueFieldList& fields, size_t i) {
  using Layout = ops::StateValueFieldList::Layout;
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(value_json));
  QJsonValue v = QJsonValue::Undefined;
  if (fields.layout == Layout::kObjectMember && doc.isObject()) {
    v = doc.object().value(qs(fields.names[i]));
  } else if (fields.layout == Layout::kArrayElement && doc.isArray()) {
    v = doc.array().at(static_cast<qsizetype>(i));
  } else if (fields.layout == Layout::kRowField && doc.isObject()) {
    v = doc.object().value(QStringLiteral("fields")).toArray().at(static_cast<qsizetype>(i));
  }
  if (v.isUndefined()) return {};
  if (v.isString()) return v.toString();
  if (v.isObject()) return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
  const QByteArray json = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
  return QString::fromUtf8(json.mid(1, json.size() - 2));
}

struct ReadOut {
  int matched = 0;
  std::vector<Row> rows;
  QString error;
};

// Entries of one key group (or the whole state) that match the query: skips `skip` matches,
// keeps up to `keep`, and stops after them unless `count_all`. Runs on the worker; stops early
// when the model moved on to another generation.
ReadOut readEntries(const Query& q, std::optional<uint32_t> key_group, int skip, int keep,
                    bool count_all, const std::atomic<uint64_t>& current, uint64_t generation) {
  ReadOut out;
  ops::DumpOptions options;
  options.operator_ref = q.op;
  options.state = q.state;
  if (q.match == KeyMatch::kExact) options.key_json = q.key;
  options.key_group = key_group;
  options.history = q.history;
  // Keyed pages without a key text filter let ops pass over the earlier entries undecoded.
  if (key_group && (q.match == KeyMatch::kExact || q.key.empty())) {
    options.skip_keyed_entries = static_cast<uint64_t>(skip);
    out.matched = skip;
  }
  bool full = false, superseded = false;
  auto n = ops::Dump(*q.fs, *q.snapshot, options, [&](const ops::DumpEntry& e) {
    if (current.load() != generation) {
      superseded = true;
      return base::Status::Cancelled("superseded");
    }
    if (!keyMatches(q, e)) return base::Status::OK();
    const int i = out.matched++;
    if (i >= skip && i < skip + keep) {
      Row r;
      r.key = e.key_json;
      r.ns = e.namespace_json;
      r.user_key = e.kind == ops::StateKind::kTimers ? e.timestamp_json : e.user_key_json;
      r.value = e.value_json;
      r.state = e.state;
      if (e.source != "state") r.source = e.source + " " + e.change_op;
      r.key_group = e.key_group ? static_cast<int64_t>(*e.key_group) : -1;
      r.subtask = e.subtask ? static_cast<int32_t>(*e.subtask) : -1;
      r.timer = e.kind == ops::StateKind::kTimers;
      if (e.record_file) {
        r.record_file = static_cast<int32_t>(*e.record_file);
        r.record_offset = e.record_offset;
        r.record_length = e.record_length;
      }
      out.rows.push_back(std::move(r));
    }
    if (!count_all && out.matched >= skip + keep) {
      full = true;
      return base::Status::Cancelled("page full");
    }
    return base::Status::OK();
  });
  if (!n.ok() && !full) out.error = superseded ? QStringLiteral("superseded") : qs(n.status().ToString());
  return out;
}

}  // namespace

StateTableModel::StateTableModel(QObject* parent)
    : QAbstractTableModel(parent), m_current(std::make_shared<std::atomic<uint64_t>>(0)) {
  // One worker: pages are read one at a time, most recently asked first.
  m_pool.setMaxThreadCount(1);
}

StateTableModel::~StateTableModel() {
  m_current->store(UINT64_MAX);
  m_pool.clear();
  m_pool.waitForDone();
}

void StateTableModel::setSource(base::Fs& fs, std::shared_ptr<const ops::Snapshot> snapshot,
                                const QString& operator_ref, const QString& state) {
  beginResetModel();
  m_fs = &fs;
  m_snapshot = std::move(snapshot);
  m_query.op = operator_ref.toStdString();
  m_query.state = state.toStdString();
  // A state whose fields cannot be told (or an error, which the plan reports) shows one Value
  // column.
  m_fields = {};
  if (m_snapshot && !m_query.op.empty()) {
    auto fields = ops::StateValueFields(fs, *m_snapshot, m_query.op, m_query.state);
    if (fields.ok()) m_fields = std::move(fields).value();
  }
  rebuildPlan();
  endReset();
}

void StateTableModel::clearSource() {
  beginResetModel();
  m_fs = nullptr;
  m_snapshot.reset();
  m_query.op.clear();
  m_query.state.clear();
  m_fields = {};
  rebuildPlan();
  endReset();
}

void StateTableModel::setFilter(const QString& key, std::optional<uint32_t> key_group,
                                KeyMatch match) {
  beginResetModel();
  m_query.key = key.trimmed().toStdString();
  m_query.match = match;
  m_keyGroup = key_group;
  rebuildPlan();
  endReset();
}

void StateTableModel::setHistory(bool history) {
  beginResetModel();
  m_query.history = history;
  rebuildPlan();
  endReset();
}

// The plan: one chunk per key group that may hold entries of the state (ops::CountStateEntries,
// from the handles' per-group record counts), or one chunk for non-keyed state or an exact key,
// which ops seeks. The counts are the rows when ops says they are exact entry counts and no key
// text filter or history view changes what a Dump emits.
void StateTableModel::rebuildPlan() {
  ++m_generation;
  m_current->store(m_generation);
  m_pool.clear();
  m_chunks.clear();
  m_rowChunks.clear();
  m_pages.clear();
  m_lru.clear();
  m_inflight.clear();
  m_queue.clear();
  m_cachedRows = 0;
  m_nextChunk = 0;
  m_rowCount = 0;
  m_exact = false;
  m_counting = false;
  m_error.clear();
  m_order.clear();
  m_sortColumn = -1;
  m_query.snapshot = m_snapshot;
  m_query.fs = m_fs;
  if (!m_snapshot || !m_fs || m_query.op.empty()) return;
  auto count = ops::CountStateEntries(*m_snapshot, m_query.op, m_query.state);
  if (!count.ok()) {
    m_error = qs(count.status().ToString());
    return;
  }
  const bool exact_key = m_query.match == KeyMatch::kExact && !m_query.key.empty();
  if (!count->keyed || exact_key) {
    m_chunks.push_back(Chunk{m_keyGroup, 0, -1});
    return;
  }
  m_exact = count->exact && m_query.key.empty() && !m_query.history;
  for (const auto& [g, entries] : count->key_group_entries) {
    if (m_keyGroup && *m_keyGroup != g) continue;
    Chunk c{g, 0, -1};
    if (m_exact) {
      c.rows = static_cast<int>(entries);
      c.first_row = m_rowCount;
      m_rowCount += c.rows;
      if (c.rows > 0) m_rowChunks.push_back(m_chunks.size());
    }
    m_chunks.push_back(c);
  }
  if (m_exact) m_nextChunk = m_chunks.size();
}

int StateTableModel::firstRowOfKeyGroup(uint32_t key_group) const {
  for (size_t c : m_rowChunks) {
    if (m_chunks[c].key_group != key_group) continue;
    if (m_order.empty()) return m_chunks[c].first_row;
    // Sorted: the first shown row of the group.
    const int first = m_chunks[c].first_row, end = first + m_chunks[c].rows;
    for (size_t i = 0; i < m_order.size(); ++i) {
      if (m_order[i] >= first && m_order[i] < end) return static_cast<int>(i);
    }
  }
  return -1;
}

bool StateTableModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && m_nextChunk < m_chunks.size() && m_error.isEmpty();
}

// Views (and QAbstractItemModelTester) may call fetchMore from their modelReset handler, while
// other receivers have not seen the reset yet; the counted rows arrive later from the worker, so
// nothing is inserted inside a change.
void StateTableModel::endReset() {
  m_resetting = true;
  endResetModel();
  m_resetting = false;
}

// Counts the next key groups on the worker (at least kFetchBatchRows rows or 512 groups),
// keeping the first page of each while the cache has room.
void StateTableModel::fetchMore(const QModelIndex& parent) {
  if (parent.isValid() || m_counting || !canFetchMore(parent)) return;
  m_counting = true;
  const uint64_t generation = m_generation;
  std::vector<std::optional<uint32_t>> groups;
  for (size_t c = m_nextChunk; c < m_chunks.size() && groups.size() < 512; ++c) groups.push_back(m_chunks[c].key_group);
  const size_t first = m_nextChunk;
  QPointer<StateTableModel> self(this);
  m_pool.start([self, q = m_query, groups, first, generation, current = m_current] {
    std::vector<int> counts;
    std::vector<std::vector<Row>> pages;
    QString error;
    int total = 0;
    size_t kept = 0;
    for (const auto& g : groups) {
      if (current->load() != generation) return;
      const bool room = kept < kMaxCachedRows / 2;
      ReadOut out = readEntries(q, g, 0, room ? kPageRows : 0, true, *current, generation);
      if (!out.error.isEmpty()) {
        error = out.error;
        break;
      }
      kept += out.rows.size();
      counts.push_back(out.matched);
      pages.push_back(std::move(out.rows));
      total += out.matched;
      if (total >= kFetchBatchRows) break;
    }
    QMetaObject::invokeMethod(self, [self, generation, first, counts = std::move(counts), pages = std::move(pages), error]() mutable {
      if (self) self->countArrived(generation, first, std::move(counts), std::move(pages), error);
    }, Qt::QueuedConnection);
  });
}

void StateTableModel::countArrived(uint64_t generation, size_t first_chunk, std::vector<int> counts,
                                   std::vector<std::vector<Row>> first_pages, QString error) {
  if (generation != m_generation) return;
  // m_counting stays set until the rows are in: a receiver of rowsAboutToBeInserted that asks
  // for more must not start counting the same key groups again.
  int added = 0;
  for (int c : counts) added += c;
  const int first_row = m_rowCount;
  if (added > 0) beginInsertRows({}, m_rowCount, m_rowCount + added - 1);
  for (size_t i = 0; i < counts.size(); ++i) {
    Chunk& chunk = m_chunks[first_chunk + i];
    chunk.rows = counts[i];
    chunk.first_row = m_rowCount;
    if (chunk.rows > 0) {
      m_rowChunks.push_back(first_chunk + i);
      m_rowCount += chunk.rows;
      if (!first_pages[i].empty()) store({first_chunk + i, 0}, std::move(first_pages[i]));
    }
  }
  m_nextChunk = first_chunk + counts.size();
  if (added > 0) endInsertRows();
  m_counting = false;
  if (!error.isEmpty()) {
    m_error = error;
    m_nextChunk = m_chunks.size();
    Q_EMIT loadFailed(m_error);
  }
  if (added > 0) Q_EMIT rowsLoaded(first_row, added);
  Q_EMIT countFinished();
}

bool StateTableModel::locate(int row, PageKey* key, size_t* offset) const {
  auto it = std::upper_bound(m_rowChunks.begin(), m_rowChunks.end(), row,
                             [this](int r, size_t c) { return r < m_chunks[c].first_row; });
  if (it == m_rowChunks.begin()) return false;
  const size_t c = *std::prev(it);
  const int in_chunk = row - m_chunks[c].first_row;
  if (in_chunk >= m_chunks[c].rows) return false;
  *key = {c, in_chunk / kPageRows};
  *offset = static_cast<size_t>(in_chunk % kPageRows);
  return true;
}

int StateTableModel::sourceRow(int row) const {
  return row >= 0 && static_cast<size_t>(row) < m_order.size() ? m_order[static_cast<size_t>(row)] : row;
}

bool StateTableModel::isLoaded(int row) const {
  row = sourceRow(row);
  PageKey key;
  size_t offset = 0;
  return locate(row, &key, &offset) && m_pages.count(key) > 0;
}

void StateTableModel::requestRow(int row) const {
  row = sourceRow(row);
  PageKey key;
  size_t offset = 0;
  // After a read error nothing more is read (the error is shown; a new filter or source resets).
  if (!m_error.isEmpty() || !locate(row, &key, &offset) || m_pages.count(key) > 0 || m_inflight.count(key) > 0) return;
  m_queue.remove(key);
  m_queue.push_front(key);
  // A fast scroll asks for many pages: only the most recent few are worth reading.
  while (m_queue.size() > 8) m_queue.pop_back();
  startNext();
}

void StateTableModel::startNext() const {
  if (!m_inflight.empty() || m_queue.empty()) return;
  const PageKey key = m_queue.front();
  m_queue.pop_front();
  m_inflight.insert(key);
  const uint64_t generation = m_generation;
  const std::optional<uint32_t> group = m_chunks[key.first].key_group;
  QPointer<StateTableModel> self(const_cast<StateTableModel*>(this));
  m_pool.start([self, q = m_query, group, key, generation, current = m_current] {
    if (current->load() != generation) return;
    ReadOut out = readEntries(q, group, key.second * kPageRows, kPageRows, false, *current, generation);
    QMetaObject::invokeMethod(self, [self, generation, key, rows = std::move(out.rows), error = out.error]() mutable {
      if (self) self->pageArrived(generation, key, std::move(rows), error);
    }, Qt::QueuedConnection);
  });
}

void StateTableModel::pageArrived(uint64_t generation, PageKey key, std::vector<Row> rows, QString error) {
  if (generation != m_generation) return;
  m_inflight.erase(key);
  if (!error.isEmpty()) {
    m_error = error;
    Q_EMIT loadFailed(error);
  } else {
    const Chunk& chunk = m_chunks[key.first];
    const int first = chunk.first_row + key.second * kPageRows;
    const int count = std::min(kPageRows, chunk.rows - key.second * kPageRows);
    if (static_cast<int>(rows.size()) != count && m_error.isEmpty()) {
      m_error = tr("key group %1: the index counts %2 entries on this page, ops read %3")
                    .arg(chunk.key_group ? static_cast<qlonglong>(*chunk.key_group) : -1LL).arg(count).arg(rows.size());
      Q_EMIT loadFailed(m_error);
    }
    store(key, std::move(rows));
    if (count > 0) {
      Q_EMIT dataChanged(index(first, 0), index(first + count - 1, columnCount() - 1));
      Q_EMIT rowsLoaded(first, count);
    }
  }
  startNext();
}

void StateTableModel::store(PageKey key, std::vector<Row> rows) const {
  auto old = m_pages.find(key);
  if (old != m_pages.end()) {
    m_cachedRows -= old->second.size();
    m_pages.erase(old);
    m_lru.remove(key);
  }
  m_cachedRows += rows.size();
  m_pages.emplace(key, std::move(rows));
  m_lru.push_front(key);
  while (m_cachedRows > kMaxCachedRows && m_lru.size() > 1) {
    auto victim = m_pages.find(m_lru.back());
    m_lru.pop_back();
    m_cachedRows -= victim->second.size();
    m_pages.erase(victim);
  }
}

// `load`: read a missing page on this thread (export); else ask the worker and return nullptr.
const StateTableModel::Row* StateTableModel::rowAt(int row, bool load) const {
  PageKey key;
  size_t offset = 0;
  if (!locate(row, &key, &offset)) return nullptr;
  auto it = m_pages.find(key);
  if (it == m_pages.end()) {
    if (!load) {
      requestRow(row);
      return nullptr;
    }
    ReadOut out = readEntries(m_query, m_chunks[key.first].key_group, key.second * kPageRows,
                              kPageRows, false, *m_current, m_generation);
    if (!out.error.isEmpty()) {
      m_error = out.error;
      return nullptr;
    }
    store(key, std::move(out.rows));
    it = m_pages.find(key);
  } else if (m_lru.front() != key) {
    m_lru.remove(key);
    m_lru.push_front(key);
  }
  return offset < it->second.size() ? &it->second[offset] : nullptr;
}

int StateTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rowCount; }
int StateTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : sourceColumn() + 1; }

QVariant StateTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  if (role >= kRecordFileRole && role <= kRecordLengthRole) {
    const Row* r = rowAt(sourceRow(index.row()), false);
    if (r == nullptr) return {};
    if (role == kRecordFileRole) return r->record_file;
    return QVariant::fromValue<qulonglong>(role == kRecordOffsetRole ? r->record_offset : r->record_length);
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const Row* r = rowAt(sourceRow(index.row()), false);
  if (r == nullptr) return index.column() == kKey ? QVariant(tr("reading…")) : QVariant();
  const int column = index.column();
  if (column >= kValue && column < sourceColumn() && !m_fields.names.empty()) {
    if (role == Qt::ToolTipRole) return qs(r->value);
    return StateFieldText(r->value, m_fields, static_cast<size_t>(column - kValue));
  }
  switch (column < kValue ? column : column == sourceColumn() ? kSource : kValue) {
    case kSubtask: return r->subtask < 0 ? QVariant() : QVariant(r->subtask);
    case kKeyGroup: return r->key_group < 0 ? QVariant() : QVariant::fromValue<qlonglong>(r->key_group);
    case kKey: return qs(r->key);
    case kNamespace: return qs(r->ns);
    case kUserKey:
      // A timer's timestamp reads as a UTC date; the milliseconds ops emitted are its tooltip.
      if (r->timer) return role == Qt::ToolTipRole ? qs(r->user_key) + tr(" ms") : timestampText(qs(r->user_key));
      return qs(r->user_key);
    case kValue: return qs(r->value);
    case kSource: return r->source.empty() ? qs(r->state) : qs(r->state + " (" + r->source + ")");
    default: return {};
  }
}

void StateTableModel::sort(int column, Qt::SortOrder order) {
  if (column < 0 || column >= columnCount()) {
    if (m_order.empty()) return;
    Q_EMIT layoutAboutToBeChanged();
    m_order.clear();
    m_sortColumn = -1;
    Q_EMIT layoutChanged();
    return;
  }
  if (!fullyFetched() || static_cast<size_t>(m_rowCount) > kMaxCachedRows) {
    Q_EMIT sortRefused(fullyFetched() ? tr("Sorting needs at most %1 rows: filter first").arg(kMaxCachedRows)
                                      : tr("Sorting needs every row counted: scroll to the end or filter first"));
    return;
  }
  // Every cell of the column in ops' order, read now (the pages stay in memory: the rows fit
  // the cache).
  const std::vector<int> shownBefore = std::exchange(m_order, {});
  std::vector<QVariant> cells(static_cast<size_t>(m_rowCount));
  for (int row = 0; row < m_rowCount; ++row) {
    if (rowAt(row, true) == nullptr) {
      m_order = shownBefore;
      Q_EMIT sortRefused(m_error.isEmpty() ? tr("row %1 could not be read").arg(row + 1) : m_error);
      return;
    }
    cells[static_cast<size_t>(row)] = data(createIndex(row, column), Qt::DisplayRole);
  }
  std::vector<int> sorted(static_cast<size_t>(m_rowCount));
  for (int i = 0; i < m_rowCount; ++i) sorted[static_cast<size_t>(i)] = i;
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) {
    const int c = CompareStateCells(cells[static_cast<size_t>(a)], cells[static_cast<size_t>(b)]);
    return order == Qt::AscendingOrder ? c < 0 : c > 0;
  });
  Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList before = persistentIndexList();
  m_order = std::move(sorted);
  m_sortColumn = column;
  // Persistent indexes (the view's current row and selection) follow their rows.
  std::vector<int> shownAt(static_cast<size_t>(m_rowCount));
  for (int i = 0; i < m_rowCount; ++i) shownAt[static_cast<size_t>(m_order[static_cast<size_t>(i)])] = i;
  QModelIndexList after;
  for (const QModelIndex& i : before) {
    const int src = i.row() < static_cast<int>(shownBefore.size()) ? shownBefore[static_cast<size_t>(i.row())] : i.row();
    after << index(shownAt[static_cast<size_t>(src)], i.column());
  }
  changePersistentIndexList(before, after);
  Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

QVariant StateTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Subtask", "Key group", "Key", "Namespace", "User key", "Value", "State"};
  if (section < 0 || section >= columnCount()) return {};
  if (section >= kValue && section < sourceColumn() && !m_fields.names.empty()) {
    return qs(m_fields.names[static_cast<size_t>(section - kValue)]);
  }
  return tr(kNames[section < kValue ? section : section == sourceColumn() ? kSource : kValue]);
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
    const Row* r = rowAt(sourceRow(row), true);
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
