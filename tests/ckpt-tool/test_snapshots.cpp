// Test snapshots written through ckpt::format (see test_snapshots.h).
#include "test_snapshots.h"

#include <filesystem>

#include <gtest/gtest.h>

#include <fstream>

#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "tools/sample_snapshot.h"

namespace ckpt::testing {
namespace {

namespace sample = ::ckpt::format::sample;
using format::KeyGroupRange;

constexpr char kCheckpointJobSpec[] = R"({
  "name": "counter",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "parallelism": 2,
  "maxParallelism": 128,
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "numbers", "name": "Numbers"},
    {"id": "count", "kind": "keyed-sum", "uid": "counter", "name": "Counter"}
  ],
  "edges": [{"from": "source", "to": "count", "partitioning": "HASH"}],
  "checkpointing": {"intervalMs": 500}
})";

// Keyed INT64 counters for keys [first, first+n) of the "counter" operator, split by subtask.
base::Status WriteCounterState(sample::SnapshotBuilder& b, pb::OperatorState* op,
                               int64_t first, int64_t n, pb::FileScope scope,
                               const std::string& prefix, int64_t misplaced_key = -1) {
  *op->add_states() =
      sample::State("count", pb::STATE_VALUE, format::types::Int64(), format::types::Int64());
  std::vector<std::vector<sample::KeyedEntry>> per_subtask(op->parallelism());
  for (int64_t k = first; k < first + n; ++k) {
    CKPT_ASSIGN_OR_RETURN(std::string key, sample::Enc(format::types::Int64(), k));
    uint32_t g = format::KeyGroupForKey(key, op->max_parallelism());
    if (k == misplaced_key) {
      // Move it to a neighbouring group of the same subtask.
      const uint32_t s = format::SubtaskForKeyGroup(op->max_parallelism(), op->parallelism(), g);
      const KeyGroupRange r = format::RangeForSubtask(op->max_parallelism(), op->parallelism(), s);
      g = g < r.end ? g + 1 : g - 1;
    }
    CKPT_ASSIGN_OR_RETURN(std::string v, sample::Enc(format::types::Int64(), k * 7));
    per_subtask[format::SubtaskForKeyGroup(op->max_parallelism(), op->parallelism(), g)]
        .push_back({g, key, 0, "", v});
  }
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    const KeyGroupRange range = format::RangeForSubtask(op->max_parallelism(), op->parallelism(), s);
    CKPT_ASSIGN_OR_RETURN(
        pb::KeyedStateHandle h,
        sample::WriteKeyGroups(b, prefix + "-" + std::to_string(s) + "-keyed.state", scope,
                               b.metadata().checkpoint_id(), range, std::move(per_subtask[s])));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = h;
  }
  return base::Status::OK();
}

base::Status WriteSourceOffsets(sample::SnapshotBuilder& b, pb::OperatorState* op, int64_t pos) {
  *op->add_states() = sample::State("offsets", pb::STATE_OPERATOR_LIST, format::types::Int64());
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string v, sample::Enc(format::types::Int64(), pos + s));
    CKPT_ASSIGN_OR_RETURN(
        pb::OperatorStateHandle h,
        sample::WriteOperatorState(b, "numbers-" + std::to_string(s) + "-operator.state",
                                   pb::EXCLUSIVE, b.metadata().checkpoint_id(),
                                   {{0, "offsets", pb::STATE_OPERATOR_LIST, {v}}}));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  return base::Status::OK();
}

}  // namespace

std::string SampleJobIdHex() { return sample::kJobIdHex; }
std::string SampleSavepointJobSpec() { return sample::kSavepointJobSpec; }

base::Status WriteSampleSavepoint(const std::string& dir) {
  return sample::WriteSampleSavepoint(base::Fs::Default(), dir).status();
}

