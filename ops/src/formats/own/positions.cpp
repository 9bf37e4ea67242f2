// PositionsOwn: the positions of this engine's own connectors in a snapshot of our format.
// The operator's catalog kind (job graph) says which connector it is; an operator missing from
// the job graph is recognized by its declared state instead. The states decoded:
//   sequence-source   list state "splits": (split, next, end) with `end` inclusive
//   text-file-source  list state "file-splits": (path, offset), offset -1 once the file is done
//   directory-source  the same, plus coordinator state list<string>: files not yet handed out
//   file-sink         the subtasks' committables: pending files a restore commits
#include <algorithm>
#include <map>

#include "ckpt/format/state_file.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/ops/operator_label.h"
#include "formats/own/operator_entries.h"
#include "formats/own/own_format.h"

namespace ckpt::ops::internal {
namespace {

constexpr char kSequenceState[] = "splits";
constexpr char kFileSplitsState[] = "file-splits";

std::optional<ConnectorKind> OwnConnectorOf(const OperatorInfo& op) {
  if (op.kind == "sequence-source") return ConnectorKind::kEngineSequence;
  if (op.kind == "text-file-source" || op.kind == "directory-source") {
    return ConnectorKind::kEngineFileSource;
  }
  if (op.kind == "file-sink") return ConnectorKind::kEngineFileSink;
  if (!op.kind.empty()) {
    for (const SubtaskInfo& st : op.subtasks) {
      if (!st.committables.empty()) return ConnectorKind::kEngineFileSink;
    }
    return std::nullopt;
  }
  // Not in the job graph: the declared state says which source wrote it.
  for (const StateInfo& s : op.states) {
    if (s.name == kSequenceState && !s.keyed) return ConnectorKind::kEngineSequence;
    if (s.name == kFileSplitsState && !s.keyed) return ConnectorKind::kEngineFileSource;
  }
  for (const SubtaskInfo& st : op.subtasks) {
    if (!st.committables.empty()) return ConnectorKind::kEngineFileSink;
  }
  return std::nullopt;
}

const format::Tuple* TupleOf(const format::Value& v, size_t fields) {
  const auto* t = std::get_if<format::Tuple>(&v.v);
  return t != nullptr && t->fields.size() == fields ? t : nullptr;
}

// Decodes one list entry of a source state into `p`; false if its shape is not the source's.
bool DecodeSourceEntry(ConnectorKind connector, const format::Value& v, SourcePosition* p) {
  if (connector == ConnectorKind::kEngineSequence) {
    const format::Tuple* t = TupleOf(v, 3);
    if (t == nullptr) return false;
    const auto* split = std::get_if<int64_t>(&t->fields[0].v);
    const auto* next = std::get_if<int64_t>(&t->fields[1].v);
    const auto* end = std::get_if<int64_t>(&t->fields[2].v);
    if (split == nullptr || next == nullptr || end == nullptr) return false;
    p->split_id = std::to_string(*split);
    p->next_value = *next;
    p->end_value = *end + 1;  // the state's end is inclusive, the report's exclusive
    return true;
  }
  const format::Tuple* t = TupleOf(v, 2);
  if (t == nullptr) return false;
  const auto* path = std::get_if<std::string>(&t->fields[0].v);
  const auto* offset = std::get_if<int64_t>(&t->fields[1].v);
  if (path == nullptr || offset == nullptr) return false;
  p->split_id = *path;
  p->path = *path;
  p->resume_offset = *offset;  // -1: the file is done
  return true;
}

class OwnPositions {
 public:
  OwnPositions(base::Fs& fs, const Snapshot& s, const base::Progress& progress,
               PositionsReport* out)
      : fs_(fs), s_(s), progress_(progress), out_(out) {}

