// StateTableModel: the keys and values of one operator's state, fetched lazily from ops::Dump
// one key group at a time (canFetchMore / fetchMore), so a 10 M-key state scrolls without being
// loaded: rows are announced as key groups are read, and only a bounded number of recently used
// key groups keep their decoded rows (others are re-read on demand). Filterable by key (JSON of
// the key type, which ops seeks to its key group) and by key group. GUI thread only; the
// snapshot is immutable and shared.
#pragma once

#include <QAbstractTableModel>
#include <QByteArray>
#include <QModelIndexList>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/ops/dump.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::inspector {

class StateTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kSubtask, kKeyGroup, kKey, kNamespace, kUserKey, kValue, kSource, kColumnCount };
  // Rows per fetchMore (at least; a whole key group is always read). Default: 2000.
  static constexpr int kFetchBatchRows = 2000;
  // Decoded rows kept in memory at most (plus the key group being read). Default: 50 000.
  static constexpr size_t kMaxCachedRows = 50000;

  explicit StateTableModel(QObject* parent = nullptr);

  // Shows `state` of operator `operator_ref` (id hex, uid or name); empty state = all states.
  void setSource(std::shared_ptr<const ops::Snapshot> snapshot, const QString& operator_ref,
                 const QString& state);
  // Only the entry with this key (JSON of the key type; empty = all) and/or this key group.
  void setFilter(const QString& key_json, std::optional<uint32_t> key_group);

  QString lastError() const { return m_error; }
  // Rows currently decoded in memory (bounded by kMaxCachedRows + one key group).
  size_t cachedRows() const { return m_cachedRows; }
  // True when every key group has been read once (rowCount is final).
  bool fullyFetched() const { return m_nextChunk >= m_chunks.size(); }
  // The rows at `indexes` (any column) as a JSON array of objects, in row order.
  QByteArray rowsToJson(const QModelIndexList& indexes);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

 Q_SIGNALS:
  void loadFailed(const QString& message);

 private:
  struct Row {
    std::string key, ns, user_key, value, state, source;
    int64_t key_group = -1;  // -1: not keyed state
    int32_t subtask = -1;
  };
  struct Chunk {
    std::optional<uint32_t> key_group;  // nullopt: the whole state in one read
    int first_row = 0;
    int rows = -1;  // -1 until read once
    bool cached = false;
    std::vector<Row> data;
  };
  void rebuildPlan();
  void endReset();
  bool readChunk(size_t chunk, std::vector<Row>* rows) const;
  const Row* rowAt(int row) const;
  void touch(size_t chunk) const;

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  std::string m_operator;
  std::string m_state;
  std::string m_keyJson;
  std::optional<uint32_t> m_keyGroup;
  mutable std::vector<Chunk> m_chunks;
  std::vector<size_t> m_rowChunks;  // chunks with rows, in row order
  size_t m_nextChunk = 0;
  int m_rowCount = 0;
  mutable std::list<size_t> m_lru;  // most recent first
  mutable size_t m_cachedRows = 0;
  mutable QString m_error;
  bool m_resetting = false;
  bool m_fetching = false;
};

}  // namespace ckpt::inspector
