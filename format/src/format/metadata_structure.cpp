#include "metadata_structure.h"

#include "ckpt/format/layout.h"
#include "ckpt/format/operator_id.h"

namespace ckpt::format::internal {
namespace {

std::string IdText(const std::string& bytes) {
  auto id = OperatorId::FromBytes(bytes);
  return id.ok() ? id->ToHex() : "<malformed id>";
}

// Walks one snapshot's handles; `where_` prefixes every message with the file and the position
// in the metadata, so a user can find the broken entry.
class Checker {
 public:
  Checker(const pb::CheckpointMetadata& m, const std::string& path) : m_(m), path_(path) {}

  base::Status Run() {
    // Checkpoint ids count up from 1 (0 in hand-made snapshots); a negative one (-2^63 from a
    // flipped sign bit) would sort before every real checkpoint and break "newest first".
    if (m_.checkpoint_id() < 0) {
      return Fail("checkpoint_id " + std::to_string(m_.checkpoint_id()) + " is negative");
    }
    if (!m_.job_id().empty() && m_.job_id().size() != 16) {
      return Fail("job_id has " + std::to_string(m_.job_id().size()) + " bytes, expected 16");
    }
    for (int i = 0; i < m_.files_size(); ++i) CKPT_RETURN_IF_ERROR(CheckFile(i));
    for (int i = 0; i < m_.job_graph().operators_size(); ++i) {
      const auto& op = m_.job_graph().operators(i);
      CKPT_RETURN_IF_ERROR(Id(op.operator_id(), "job_graph.operators[" + std::to_string(i) + "]"));
    }
    for (int i = 0; i < m_.job_graph().edges_size(); ++i) {
      const auto& e = m_.job_graph().edges(i);
      const std::string where = "job_graph.edges[" + std::to_string(i) + "]";
      CKPT_RETURN_IF_ERROR(Id(e.source_operator_id(), where + ".source_operator_id"));
      CKPT_RETURN_IF_ERROR(Id(e.target_operator_id(), where + ".target_operator_id"));
    }
    for (int i = 0; i < m_.operators_size(); ++i) CKPT_RETURN_IF_ERROR(CheckOperator(i));
    return base::Status::OK();
  }

 private:
  base::Status Fail(const std::string& what) const {
    return base::Status::Corruption(path_ + ": " + where_ + (where_.empty() ? "" : ": ") + what);
  }

  base::Status Id(const std::string& bytes, const std::string& field) const {
    if (bytes.size() == 16) return base::Status::OK();
    return Fail(field + " has " + std::to_string(bytes.size()) + " bytes, expected 16");
  }

  base::Status FileIndex(uint32_t index, const char* what) const {
    if (index < static_cast<uint32_t>(m_.files_size())) return base::Status::OK();
    return Fail(std::string(what) + " references file #" + std::to_string(index) +
                " but the file table has " + std::to_string(m_.files_size()) + " entries");
  }

  base::Status CheckFile(int i) {
    const pb::FileEntry& f = m_.files(i);
    const std::string where = "files[" + std::to_string(i) + "] '" + f.path() + "'";
    if (f.scope() == pb::EXTERNAL) {
      if (f.path().empty() || f.path()[0] != '/') {
        return Fail(where + ": an EXTERNAL file must have an absolute path");
      }
      return base::Status::OK();
    }
    base::Status st = CheckRelativePath(f.path());
    if (!st.ok()) return Fail(where + ": " + st.message());
    return base::Status::OK();
  }

  base::Status CheckRange(uint32_t start, uint32_t end, uint32_t max_parallelism) const {
    if (start > end) {
      return Fail("key-group range [" + std::to_string(start) + ", " + std::to_string(end) +
                  "] is reversed");
    }
    if (max_parallelism != 0 && end >= max_parallelism) {
      return Fail("key group " + std::to_string(end) + " is outside max parallelism " +
                  std::to_string(max_parallelism));
    }
    return base::Status::OK();
  }