  base::Status Operator(const OperatorInfo& op, ConnectorKind connector) {
    OperatorPositions pos;
    pos.id_hex = op.id_hex;
    pos.name = OperatorLabel(op.name, op.uid, op.id_hex);
    pos.uid = op.uid;
    pos.connector = connector;
    if (connector == ConnectorKind::kEngineFileSink) {
      pos.sink = Sink(op);
    } else if (const pb::OperatorState* os = OwnOperatorState(s_, op.id_hex)) {
      CKPT_RETURN_IF_ERROR(Splits(op, *os, connector, &pos));
      if (op.kind == "directory-source" ||
          (op.kind.empty() && connector == ConnectorKind::kEngineFileSource)) {
        CKPT_RETURN_IF_ERROR(PendingFiles(op, *os, &pos));
      }
    }
    out_->operators.push_back(std::move(pos));
    return base::Status::OK();
  }

 private:
  base::Status Splits(const OperatorInfo& op, const pb::OperatorState& os,
                      ConnectorKind connector, OperatorPositions* pos) {
    const std::string state =
        connector == ConnectorKind::kEngineSequence ? kSequenceState : kFileSplitsState;
    const pb::StateDescriptor* d = nullptr;
    for (const auto& candidate : os.states()) {
      if (candidate.name() == state) d = &candidate;
    }
    if (d == nullptr) return base::Status::OK();  // never snapshotted (no subtask ran)
    std::vector<const pb::SubtaskState*> subtasks;
    for (const auto& st : os.subtasks()) subtasks.push_back(&st);
    std::sort(subtasks.begin(), subtasks.end(), [](const auto* a, const auto* b) {
      return a->subtask_index() < b->subtask_index();
    });
    for (const pb::SubtaskState* st : subtasks) {
      if (progress_.cancelled()) return base::Status::Cancelled("positions cancelled");
      for (const auto& h : st->operator_state()) {
        std::map<uint64_t, const pb::StateDescriptor*> wanted;
        for (const auto& part : h.partitions()) {
          if (part.state_name() != state) continue;
          for (uint64_t off : part.entry_offsets()) wanted[off] = d;
        }
        base::Status read = ForEachOperatorStateEntry(
            fs_, s_, h, wanted, [this] { return progress_.cancelled(); },
            [&](const std::string& path, const OperatorStateEntry& e) {
              SourcePosition p;
              p.subtask = static_cast<int32_t>(st->subtask_index());
              base::Result<format::Value> v = format::DecodeValueExact(d->value_type(),
                                                                       e.record.value);
              if (!v.ok() || !DecodeSourceEntry(connector, *v, &p)) {
                Undecodable(op, st->subtask_index(),
                            path + ": state '" + state + "' of subtask " +
                                std::to_string(st->subtask_index()) + ": entry at logical offset " +
                                std::to_string(e.logical_offset) + " does not decode as " +
                                ExpectedShape(connector) +
                                (v.ok() ? "" : " (" + v.status().message() + ")"));
                return base::Status::OK();
              }
              pos->splits.push_back(std::move(p));
              return base::Status::OK();
            });
        if (read.IsCorruption()) {
          // The other operators' positions are still worth showing: the damage is a finding.
          std::string where = h.file_index() < s_.files.size()
                                  ? s_.files[h.file_index()].resolved_path
                                  : s_.metadata_path;
          if (where.empty() || read.message().find(where) != std::string::npos) where.clear();
          Undecodable(op, st->subtask_index(),
                      (where.empty() ? "" : where + ": ") + "state '" + state + "' of subtask " +
                          std::to_string(st->subtask_index()) + ": " + read.message());
          continue;
        }
        CKPT_RETURN_IF_ERROR(read);
      }
    }
    return base::Status::OK();
  }

