// DetailTreeModel: one snapshot as a tree operator -> state -> subtask -> file, with name, uid,
// uid hash, parallelism, max parallelism, full and checkpointed sizes. Built once from an
// immutable ops::Snapshot (no disk access); read-only; GUI thread only.
#pragma once

#include <QAbstractItemModel>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"

namespace ckpt::inspector {

class DetailTreeModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum NodeKind { kRoot, kOperator, kState, kSubtask, kFile };
  enum Column { kName, kKind, kUid, kUidHash, kParallelism, kMaxParallelism, kFullSize,
                kCheckpointedSize, kColumnCount };

  explicit DetailTreeModel(QObject* parent = nullptr);

  void setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot);
  // Per-state sizes come from ops' statistics (docs/sizes.md): until they are set a state's size
  // shows as unknown, never as its operator's whole files.
  void setStats(std::shared_ptr<const ops::StatsReport> stats);
  const std::shared_ptr<const ops::Snapshot>& snapshot() const { return m_snapshot; }

  // The node a finding's location points at: the file under its operator/subtask if known,
  // else the subtask, else the operator, else the first node of the file. Invalid if none.
  QModelIndex indexForLocation(const ops::Location& location) const;
  // The first node of operator `id_hex` (invalid if absent).
  QModelIndex indexForOperator(const std::string& id_hex) const;
  // The resolved on-disk path of the file at `index` (empty for other nodes).
  QString filePath(const QModelIndex& index) const;
  // Multi-line description of a node (for the decoded-value pane).
  QString describe(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Node {
    NodeKind kind = kRoot;
    int parent = -1;
    int row = 0;
    std::vector<int> children;
    int op = -1;       // index into snapshot->operators
    int state = -1;    // index into the operator's states; -1 for pseudo states
    int subtask = -1;  // index into the operator's subtasks
    int file = -1;     // file table index
    QString label;
    QString kindText;
    uint64_t full = 0;
    uint64_t checkpointed = 0;
    bool sizeKnown = true;
  };
  int addNode(Node node);
  // `inline_bytes`: what the subtask's handles keep inline in `_metadata` (the size of its
  // `_metadata` node; never the whole file's, docs/sizes.md).
  void addSubtaskFiles(int parent, const ops::OperatorInfo& op, size_t subtask,
                       const std::vector<uint32_t>& files, uint64_t inline_bytes = 0);
  int fileMatches(const std::string& file) const;
  const Node& nodeAt(const QModelIndex& index) const;
  QModelIndex indexOfNode(int node) const;

  std::shared_ptr<const ops::Snapshot> m_snapshot;
  std::vector<Node> m_nodes;  // m_nodes[0] is the invisible root
};

}  // namespace ckpt::inspector
