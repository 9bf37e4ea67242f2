#include "models/detail_tree_model.h"

#include <algorithm>
#include <set>

#include "ckpt/ops/operator_label.h"
#include "models/display.h"

namespace ckpt::inspector {

DetailTreeModel::DetailTreeModel(QObject* parent) : QAbstractItemModel(parent) {
  m_nodes.push_back(Node{});
}

int DetailTreeModel::addNode(Node node) {
  const int id = static_cast<int>(m_nodes.size());
  Node& parent = m_nodes[static_cast<size_t>(node.parent)];
  node.row = static_cast<int>(parent.children.size());
  parent.children.push_back(id);
  m_nodes.push_back(std::move(node));
  return id;
}

void DetailTreeModel::addSubtaskFiles(int parent, const ops::OperatorInfo& op, size_t subtask,
                                      const std::vector<uint32_t>& files, uint64_t inline_bytes) {
  const ops::Snapshot& s = *m_snapshot;
  Node& p = m_nodes[static_cast<size_t>(parent)];
  const int op_index = p.op;
  const int state_index = p.state;
  for (uint32_t f : files) {
    if (f >= s.files.size()) continue;
    const ops::SnapshotFile& file = s.files[f];
    Node n;
    n.kind = kFile;
    n.parent = parent;
    n.op = op_index;
    n.state = state_index;
    n.subtask = static_cast<int>(subtask);
    n.file = static_cast<int>(f);
    n.label = qs(file.path);
    n.kindText = qs(ops::FileKindName(file.kind)) + QStringLiteral(" · ") +
                 qs(ops::FileScopeName(file.scope));
    if (file.is_metadata) {  // inline state: its own bytes, not the whole `_metadata`
      n.label = tr("%1 (inline)").arg(qs(file.path));
      n.full = n.checkpointed = inline_bytes;
    } else {
      n.full = file.size_bytes;
      n.checkpointed = ops::IsCheckpointedFile(file, s.checkpoint_id) ? file.size_bytes : 0;
    }
    addNode(std::move(n));
  }
  (void)op;
}

void DetailTreeModel::setSnapshot(std::shared_ptr<const ops::Snapshot> snapshot) {
  beginResetModel();
  m_snapshot = std::move(snapshot);
  m_nodes.assign(1, Node{});
  if (m_snapshot) {
    const ops::Snapshot& s = *m_snapshot;
    for (size_t oi = 0; oi < s.operators.size(); ++oi) {
      const ops::OperatorInfo& op = s.operators[oi];
      Node on;
      on.kind = kOperator;
      on.parent = 0;
      on.op = static_cast<int>(oi);
      on.label = qs(ops::OperatorLabel(op.name, op.uid, op.id_hex));
      on.kindText = qs(op.kind);
      // The size model of ops (docs/sizes.md): shared files once.
      on.full = op.total_bytes;
      on.checkpointed = op.checkpointed_bytes;
      const int op_node = addNode(std::move(on));

      // A state node per declared state; its subtasks are those whose handles hold it.
      // `files_of(subtask)`: the files holding the state and the bytes its handles keep inline.
      auto add_state = [&](int state_index, QString label, QString kind_text,
                           auto files_of) {
        Node sn;
        sn.kind = kState;
        sn.parent = op_node;
        sn.op = static_cast<int>(oi);
        sn.state = state_index;
        sn.label = std::move(label);
        sn.kindText = std::move(kind_text);
        const int state_node = addNode(std::move(sn));
        uint64_t full = 0, checkpointed = 0;
        std::vector<int> seen;  // files already counted (shared by several subtasks)
        for (size_t si = 0; si < op.subtasks.size(); ++si) {
          auto [files, inline_bytes] = files_of(op.subtasks[si]);
          if (files.empty()) continue;
          std::sort(files.begin(), files.end());
          files.erase(std::unique(files.begin(), files.end()), files.end());
          Node tn;
          tn.kind = kSubtask;
          tn.parent = state_node;
          tn.op = static_cast<int>(oi);
          tn.state = state_index;
          tn.subtask = static_cast<int>(si);
          tn.label = tr("subtask %1").arg(op.subtasks[si].index);
          const int sub_node = addNode(std::move(tn));
          addSubtaskFiles(sub_node, op, si, files, inline_bytes);
          // A subtask's share of a state is not known from the metadata (its files hold all the
          // operator's states of that kind).
          m_nodes[static_cast<size_t>(sub_node)].sizeKnown = false;
          for (int c : m_nodes[static_cast<size_t>(sub_node)].children) {
            const Node& f = m_nodes[static_cast<size_t>(c)];
            // Inline bytes are each subtask's own; a file shared by subtasks counts once.
            const bool inline_node = s.files[static_cast<size_t>(f.file)].is_metadata;
            if (!inline_node && std::find(seen.begin(), seen.end(), f.file) != seen.end()) continue;
            seen.push_back(f.file);
            full += f.full;
            checkpointed += f.checkpointed;
          }
        }
        Node& state = m_nodes[static_cast<size_t>(state_node)];
        // Declared states get their own bytes from the statistics (setStats); the in-flight
        // data pseudo state is its distinct channel files, each once.
        state.sizeKnown = state_index < 0;
        state.full = state_index < 0 ? full : 0;
        state.checkpointed = state_index < 0 ? checkpointed : 0;
      };
      for (size_t i = 0; i < op.states.size(); ++i) {
        const ops::StateInfo& state = op.states[i];
        QString kind = qs(ops::StateKindName(state.kind));
        if (!state.value_type.empty()) kind += QStringLiteral(" <%1>").arg(qs(state.value_type));
        if (state.keyed) {
          add_state(static_cast<int>(i), qs(state.name), kind, [](const ops::SubtaskInfo& st) {
            std::vector<uint32_t> files;
            uint64_t inline_bytes = 0;
            for (const auto& h : st.keyed) {
              files.insert(files.end(), h.file_indexes.begin(), h.file_indexes.end());
              inline_bytes += h.inline_bytes;
            }
            return std::make_pair(files, inline_bytes);
          });
        } else {
          add_state(static_cast<int>(i), qs(state.name), kind, [&state](const ops::SubtaskInfo& st) {
            std::vector<uint32_t> files;
            uint64_t inline_bytes = 0;
            for (const auto& h : st.operator_state) {
              for (const auto& p : h.partitions) {
                if (p.state_name != state.name) continue;
                files.push_back(h.file_index);
                inline_bytes += h.inline_bytes;
                break;
              }
            }
            return std::make_pair(files, inline_bytes);
          });
        }
      }
      bool has_channels = false;
      for (const auto& st : op.subtasks) has_channels = has_channels || !st.channels.empty();
      if (has_channels) {
        add_state(-1, tr("(in-flight data)"), tr("channel state"), [](const ops::SubtaskInfo& st) {
          std::vector<uint32_t> files;
          uint64_t inline_bytes = 0;
          for (const auto& c : st.channels) {
            files.insert(files.end(), c.file_indexes.begin(), c.file_indexes.end());
            inline_bytes += c.inline_bytes;
          }
          return std::make_pair(files, inline_bytes);
        });
      }
      if (op.coordinator) {
        Node cn;
        cn.kind = kState;
        cn.parent = op_node;
        cn.op = static_cast<int>(oi);
        cn.label = tr("(coordinator)");
        cn.kindText = op.coordinator->is_inline ? tr("inline") : tr("file");
        if (!op.coordinator->type.empty()) cn.kindText += QStringLiteral(" <%1>").arg(qs(op.coordinator->type));
        cn.full = cn.checkpointed = op.coordinator->size_bytes;
        const int coord = addNode(std::move(cn));
        if (op.coordinator->file_index) {
          addSubtaskFiles(coord, op, 0, {*op.coordinator->file_index});
          for (int c : m_nodes[static_cast<size_t>(coord)].children) m_nodes[static_cast<size_t>(c)].subtask = -1;
        }
      }
    }
  }
  endResetModel();
}

void DetailTreeModel::setStats(std::shared_ptr<const ops::StatsReport> stats) {
  if (!m_snapshot || !stats) return;
  for (size_t i = 1; i < m_nodes.size(); ++i) {
    Node& n = m_nodes[i];
    if (n.kind != kState || n.state < 0 || n.op < 0) continue;
    const ops::OperatorInfo& op = m_snapshot->operators[static_cast<size_t>(n.op)];
    for (const ops::OperatorStats& os : stats->operators) {
      if (os.id_hex != op.id_hex || static_cast<size_t>(n.state) >= os.states.size()) continue;
      const ops::StateStats& st = os.states[static_cast<size_t>(n.state)];
      n.full = st.file_bytes;
      n.checkpointed = st.checkpointed_file_bytes;
      n.sizeKnown = st.bytes_known;  // not measured (Flink): unknown, never 0
      const QModelIndex left = createIndex(n.row, kFullSize, static_cast<quintptr>(i));
      const QModelIndex right = createIndex(n.row, kCheckpointedSize, static_cast<quintptr>(i));
      Q_EMIT dataChanged(left, right);
    }
  }
}

const DetailTreeModel::Node& DetailTreeModel::nodeAt(const QModelIndex& index) const {
  return m_nodes[index.isValid() ? static_cast<size_t>(index.internalId()) : 0];
}

QModelIndex DetailTreeModel::indexOfNode(int node) const {
  if (node <= 0) return {};
  return createIndex(m_nodes[static_cast<size_t>(node)].row, 0, static_cast<quintptr>(node));
}

QModelIndex DetailTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  const Node& p = nodeAt(parent);
  return createIndex(row, column, static_cast<quintptr>(p.children[static_cast<size_t>(row)]));
}

