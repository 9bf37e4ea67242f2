// StateTableModel: the keys and values of one operator's state, read from ops::Dump in pages of
// kPageRows entries of one key group, on a worker thread of its own (the GUI thread never calls
// ops). When the handles' key-group record counts (the container's section index) give the
// row count exactly, every row exists from the start (`1–50 of 1,000,000`, a scrollbar over the
// whole range, go-to row or key group) and pages are read as they are shown; otherwise (a key
// text filter, several states in one container, RocksDB or changelog handles) key groups are
// counted in the background as the view asks for more (canFetchMore / fetchMore). At most
// kMaxCachedRows decoded rows stay in memory, however large a key group is. Filters: the exact
// key (JSON of the key type; ops seeks its key group), a key prefix or substring, a part of the
// value, a key group. Rows sort by a column once their count is final and fits the cache; a
// timer's timestamp shows as an ISO-8601 UTC date (its milliseconds in the tooltip).
// GUI thread only (the worker posts its results back); the snapshot is immutable and shared.
#pragma once

#include <QAbstractTableModel>
#include <QByteArray>
#include <QModelIndexList>
#include <QThreadPool>
#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/state_entries.h"

namespace ckpt::inspector {

class StateTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // The columns before the value, then the value: one "Value" column, or one column per field
  // when ops knows the fields of the state's values (ops::StateValueFields: each cell the
  // field's JSON, a string without its quotes; the whole value in the tooltip), then the State
  // column (sourceColumn()). kSource and kColumnCount are their indexes without fields.
  enum Column { kSubtask, kKeyGroup, kKey, kNamespace, kUserKey, kValue, kSource, kColumnCount };
  // How the filter text matches: the key exactly (JSON; ops seeks its key group), the start or
  // a part of the key as shown, or a part of the value as shown.
  enum class KeyMatch { kExact, kPrefix, kSubstring, kValueContains };
  // Where a row's record lies (ops' DumpEntry::record_*), for the linked hex view: the file
  // (index into the snapshot's file table, -1 when the entry has no container record) and the
  // record's bytes in that file's record stream. Any column.
  enum RecordRole : int { kRecordFileRole = Qt::UserRole + 100, kRecordOffsetRole, kRecordLengthRole };
  // Rows per page (one ops::Dump call reads at most this many entries). Default: 2000.
  static constexpr int kPageRows = 2000;
  // Rows counted per fetchMore when the total is not known up front (at least). Default: 2000.
  static constexpr int kFetchBatchRows = 2000;
  // Decoded rows kept in memory at most. Default: 50 000.
  static constexpr size_t kMaxCachedRows = 50000;

  explicit StateTableModel(QObject* parent = nullptr);
  ~StateTableModel() override;

  // Shows `state` of operator `operator_ref` (id hex, uid or name); empty state = all states.
  // The snapshot's files are read through `fs` (it must outlive the model's reads; the resolved
  // filesystems are process-lifetime).
  void setSource(base::Fs& fs, std::shared_ptr<const ops::Snapshot> snapshot,
                 const QString& operator_ref, const QString& state);
  // Shows no rows (no snapshot).
  void clearSource();
  // Only entries whose key matches `key` (kExact: JSON of the key type, ops seeks its key
  // group; kPrefix / kSubstring: the key as shown, without the quotes of a string key; empty =
  // all) and/or this key group.
  void setFilter(const QString& key, std::optional<uint32_t> key_group,
                 KeyMatch match = KeyMatch::kExact);

  // Orders the rows by `column` (numbers as numbers, other cells as text, empty cells first);
  // column -1 restores ops' order. Reads every row not in memory on the calling thread, so it
  // sorts only when the row count is final and at most kMaxCachedRows (sortRefused otherwise).
  // A new source, filter or history view restores ops' order.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
  // Columns showing the value (1, or one per field) and the index of the State column after them.
  int valueColumnCount() const { return m_fields.names.empty() ? 1 : static_cast<int>(m_fields.names.size()); }
  int sourceColumn() const { return kValue + valueColumnCount(); }
  // The fields of the shown state's values (ops::StateValueFields), empty without.
  const ops::StateValueFieldList& valueFields() const { return m_fields; }

  // The column the rows are sorted by, -1 for ops' order.
  int sortColumn() const { return m_sortColumn; }