  // directory-source: the coordinator's files not yet handed to a reader, read from offset 0.
  base::Status PendingFiles(const OperatorInfo& op, const pb::OperatorState& os,
                            OperatorPositions* pos) {
    if (!os.has_coordinator_state()) return base::Status::OK();
    const pb::CoordinatorState& cs = os.coordinator_state();
    std::string where = s_.metadata_path + ": coordinator state";
    std::string bytes;
    if (cs.location_case() == pb::CoordinatorState::kInlineData) {
      bytes = cs.inline_data();
    } else if (cs.location_case() == pb::CoordinatorState::kFileIndex) {
      if (cs.file_index() >= s_.files.size() || s_.files[cs.file_index()].resolved_path.empty()) {
        Undecodable(op, std::nullopt,
                    where + ": file #" + std::to_string(cs.file_index()) + " cannot be resolved");
        return base::Status::OK();
      }
      where = s_.files[cs.file_index()].resolved_path;
      base::Result<std::string> read = ReadCoordinatorFile(where);
      if (read.status().IsCorruption()) {
        Undecodable(op, std::nullopt, read.status().message());
        return base::Status::OK();
      }
      CKPT_ASSIGN_OR_RETURN(bytes, std::move(read));
    } else {
      return base::Status::OK();
    }
    base::Result<format::Value> v =
        format::DecodeValueExact(format::types::List(format::types::String()), bytes);
    const auto* list = v.ok() ? std::get_if<format::List>(&v->v) : nullptr;
    if (list == nullptr) {
      Undecodable(op, std::nullopt,
                  where + ": directory-source coordinator state does not decode as "
                          "list<string>" + (v.ok() ? "" : " (" + v.status().message() + ")"));
      return base::Status::OK();
    }
    for (const format::Value& e : list->elements) {
      const auto* path = std::get_if<std::string>(&e.v);
      if (path == nullptr) continue;
      SourcePosition p;
      p.origin = PositionOrigin::kEnumeratorPending;
      p.split_id = *path;
      p.path = *path;
      p.resume_offset = 0;
      pos->splits.push_back(std::move(p));
    }
    return base::Status::OK();
  }

  base::Result<std::string> ReadCoordinatorFile(const std::string& path) {
    CKPT_ASSIGN_OR_RETURN(std::string bytes, base::ReadFileToString(fs_, path));
    if (bytes.compare(0, format::kStateFileMagic.size(), format::kStateFileMagic) != 0) {
      return bytes;
    }
    // A container: the state is its one record.
    CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs_, path));
    CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
    format::RecordRef rec;
    CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
    return more ? std::string(rec.bytes) : std::string();
  }

  // Every pending file of every subtask: a restore commits it (renames it, or completes the
  // upload) if that has not happened yet.
  static SinkPositions Sink(const OperatorInfo& op) {
    SinkPositions sink;
    for (const SubtaskInfo& st : op.subtasks) {
      for (const Committable& c : st.committables) {
        SinkTransaction t;
        t.subtask = static_cast<int32_t>(st.index);
        t.action = SinkAction::kCommit;
        t.checkpoint_id = c.checkpoint_id;
        t.pending_path = c.PendingName();
        t.final_path = c.final_path;
        t.size_bytes = c.size_bytes;
        sink.transactions.push_back(std::move(t));
      }
    }
    return sink;
  }

  static std::string ExpectedShape(ConnectorKind connector) {
    return connector == ConnectorKind::kEngineSequence ? "(split int64, next int64, end int64)"
                                                       : "(path string, offset int64)";
  }

  void Undecodable(const OperatorInfo& op, std::optional<uint32_t> subtask, std::string message) {
    Finding f;
    f.rule_id = "CKPT-C001";
    f.severity = Severity::kWarning;
    f.location = OperatorLocationOf(op.name, op.uid, op.id_hex);
    f.location.subtask = subtask;
    f.message = std::move(message);
    f.hint = "the positions of this source are unknown: `ckpt-tool validate --deep` checks the "
             "state files";
    out_->findings.push_back(std::move(f));
  }

  base::Fs& fs_;
  const Snapshot& s_;
  const base::Progress& progress_;
  PositionsReport* out_;
};

}  // namespace

base::Status PositionsOwn(base::Fs& fs, const Snapshot& snapshot, const base::Progress& progress,
                          PositionsReport* out) {
  OwnPositions positions(fs, snapshot, progress, out);
  for (const OperatorInfo& op : snapshot.operators) {
    std::optional<ConnectorKind> connector = OwnConnectorOf(op);
    if (!connector) continue;
    CKPT_RETURN_IF_ERROR(positions.Operator(op, *connector));
  }
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
