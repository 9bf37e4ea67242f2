// ComputeModelSizes: the size model of docs/sizes.md over the plain model, so our own format and
// Apache Flink's (built by different loaders) get their sizes from one computation.
#include <algorithm>
#include <vector>

#include "snapshot_raw.h"

namespace ckpt::ops {
namespace {

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

uint64_t SumSizes(const std::vector<uint32_t>& indexes, const std::vector<SnapshotFile>& files) {
  uint64_t sum = 0;
  for (uint32_t i : indexes) {
    if (i < files.size()) sum += files[i].size_bytes;
  }
  return sum;
}

uint64_t CheckpointedSum(const std::vector<uint32_t>& indexes,
                         const std::vector<SnapshotFile>& files, int64_t checkpoint_id) {
  uint64_t sum = 0;
  for (uint32_t i : indexes) {
    if (i < files.size() && IsCheckpointedFile(files[i], checkpoint_id)) sum += files[i].size_bytes;
  }
  return sum;
}

// Every file `st` references, distinct and ascending, appended to `out` (cleared first).
void SubtaskFiles(const SubtaskInfo& st, std::vector<uint32_t>* out) {
  out->clear();
  for (const auto& k : st.keyed) out->insert(out->end(), k.file_indexes.begin(), k.file_indexes.end());
  for (const auto& h : st.operator_state) out->push_back(h.file_index);
  for (const auto& c : st.channels) {
    out->insert(out->end(), c.file_indexes.begin(), c.file_indexes.end());
  }
  SortUnique(out);
}

}  // namespace

void ComputeModelSizes(Snapshot* s) {
  const std::vector<SnapshotFile>& files = s->files;
  // How many subtasks reference each file: a file referenced by N subtasks (a channel-state
  // file written by up to 5 subtasks, a shared SST) gives each of them 1/N of its size, so
  // subtask sizes add up to the operator's.
  std::vector<uint64_t> users(files.size());
  std::vector<uint32_t> referenced;
  std::vector<uint32_t> op_files;
  std::vector<uint32_t> st_files;  // reused: one allocation, not one per subtask
  uint64_t inline_bytes = 0;
  for (auto& op : s->operators) {
    op_files.clear();
    for (auto& st : op.subtasks) {
      for (auto& k : st.keyed) k.size_bytes = SumSizes(k.file_indexes, files);
      SubtaskFiles(st, &st_files);
      for (uint32_t f : st_files) {
        if (f < users.size()) ++users[f];
      }
      op_files.insert(op_files.end(), st_files.begin(), st_files.end());
    }
    uint64_t op_inline = 0;
    if (op.coordinator) {
      if (op.coordinator->file_index) op_files.push_back(*op.coordinator->file_index);
      if (op.coordinator->is_inline) op_inline = op.coordinator->size_bytes;
    }
    SortUnique(&op_files);
    op.total_bytes = SumSizes(op_files, files) + op_inline;
    op.checkpointed_bytes = CheckpointedSum(op_files, files, s->checkpoint_id) + op_inline;
    inline_bytes += op_inline;
    referenced.insert(referenced.end(), op_files.begin(), op_files.end());
  }
  for (auto& op : s->operators) {
    for (auto& st : op.subtasks) {
      SubtaskFiles(st, &st_files);
      st.state_bytes = 0;
      for (uint32_t f : st_files) {
        if (f < files.size()) st.state_bytes += files[f].size_bytes / users[f];
      }
    }
  }
  // Each distinct referenced file once, whoever shares it.
  SortUnique(&referenced);
  s->full_size_bytes = SumSizes(referenced, files) + inline_bytes;
  s->checkpointed_size_bytes = CheckpointedSum(referenced, files, s->checkpoint_id) + inline_bytes;
}

}  // namespace ckpt::ops