base::Status WriteSampleCheckpointRoot(const std::string& root) {
  base::Fs& fs = base::Fs::Default();
  const std::string job = format::JobDir(root, sample::kJobIdHex);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(base::JoinPath(job, format::kTaskOwnedDirName)));
  // chk-1: full, keyed state uploaded into shared/ (as an incremental backend does).
  {
    pb::CheckpointMetadata m;
    CKPT_RETURN_IF_ERROR(sample::StartMetadata(kCheckpointJobSpec, 1, pb::CHECKPOINT, &m));
    m.set_checkpoint_type(pb::FULL);
    m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
    m.set_retention(pb::RETAIN_ON_CANCELLATION);
    sample::SnapshotBuilder b(fs, format::CheckpointDir(job, 1), &m);
    CKPT_RETURN_IF_ERROR(fs.CreateDirs(b.dir()));
    CKPT_RETURN_IF_ERROR(WriteSourceOffsets(b, sample::AddOperatorState(&m, "source"), 100));
    CKPT_RETURN_IF_ERROR(WriteCounterState(b, sample::AddOperatorState(&m, "count"), 0, 40,
                                           pb::SHARED, "chk1-counter"));
    sample::FillMetrics(&m);
    CKPT_RETURN_IF_ERROR(b.Publish());
  }
  // chk-2: incremental; subtask 0 reuses chk-1's shared file, subtask 1 uploads a new one.
  {
    pb::CheckpointMetadata m;
    CKPT_RETURN_IF_ERROR(sample::StartMetadata(kCheckpointJobSpec, 2, pb::CHECKPOINT, &m));
    m.set_checkpoint_type(pb::INCREMENTAL);
    m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
    m.set_retention(pb::RETAIN_ON_CANCELLATION);
    sample::SnapshotBuilder b(fs, format::CheckpointDir(job, 2), &m);
    CKPT_RETURN_IF_ERROR(fs.CreateDirs(b.dir()));
    CKPT_RETURN_IF_ERROR(WriteSourceOffsets(b, sample::AddOperatorState(&m, "source"), 200));
    pb::OperatorState* op = sample::AddOperatorState(&m, "count");
    // Write both subtasks fresh, then point subtask 0 at chk-1's shared file instead.
    CKPT_RETURN_IF_ERROR(WriteCounterState(b, op, 0, 40, pb::SHARED, "chk2-counter"));
    CKPT_ASSIGN_OR_RETURN(uint32_t old_index,
                          b.ReferenceExisting("chk1-counter-0-keyed.state", pb::SHARED,
                                              pb::KEYED_STATE, 1));
    const uint32_t replaced = op->subtasks(0).keyed_state(0).key_groups().file_index();
    op->mutable_subtasks(0)->mutable_keyed_state(0)->mutable_key_groups()->set_file_index(
        old_index);
    // chk2-counter-0 is now unreferenced by this metadata: drop it from the table and the disk
    // (an incremental checkpoint would never have uploaded it).
    const std::string unused = m.files(static_cast<int>(replaced)).path();
    CKPT_RETURN_IF_ERROR(fs.RemoveFile(base::JoinPath(base::JoinPath(job, "shared"), unused)));
    m.mutable_files()->DeleteSubrange(static_cast<int>(replaced), 1);
    for (auto& o : *m.mutable_operators()) {
      for (auto& st : *o.mutable_subtasks()) {
        for (auto& h : *st.mutable_operator_state()) {
          if (h.file_index() > replaced) h.set_file_index(h.file_index() - 1);
        }
        for (auto& h : *st.mutable_keyed_state()) {
          auto* kg = h.mutable_key_groups();
          if (kg->file_index() > replaced) kg->set_file_index(kg->file_index() - 1);
        }
      }
    }
    sample::FillMetrics(&m);
    CKPT_RETURN_IF_ERROR(b.Publish());
  }
  // chk-3: started, never completed.
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(format::CheckpointDir(job, 3)));
  return base::Status::OK();
}