QModelIndex DetailTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  return indexOfNode(nodeAt(child).parent);
}

int DetailTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return static_cast<int>(nodeAt(parent).children.size());
}

int DetailTreeModel::columnCount(const QModelIndex&) const { return kColumnCount; }

QVariant DetailTreeModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Node& n = nodeAt(index);
  const ops::OperatorInfo* op =
      n.op >= 0 ? &m_snapshot->operators[static_cast<size_t>(n.op)] : nullptr;
  switch (role) {
    case kNodeKindRole: return static_cast<int>(n.kind);
    case kOperatorIdRole: return op ? qs(op->id_hex) : QString();
    case kSubtaskRole: return n.subtask >= 0 && op ? static_cast<int>(op->subtasks[static_cast<size_t>(n.subtask)].index) : -1;
    case kFileIndexRole: return n.file;
    case kFilePathRole: return filePath(index);
    case kSortRole:
      if (index.column() == kFullSize) return QVariant::fromValue<qulonglong>(n.full);
      if (index.column() == kCheckpointedSize) return QVariant::fromValue<qulonglong>(n.checkpointed);
      return {};
    case Qt::ToolTipRole:
      if (index.column() == kFullSize || index.column() == kCheckpointedSize) return sizeExplanation();
      if (n.kind == kFile) return qs(m_snapshot->files[static_cast<size_t>(n.file)].resolved_path);
      if (n.kind == kState && n.state >= 0 && op->states[static_cast<size_t>(n.state)].keyed) {
        return tr("The keyed states of an operator share each subtask's key-group files: the files "
                  "under this state hold all its keyed states; the state's size is its share of "
                  "them (from statistics).");
      }
      return {};
    case Qt::DisplayRole: break;
    default: return {};
  }
  const bool op_row = n.kind == kOperator;
  switch (index.column()) {
    case kName: return n.label;
    case kKind: return n.kindText;
    case kUid:
      if (!op_row) return QString();
      // Flink's `_metadata` cannot say whether an ID came from a uid.
      return op->uid_origin == ops::UidOrigin::kNotRecorded ? tr("not recorded") : qs(op->uid);
    case kUidHash: return op_row ? qs(op->id_hex) : QString();
    case kParallelism: return op_row ? QVariant(op->parallelism) : QVariant();
    case kMaxParallelism: return op_row ? QVariant(op->max_parallelism) : QVariant();
    case kFullSize: return n.sizeKnown ? humanBytes(n.full) : QStringLiteral("—");
    case kCheckpointedSize: return n.sizeKnown ? humanBytes(n.checkpointed) : QStringLiteral("—");
    default: return {};
  }
}