  // Changelog state as its raw history (ops' DumpOptions::history) instead of the replayed
  // values a restore sees. Default: false.
  void setHistory(bool history);
  bool history() const { return m_query.history; }

  QString lastError() const { return m_error; }
  // Rows currently decoded in memory (at most kMaxCachedRows + one page).
  size_t cachedRows() const { return m_cachedRows; }
  // True when the row count is final (known from the index, or every key group counted).
  bool fullyFetched() const { return m_nextChunk >= m_chunks.size(); }
  // True when rowCount() came from the section index before anything was read.
  bool totalFromIndex() const { return m_exact; }
  // The first row of key group `key_group`, or -1 when it has no rows or is not counted yet.
  int firstRowOfKeyGroup(uint32_t key_group) const;
  // Whether `row`'s page is in memory; requestRow starts reading it if not.
  bool isLoaded(int row) const;
  void requestRow(int row) const;
  // True while key groups are being counted on the worker (after fetchMore).
  bool counting() const { return m_counting; }
  // Pages being read or queued (0 = idle).
  int pendingReads() const { return static_cast<int>(m_inflight.size() + m_queue.size()); }
  // The rows at `indexes` (any column) as a JSON array of objects, in row order; reads pages
  // that are not in memory (on the calling thread).
  QByteArray rowsToJson(const QModelIndexList& indexes);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

 Q_SIGNALS:
  void loadFailed(const QString& message);
  // Rows [first, first + count) were read (a page, or newly counted key groups).
  void rowsLoaded(int first, int count);
  // sort() could not order the rows; `reason` says why (shown to the user).
  void sortRefused(const QString& reason);
  // A background count finished (whether or not it found rows): fullyFetched() and
  // canFetchMore() are up to date.
  void countFinished();

 public:
  struct Row {
    std::string key, ns, user_key, value, state, source;
    int64_t key_group = -1;  // -1: not keyed state
    int32_t subtask = -1;
    bool timer = false;  // a timer: user_key holds its timestamp (ms since the epoch)
    int32_t record_file = -1;  // ops::DumpEntry::record_file, -1 when unset
    uint64_t record_offset = 0;
    uint64_t record_length = 0;
  };
  // What one read needs; copied to the worker.
  struct Query {
    base::Fs* fs = nullptr;  // where the snapshot's files are read
    std::shared_ptr<const ops::Snapshot> snapshot;
    std::string op, state, key;
    KeyMatch match = KeyMatch::kExact;
    bool history = false;
  };

 private:
  struct Chunk {
    std::optional<uint32_t> key_group;  // nullopt: the whole state in one read
    int first_row = 0;
    int rows = -1;  // -1 until counted
  };
  using PageKey = std::pair<size_t, int>;  // chunk, page
  void rebuildPlan();
  void endReset();
  void startNext() const;
  void pageArrived(uint64_t generation, PageKey key, std::vector<Row> rows, QString error);
  void countArrived(uint64_t generation, size_t first_chunk, std::vector<int> counts,
                    std::vector<std::vector<Row>> first_pages, QString error);
  void store(PageKey key, std::vector<Row> rows) const;
  const Row* rowAt(int row, bool load) const;
  // The row in ops' order shown at `row` (the identity unless sorted).
  int sourceRow(int row) const;
  bool locate(int row, PageKey* key, size_t* offset) const;

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  base::Fs* m_fs = nullptr;
  Query m_query;
  std::optional<uint32_t> m_keyGroup;
  ops::StateValueFieldList m_fields;
  std::vector<Chunk> m_chunks;
  std::vector<size_t> m_rowChunks;  // chunks with rows, in row order
  size_t m_nextChunk = 0;           // first chunk not counted yet
  int m_rowCount = 0;
  bool m_exact = false;
  bool m_counting = false;
  mutable std::map<PageKey, std::vector<Row>> m_pages;
  mutable std::list<PageKey> m_lru;  // most recent first
  mutable size_t m_cachedRows = 0;
  mutable std::set<PageKey> m_inflight;
  mutable std::list<PageKey> m_queue;  // most recently asked first
  mutable QString m_error;
  uint64_t m_generation = 0;
  std::shared_ptr<std::atomic<uint64_t>> m_current;  // the worker's view of m_generation
  bool m_resetting = false;
  std::vector<int> m_order;  // shown row -> row in ops' order; empty when not sorted
  int m_sortColumn = -1;
  mutable QThreadPool m_pool;
};

}  // namespace ckpt::inspector