base::Status WriteUnalignedCheckpoint(const std::string& dir) {
  base::Fs& fs = base::Fs::Default();
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(sample::StartMetadata(kCheckpointJobSpec, 7, pb::CHECKPOINT, &m));
  m.set_checkpoint_type(pb::FULL);
  m.set_mode(pb::UNALIGNED);
  m.set_retention(pb::RETAIN_ON_CANCELLATION);
  sample::SnapshotBuilder b(fs, dir, &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  CKPT_RETURN_IF_ERROR(WriteSourceOffsets(b, sample::AddOperatorState(&m, "source"), 300));
  pb::OperatorState* op = sample::AddOperatorState(&m, "count");
  CKPT_RETURN_IF_ERROR(WriteCounterState(b, op, 0, 16, pb::EXCLUSIVE, "counter"));
  // In-flight buffers of both counter subtasks' input channels, in one shared channel file.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> slices(2);
  auto fill = [&](format::StateFileWriter& w) -> base::Status {
    for (uint32_t s = 0; s < 2; ++s) {
      CKPT_RETURN_IF_ERROR(w.BeginSection(s));
      for (int buf = 0; buf < 2; ++buf) {
        const std::string bytes(64 + 16 * buf, static_cast<char>('a' + s));
        CKPT_ASSIGN_OR_RETURN(uint64_t off, w.Add(bytes));
        slices[s].emplace_back(off, w.logical_offset() - off);
      }
    }
    return base::Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(uint32_t channel_file,
                        b.AddStateFile("channel-state-0", pb::EXCLUSIVE, pb::CHANNEL_STATE,
                                       m.checkpoint_id(), fill));
  for (uint32_t s = 0; s < 2; ++s) {
    pb::InputChannelStateHandle* h = op->mutable_subtasks(static_cast<int>(s))->add_input_channel_state();
    h->set_gate_index(0);
    h->set_channel_index(s);
    uint64_t total = 0;
    for (const auto& [off, len] : slices[s]) {
      pb::FileSlice* sl = h->add_buffers();
      sl->set_file_index(channel_file);
      sl->set_offset(off);
      sl->set_length(len);
      total += len;
    }
    h->set_size_bytes(total);
  }
  sample::FillMetrics(&m);
  return b.Publish();
}

base::Status WriteMisplacedKeySavepoint(const std::string& dir) {
  base::Fs& fs = base::Fs::Default();
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(sample::StartMetadata(kCheckpointJobSpec, 9, pb::SAVEPOINT, &m));
  m.set_savepoint_format(pb::CANONICAL);
  m.set_checkpoint_type(pb::FULL);
  m.set_post_action(pb::POST_ACTION_NONE);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  sample::SnapshotBuilder b(fs, dir, &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  CKPT_RETURN_IF_ERROR(WriteSourceOffsets(b, sample::AddOperatorState(&m, "source"), 10));
  CKPT_RETURN_IF_ERROR(WriteCounterState(b, sample::AddOperatorState(&m, "count"), 0, 16,
                                         pb::EXCLUSIVE, "counter", /*misplaced_key=*/5));
  sample::FillMetrics(&m);
  return b.Publish();
}

std::string CounterJobSpec() { return kCheckpointJobSpec; }

base::Status RewriteMetadata(const std::string& dir,
                             const std::function<void(pb::CheckpointMetadata&)>& edit) {
  base::Fs& fs = base::Fs::Default();
  const std::string path = base::JoinPath(dir, format::kMetadataFileName);
  CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata m, format::ReadMetadataFile(fs, path));
  edit(m);
  CKPT_RETURN_IF_ERROR(fs.RemoveFile(path));
  return format::WriteMetadataFile(fs, dir, m);
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.good()) << path;
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  ASSERT_TRUE(f.good()) << path << " has no byte at " << offset;
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

void TruncateFile(const std::string& path, uint64_t size) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << path;
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_LE(size, bytes.size());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(size));
}

void AppendBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  ASSERT_TRUE(out.good()) << path;
  out << bytes;
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out.good()) << path;
  out << text;
}

std::map<std::string, std::string> FileTree(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    auto bytes = base::ReadFileToString(base::Fs::Default(), e.path().string());
    out[std::filesystem::relative(e.path(), root).string()] = bytes.ok() ? *bytes : "";
  }
  return out;
}

}  // namespace ckpt::testing