QVariant DetailTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    if (section == kFullSize || section == kCheckpointedSize) return sizeExplanation();
    if (section == kUidHash) return tr("The operator ID: murmur3_x64_128 of the uid (Flink's uid hash)");
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Name", "Kind", "UID", "UID hash", "Parallelism", "Max parallelism",
                                 "Full size", "Checkpointed size"};
  return section >= 0 && section < kColumnCount ? tr(kNames[section]) : QVariant();
}

QString DetailTreeModel::filePath(const QModelIndex& index) const {
  const Node& n = nodeAt(index);
  if (n.kind != kFile || !m_snapshot) return {};
  return qs(m_snapshot->files[static_cast<size_t>(n.file)].resolved_path);
}

int DetailTreeModel::fileMatches(const std::string& file) const {
  if (file.empty() || !m_snapshot) return -1;
  for (const ops::SnapshotFile& f : m_snapshot->files) {
    if (f.path == file || f.resolved_path == file) return static_cast<int>(f.index);
    // Findings name files relative to the snapshot directory ("../shared/x"): match the tail.
    const std::string& r = f.resolved_path;
    if (r.size() > file.size() && r.compare(r.size() - file.size(), file.size(), file) == 0 &&
        r[r.size() - file.size() - 1] == '/') {
      return static_cast<int>(f.index);
    }
    const std::string tail = file.substr(file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/') + 1);
    if (!tail.empty() && file.rfind("../", 0) == 0 && r.size() >= tail.size() &&
        r.compare(r.size() - tail.size(), tail.size(), tail) == 0) {
      return static_cast<int>(f.index);
    }
  }
  return -1;
}

QModelIndex DetailTreeModel::indexForOperator(const std::string& id_hex) const {
  for (int c : m_nodes[0].children) {
    const Node& n = m_nodes[static_cast<size_t>(c)];
    if (m_snapshot->operators[static_cast<size_t>(n.op)].id_hex == id_hex) return indexOfNode(c);
  }
  return {};
}

QModelIndex DetailTreeModel::indexForLocation(const ops::Location& loc) const {
  if (!m_snapshot) return {};
  const int file = fileMatches(loc.file);
  int best = -1, best_score = 0;
  for (size_t i = 1; i < m_nodes.size(); ++i) {
    const Node& n = m_nodes[i];
    const ops::OperatorInfo& op = m_snapshot->operators[static_cast<size_t>(n.op)];
    const bool op_match = !loc.operator_id.empty() && op.id_hex == loc.operator_id;
    const bool sub_match = loc.subtask && n.subtask >= 0 &&
                           op.subtasks[static_cast<size_t>(n.subtask)].index == *loc.subtask;
    int score = 0;
    if (n.kind == kFile && file >= 0 && n.file == file) score = 4 + (op_match ? 2 : 0) + (sub_match ? 1 : 0);
    else if (n.kind == kSubtask && op_match && sub_match) score = 3;
    else if (n.kind == kOperator && op_match) score = 2;
    if (score > best_score) {
      best_score = score;
      best = static_cast<int>(i);
    }
  }
  return indexOfNode(best);
}

QString DetailTreeModel::describe(const QModelIndex& index) const {
  if (!index.isValid() || !m_snapshot) return {};
  const Node& n = nodeAt(index);
  const ops::OperatorInfo& op = m_snapshot->operators[static_cast<size_t>(n.op)];
  QStringList lines;
  lines << tr("operator: %1").arg(qs(ops::OperatorLabel(op.name, op.uid, op.id_hex))) << tr("uid: %1").arg(op.uid.empty() ? tr("(none: ID from the topology)") : qs(op.uid))
        << tr("uid hash: %1").arg(qs(op.id_hex))
        << tr("parallelism %1, max parallelism %2").arg(op.parallelism).arg(op.max_parallelism);
  if (n.state >= 0) {
    const ops::StateInfo& s = op.states[static_cast<size_t>(n.state)];
    lines << tr("state: %1 (%2)").arg(qs(s.name), qs(ops::StateKindName(s.kind)));
    if (!s.key_type.empty()) lines << tr("key type: %1").arg(qs(s.key_type));
    if (!s.namespace_type.empty()) lines << tr("namespace type: %1").arg(qs(s.namespace_type));
    if (!s.user_key_type.empty()) lines << tr("user key type: %1").arg(qs(s.user_key_type));
    if (!s.value_type.empty()) lines << tr("value type: %1").arg(qs(s.value_type));
  }
  if (n.subtask >= 0) {
    const ops::SubtaskInfo& st = op.subtasks[static_cast<size_t>(n.subtask)];
    const ops::SubtaskMetrics& m = st.metrics;
    lines << tr("subtask %1%2").arg(st.index).arg(st.finished ? tr(" (finished)") : QString());
    for (const ops::KeyedHandle& h : st.keyed) {
      lines << tr("keyed handle %1: key groups %2..%3, %4").arg(qs(ops::KeyedHandleKindName(h.kind)))
                   .arg(h.key_group_start).arg(h.key_group_end).arg(humanBytes(h.size_bytes));
    }
    lines << tr("sync %1 ms, async %2 ms, alignment %3 ms, start delay %4 ms")
                 .arg(m.sync_duration).arg(m.async_duration).arg(m.alignment_duration).arg(m.start_delay);
    lines << tr("state size %1, checkpointed size %2").arg(humanBytes(m.state_size), humanBytes(m.checkpointed_size));
  }
  if (n.file >= 0) {
    const ops::SnapshotFile& f = m_snapshot->files[static_cast<size_t>(n.file)];
    lines << tr("file #%1: %2").arg(f.index).arg(qs(f.path)) << tr("on disk: %1").arg(qs(f.resolved_path.empty() ? f.resolve_error : f.resolved_path))
          << tr("%1, %2, %3 bytes, compression %4").arg(qs(ops::FileKindName(f.kind)), qs(ops::FileScopeName(f.scope))).arg(f.size_bytes).arg(qs(f.compression))
          << tr("xxh3 %1, created by checkpoint %2")
                 .arg(f.checksum_xxh3 != 0 ? QStringLiteral("%1").arg(f.checksum_xxh3, 16, 16, QLatin1Char('0')) : QStringLiteral("—"))
                 .arg(f.created_by_checkpoint_id != 0 ? QString::number(f.created_by_checkpoint_id) : QStringLiteral("—"));
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace ckpt::inspector
