// ComputeModelSizes: the size model of docs/sizes.md over the plain model, so our own format and
// Apache Flink's (built by different loaders) get their sizes from one computation. State kept
// inline in `_metadata` counts the bytes of each handle, once; `_metadata` itself is never a
// file of an operator.
#include <algorithm>
#include <limits>
#include <vector>

#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

uint64_t SumSizes(const std::vector<uint32_t>& indexes, const std::vector<SnapshotFile>& files) {
  uint64_t sum = 0;
  for (uint32_t i : indexes) {
    if (i < files.size() && !files[i].is_metadata) sum += files[i].size_bytes;
  }
  return sum;
}

// The bytes a subtask's handles keep inline in `_metadata`.
uint64_t SubtaskInlineBytes(const SubtaskInfo& st) {
  uint64_t sum = 0;
  for (const auto& k : st.keyed) sum += k.inline_bytes;
  for (const auto& h : st.operator_state) sum += h.inline_bytes;
  for (const auto& c : st.channels) sum += c.inline_bytes;
  return sum;
}

// Appends the distinct files `st` references to `out` (most subtasks name one to three: an
// insertion sort, not std::sort).
void AppendSubtaskFiles(const SubtaskInfo& st, std::vector<uint32_t>* out) {
  const size_t from = out->size();
  for (const auto& k : st.keyed)
    out->insert(out->end(), k.file_indexes.begin(), k.file_indexes.end());
  for (const auto& h : st.operator_state) out->push_back(h.file_index);
  for (const auto& c : st.channels) {
    out->insert(out->end(), c.file_indexes.begin(), c.file_indexes.end());
  }
  auto first = out->begin() + static_cast<ptrdiff_t>(from);
  if (out->end() - first > 16) {
    std::sort(first, out->end());
  } else {
    for (auto i = first; i != out->end(); ++i) {
      for (auto j = i; j != first && *(j - 1) > *j; --j) std::iter_swap(j - 1, j);
    }
  }
  out->erase(std::unique(first, out->end()), out->end());
}

}  // namespace

void ComputeModelSizes(Snapshot* s) {
  const std::vector<SnapshotFile>& files = s->files;
  const size_t n = files.size();
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  // Every subtask's distinct files, one subtask after another (`counts` says how many each).
  std::vector<uint32_t> subtask_files;
  std::vector<uint32_t> counts;
  // How many subtasks reference each file: a file referenced by N subtasks (a channel-state
  // file written by up to 5 subtasks, a shared SST) gives each of them 1/N of its size, so
  // subtask sizes add up to the operator's.
  std::vector<uint32_t> users(n);
  // Distinct files are counted by marking them, not by sorting the lists: the last operator
  // that counted each, and whether the snapshot counted it.
  std::vector<uint32_t> counted_by_op(n, kNone);
  std::vector<bool> counted(n);
  uint64_t full = 0, checkpointed = 0, inline_total = 0;
  for (size_t o = 0; o < s->operators.size(); ++o) {
    OperatorInfo& op = s->operators[o];
    uint64_t op_full = 0, op_checkpointed = 0;
    auto count = [&](uint32_t f) {
      if (f >= n || files[f].is_metadata || counted_by_op[f] == o) return;
      counted_by_op[f] = static_cast<uint32_t>(o);
      const uint64_t size = files[f].size_bytes;
      const bool mine = IsCheckpointedFile(files[f], s->checkpoint_id);
      op_full += size;
      op_checkpointed += mine ? size : 0;
      if (!counted[f]) {  // each distinct referenced file once, whoever shares it
        counted[f] = true;
        full += size;
        checkpointed += mine ? size : 0;
      }
    };
    uint64_t op_inline = 0;
    for (auto& st : op.subtasks) {
      for (auto& k : st.keyed) k.size_bytes = SumSizes(k.file_indexes, files) + k.inline_bytes;
      op_inline += SubtaskInlineBytes(st);
      const size_t from = subtask_files.size();
      AppendSubtaskFiles(st, &subtask_files);
      counts.push_back(static_cast<uint32_t>(subtask_files.size() - from));
      for (size_t i = from; i < subtask_files.size(); ++i) {
        const uint32_t f = subtask_files[i];
        if (f < n) ++users[f];
        count(f);
      }
    }
    if (op.coordinator) {
      if (op.coordinator->file_index) count(*op.coordinator->file_index);
      if (op.coordinator->is_inline) op_inline += op.coordinator->size_bytes;
    }
    op.total_bytes = op_full + op_inline;
    op.checkpointed_bytes = op_checkpointed + op_inline;
    full += op_inline;
    checkpointed += op_inline;
    inline_total += op_inline;
  }
  size_t next = 0, k = 0;
  for (auto& op : s->operators) {
    for (auto& st : op.subtasks) {
      st.state_bytes = SubtaskInlineBytes(st);
      for (uint32_t i = 0; i < counts[k]; ++i, ++next) {
        const uint32_t f = subtask_files[next];
        if (f < n && !files[f].is_metadata) st.state_bytes += files[f].size_bytes / users[f];
      }
      ++k;
    }
  }
  s->full_size_bytes = full;
  s->checkpointed_size_bytes = checkpointed;
  s->inline_state_bytes = inline_total;
}

CheckpointType CheckpointTypeFromReferences(const Snapshot& s) {
  if (s.kind == SnapshotKind::kSavepoint) return s.checkpoint_type;
  for (const auto& f : s.files) {
    // The file table lists what the handles reference; a creator of 0 is not recorded.
    if (f.scope == FileScope::kShared && f.created_by_checkpoint_id != 0 &&
        f.created_by_checkpoint_id < s.checkpoint_id) {
      return CheckpointType::kIncremental;
    }
  }
  return s.checkpoint_type;
}

}  // namespace ckpt::ops