  base::Status CheckKeyed(const pb::KeyedStateHandle& h, uint32_t max_parallelism, int depth) {
    if (h.has_key_groups()) {
      const auto& kg = h.key_groups();
      CKPT_RETURN_IF_ERROR(CheckRange(kg.key_group_start(), kg.key_group_end(), max_parallelism));
      CKPT_RETURN_IF_ERROR(FileIndex(kg.file_index(), "keyed state handle"));
      const uint64_t groups = uint64_t{kg.key_group_end()} - kg.key_group_start() + 1;
      if (kg.key_group_offsets_size() != 0 &&
          static_cast<uint64_t>(kg.key_group_offsets_size()) != groups) {
        return Fail("keyed state handle has " + std::to_string(kg.key_group_offsets_size()) +
                    " key-group offsets for " + std::to_string(groups) + " key groups");
      }
      if (kg.key_group_record_counts_size() != 0 &&
          kg.key_group_record_counts_size() != kg.key_group_offsets_size()) {
        return Fail("keyed state handle has " + std::to_string(kg.key_group_record_counts_size()) +
                    " record counts for " + std::to_string(kg.key_group_offsets_size()) +
                    " key-group offsets");
      }
    } else if (h.has_rocksdb()) {
      const auto& r = h.rocksdb();
      CKPT_RETURN_IF_ERROR(CheckRange(r.key_group_start(), r.key_group_end(), max_parallelism));
      for (const auto& f : r.sst_files()) CKPT_RETURN_IF_ERROR(FileIndex(f.file_index(), "SST"));
      for (const auto& f : r.meta_files()) {
        CKPT_RETURN_IF_ERROR(FileIndex(f.file_index(), "RocksDB meta file"));
      }
    } else if (h.has_changelog()) {
      const auto& c = h.changelog();
      CKPT_RETURN_IF_ERROR(CheckRange(c.key_group_start(), c.key_group_end(), max_parallelism));
      // Protobuf's parser already bounds nesting at 100; this keeps our own recursion shallow.
      if (depth > 4) return Fail("changelog handles nested more than 4 deep");
      for (const auto& m : c.materialized()) {
        CKPT_RETURN_IF_ERROR(CheckKeyed(m, max_parallelism, depth + 1));
      }
      for (const auto& s : c.segments()) {
        CKPT_RETURN_IF_ERROR(FileIndex(s.slice().file_index(), "changelog segment"));
      }
    }
    return base::Status::OK();
  }

  base::Status CheckSubtask(const pb::OperatorState& op, const pb::SubtaskState& st) {
    if (op.parallelism() != 0 && st.subtask_index() >= op.parallelism()) {
      return Fail("subtask index " + std::to_string(st.subtask_index()) +
                  " is not below the operator's parallelism " +
                  std::to_string(op.parallelism()));
    }
    for (const auto& h : st.keyed_state()) {
      CKPT_RETURN_IF_ERROR(CheckKeyed(h, op.max_parallelism(), 0));
    }
    for (const auto& h : st.operator_state()) {
      CKPT_RETURN_IF_ERROR(FileIndex(h.file_index(), "operator state handle"));
    }
    for (const auto& h : st.input_channel_state()) {
      for (const auto& s : h.buffers()) {
        CKPT_RETURN_IF_ERROR(FileIndex(s.file_index(), "input channel state"));
      }
    }
    for (const auto& h : st.output_channel_state()) {
      for (const auto& s : h.buffers()) {
        CKPT_RETURN_IF_ERROR(FileIndex(s.file_index(), "output channel state"));
      }
    }
    return base::Status::OK();
  }

  base::Status CheckOperator(int i) {
    const pb::OperatorState& op = m_.operators(i);
    where_ = "operators[" + std::to_string(i) + "]";
    CKPT_RETURN_IF_ERROR(Id(op.operator_id(), "operator_id"));
    where_ = "operator " + IdText(op.operator_id());
    if (op.has_coordinator_state() && op.coordinator_state().has_file_index()) {
      CKPT_RETURN_IF_ERROR(FileIndex(op.coordinator_state().file_index(), "coordinator state"));
    }
    for (const auto& st : op.subtasks()) {
      where_ = "operator " + IdText(op.operator_id()) + " subtask " +
               std::to_string(st.subtask_index());
      CKPT_RETURN_IF_ERROR(CheckSubtask(op, st));
    }
    where_.clear();
    return base::Status::OK();
  }

  const pb::CheckpointMetadata& m_;
  const std::string& path_;
  std::string where_;
};

}  // namespace

base::Status CheckMetadataStructure(const pb::CheckpointMetadata& metadata,
                                    const std::string& path) {
  return Checker(metadata, path).Run();
}

}  // namespace ckpt::format::internal
