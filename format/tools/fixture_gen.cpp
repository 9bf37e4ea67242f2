// ckpt-fixture-gen DIR: writes the frozen test fixtures (DIR/v1/...), the corrected writer's
// checkpoint root (DIR/v1-r2/...) and the corrupt variants (DIR/corrupt/...) with ckpt::format
// only. Deterministic: running it twice gives identical
// bytes, which tests/format/extra.cmake checks against the committed fixtures/. Refuses to write
// over an existing DIR/v1 or DIR/corrupt, because fixtures of a released version are frozen.
#include <cstdio>
#include <string>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/format/state_file_reader.h"
#include "sample_snapshot.h"

namespace ckpt::format::sample {
namespace {

using base::Status;

// ---------------------------------------------------------------------------------------------
// v1/checkpoints: a retained-checkpoint root with an incremental (changelog) chk-2.

constexpr char kIncrementalSpec[] = R"({
  "name": "counts-incremental",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "parallelism": 2,
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "numbers-source", "parallelism": 1},
    {"id": "count", "kind": "keyed-count", "uid": "count-per-key"}
  ],
  "edges": [{"from": "source", "to": "count", "partitioning": "HASH"}],
  "checkpointing": {"intervalMs": 1000, "numRetained": 2, "retention": "RETAIN_ON_CANCELLATION"}
})";
constexpr int kIncrementalKeys = 16;

// Count of key `k` in the materialized base, and the changes of changelog segment 1 and 2
// (fixtures_test.cpp replays them and expects exactly these values).
int64_t BaseCount(int64_t k) { return k + 1; }
bool ChangedInSegment(int segment, int64_t k) { return segment == 1 ? k % 3 == 0 : k % 4 == 0; }
int64_t SegmentDelta(int segment) { return segment == 1 ? 10 : 100; }

base::Result<pb::KeyedStateHandle> WriteMaterialized(SnapshotBuilder& b, const pb::OperatorState& op,
                                                     uint32_t subtask) {
  std::vector<KeyedEntry> entries;
  for (int64_t k = 0; k < kIncrementalKeys; ++k) {
    CKPT_ASSIGN_OR_RETURN(std::string key, Enc(types::Int64(), k));
    const uint32_t g = KeyGroupForKey(key, op.max_parallelism());
    if (SubtaskForKeyGroup(op.max_parallelism(), op.parallelism(), g) != subtask) continue;
    CKPT_ASSIGN_OR_RETURN(std::string v, Enc(types::Int64(), BaseCount(k)));
    entries.push_back({g, key, 0, "", v});
  }
  return WriteKeyGroups(b, "count-per-key-" + std::to_string(subtask) + "-materialized-1.state",
                        pb::SHARED, 1, RangeForSubtask(op.max_parallelism(), op.parallelism(), subtask),
                        std::move(entries));
}

// Changelog segment `segment` of `subtask`: a put of the new count for each changed key, in
// sequence order, one section (id 0).
base::Result<pb::ChangelogSegment> WriteSegment(SnapshotBuilder& b, const pb::OperatorState& op,
                                                uint32_t subtask, int segment) {
  pb::ChangelogSegment seg;
  uint64_t sequence = segment == 1 ? 1 : 1000;
  seg.set_from_sequence(sequence);
  auto fill = [&](StateFileWriter& w) -> Status {
    seg.mutable_slice()->set_offset(w.logical_offset());
    for (int64_t k = 0; k < kIncrementalKeys; ++k) {
      CKPT_ASSIGN_OR_RETURN(std::string key, Enc(types::Int64(), k));
      const uint32_t g = KeyGroupForKey(key, op.max_parallelism());
      if (SubtaskForKeyGroup(op.max_parallelism(), op.parallelism(), g) != subtask) continue;
      if (!ChangedInSegment(segment, k)) continue;
      int64_t value = BaseCount(k);
      for (int s = 1; s <= segment; ++s) value += ChangedInSegment(s, k) ? SegmentDelta(s) : 0;
      CKPT_ASSIGN_OR_RETURN(std::string v, Enc(types::Int64(), value));
      std::string record;
      EncodeChangelogRecord({sequence++, ChangeOp::kPut, g, {0, key, "", "", v}}, &record);
      CKPT_RETURN_IF_ERROR(w.Add(record).status());
    }
    seg.mutable_slice()->set_length(w.logical_offset() - seg.slice().offset());
    return Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(
      uint32_t index,
      b.AddStateFile("count-per-key-" + std::to_string(subtask) + "-log-" + std::to_string(segment) +
                         ".changelog",
                     pb::TASK_OWNED, pb::CHANGELOG, b.metadata().checkpoint_id(), fill));
  seg.mutable_slice()->set_file_index(index);
  seg.set_to_sequence(sequence - 1);
  return seg;
}

// Which checkpoint a re-referenced TASK_OWNED changelog segment is recorded as created by.
enum class SegmentCreator {
  // The checkpoint that wrote it (correct: one file, one creator). Every set but v1.
  kOriginal,
  // The referencing checkpoint: what the writer did when fixtures/v1 was frozen.
  // Kept only so the frozen v1 bytes regenerate identically; ckpt-tool validate
  // reports it as CKPT-F012.
  kReferencingFrozenV1,
};

Status WriteIncrementalCheckpoint(base::Fs& fs, const std::string& job_dir, int64_t id,
                                  SegmentCreator creator) {
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(StartMetadata(kIncrementalSpec, id, pb::CHECKPOINT, &m));
  m.set_checkpoint_type(pb::INCREMENTAL);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  m.set_retention(pb::RETAIN_ON_CANCELLATION);
  (*m.mutable_properties())["state.backend.type"] = "hashmap";
  (*m.mutable_properties())["state.backend.changelog.enabled"] = "true";
  SnapshotBuilder b(fs, CheckpointDir(job_dir, id), &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(b.dir()));

  pb::OperatorState* src = AddOperatorState(&m, "source");
  *src->add_states() = State("offsets", pb::STATE_OPERATOR_LIST, types::Int64());
  CKPT_ASSIGN_OR_RETURN(std::string offset, Enc(types::Int64(), 500 * id));
  CKPT_ASSIGN_OR_RETURN(pb::OperatorStateHandle sh,
                        WriteOperatorState(b, "numbers-source-0-operator.state", pb::EXCLUSIVE, id,
                                           {{0, "offsets", pb::STATE_OPERATOR_LIST, {offset}}}));
  pb::SubtaskState* sst = src->add_subtasks();
  sst->set_subtask_index(0);
  *sst->add_operator_state() = sh;

  pb::OperatorState* count = AddOperatorState(&m, "count");
  *count->add_states() = State("count", pb::STATE_VALUE, types::Int64(), types::Int64());
  for (uint32_t s = 0; s < count->parallelism(); ++s) {
    pb::KeyedStateHandle h;
    pb::ChangelogStateHandle* cl = h.mutable_changelog();
    const KeyGroupRange range = RangeForSubtask(count->max_parallelism(), count->parallelism(), s);
    cl->set_key_group_start(range.start);
    cl->set_key_group_end(range.end);
    cl->set_materialization_id(1);
    if (id == 1) {
      CKPT_ASSIGN_OR_RETURN(*cl->add_materialized(), WriteMaterialized(b, *count, s));
      CKPT_ASSIGN_OR_RETURN(*cl->add_segments(), WriteSegment(b, *count, s, 1));
    } else {
      // chk-2 re-references chk-1's materialization and first segment, uploads only segment 2.
      pb::CheckpointMetadata first;
      CKPT_ASSIGN_OR_RETURN(first, ReadMetadataFile(fs, CheckpointDir(job_dir, 1) + "/_metadata"));
      const pb::KeyedStateHandle& old = first.operators(1).subtasks(static_cast<int>(s)).keyed_state(0);
      pb::KeyedStateHandle mat = old.changelog().materialized(0);
      const pb::FileEntry& mat_file = first.files(static_cast<int>(mat.key_groups().file_index()));
      CKPT_ASSIGN_OR_RETURN(uint32_t mat_index,
                            b.ReferenceExisting(mat_file.path(), pb::SHARED, pb::KEYED_STATE, 1));
      mat.mutable_key_groups()->set_file_index(mat_index);
      *cl->add_materialized() = mat;
      pb::ChangelogSegment seg1 = old.changelog().segments(0);
      const pb::FileEntry& seg_file = first.files(static_cast<int>(seg1.slice().file_index()));
      const int64_t created_by = creator == SegmentCreator::kOriginal
                                     ? seg_file.created_by_checkpoint_id()
                                     : id;
      CKPT_ASSIGN_OR_RETURN(uint32_t seg_index, b.ReferenceExisting(seg_file.path(), pb::TASK_OWNED,
                                                                    pb::CHANGELOG, created_by));
      seg1.mutable_slice()->set_file_index(seg_index);
      *cl->add_segments() = seg1;
      CKPT_ASSIGN_OR_RETURN(*cl->add_segments(), WriteSegment(b, *count, s, 2));
    }
    pb::SubtaskState* st = count->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = h;
  }
  FillMetrics(&m);
  return b.Publish();
}

// ---------------------------------------------------------------------------------------------
// v1/unaligned: an unaligned checkpoint whose channel-state files several subtasks share.

constexpr char kUnalignedSpec[] = R"({
  "name": "unaligned-windows",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "events-source", "parallelism": 2},
    {"id": "window", "kind": "tumbling-window-sum", "uid": "window-sum", "parallelism": 6}
  ],
  "edges": [{"from": "source", "to": "window", "partitioning": "REBALANCE"}],
  "checkpointing": {"intervalMs": 1000, "mode": "UNALIGNED"}
})";
// As Flink's execution.checkpointing.unaligned.max-subtasks-per-channel-state-file (default 5).
constexpr uint32_t kMaxSubtasksPerChannelFile = 5;

// The bytes of buffer `n` of a channel; fixtures_test.cpp recomputes them.
std::string BufferBytes(const std::string& what, uint32_t subtask, uint32_t channel, int n) {
  std::string out;
  for (int r = 0; r < 3 + n; ++r) {
    base::PutLengthPrefixed(&out, what + "-" + std::to_string(subtask) + "-" + std::to_string(channel) +
                                      "-" + std::to_string(n) + "-" + std::to_string(r));
  }
  return out;
}

// Writes the channel state of `subtasks` into one CHANNEL_STATE file, one section per subtask
// (id = subtask index), and fills their handles. `output` selects output subpartitions.
Status WriteChannelFile(SnapshotBuilder& b, const std::string& name, pb::OperatorState* op,
                        uint32_t first, uint32_t last, uint32_t channels, bool output) {
  std::vector<pb::SubtaskState> states(last - first + 1);
  auto fill = [&](StateFileWriter& w) -> Status {
    for (uint32_t s = first; s <= last; ++s) {
      CKPT_RETURN_IF_ERROR(w.BeginSection(s));
      pb::SubtaskState& st = states[s - first];
      st.set_subtask_index(s);
      for (uint32_t c = 0; c < channels; ++c) {
        std::vector<pb::FileSlice> slices;
        uint64_t total = 0;
        for (int n = 0; n < static_cast<int>(1 + (s + c) % 2); ++n) {
          const std::string buf = BufferBytes(output ? "out" : "in", s, c, n);
          CKPT_ASSIGN_OR_RETURN(uint64_t offset, w.Add(buf));
          pb::FileSlice slice;
          slice.set_offset(offset);
          slice.set_length(w.logical_offset() - offset);
          slices.push_back(slice);
          total += buf.size();
        }
        google::protobuf::RepeatedPtrField<pb::FileSlice>* dst;
        if (output) {
          auto* h = st.add_output_channel_state();
          h->set_partition_index(0);
          h->set_subpartition_index(c);
          h->set_size_bytes(total);
          dst = h->mutable_buffers();
        } else {
          auto* h = st.add_input_channel_state();
          h->set_gate_index(0);
          h->set_channel_index(c);
          h->set_size_bytes(total);
          dst = h->mutable_buffers();
        }
        for (auto& slice : slices) *dst->Add() = slice;
      }
    }
    return Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(uint32_t index, b.AddStateFile(name, pb::EXCLUSIVE, pb::CHANNEL_STATE,
                                                       b.metadata().checkpoint_id(), fill));
  for (auto& st : states) {
    for (auto& h : *st.mutable_input_channel_state()) {
      for (auto& sl : *h.mutable_buffers()) sl.set_file_index(index);
    }
    for (auto& h : *st.mutable_output_channel_state()) {
      for (auto& sl : *h.mutable_buffers()) sl.set_file_index(index);
    }
    // Merge into the operator's subtask entry (created in subtask order by the caller).
    pb::SubtaskState* target = op->mutable_subtasks(static_cast<int>(st.subtask_index()));
    target->MergeFrom(st);
  }
  return Status::OK();
}

Status WriteUnalignedCheckpoint(base::Fs& fs, const std::string& job_dir) {
  constexpr int64_t kId = 5;
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(StartMetadata(kUnalignedSpec, kId, pb::CHECKPOINT, &m));
  m.set_checkpoint_type(pb::FULL);
  m.set_mode(pb::UNALIGNED);
  m.set_retention(pb::NO_EXTERNALIZED);
  (*m.mutable_properties())["execution.checkpointing.unaligned.max-subtasks-per-channel-state-file"] =
      std::to_string(kMaxSubtasksPerChannelFile);
  SnapshotBuilder b(fs, CheckpointDir(job_dir, kId), &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(b.dir()));

  pb::OperatorState* src = AddOperatorState(&m, "source");
  *src->add_states() = State("offsets", pb::STATE_OPERATOR_LIST, types::Int64());
  for (uint32_t s = 0; s < src->parallelism(); ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string offset, Enc(types::Int64(), int64_t{7000} + s));
    CKPT_ASSIGN_OR_RETURN(
        pb::OperatorStateHandle h,
        WriteOperatorState(b, "events-source-" + std::to_string(s) + "-operator.state",
                           pb::EXCLUSIVE, kId, {{0, "offsets", pb::STATE_OPERATOR_LIST, {offset}}}));
    pb::SubtaskState* st = src->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  pb::OperatorState* win = AddOperatorState(&m, "window");
  for (uint32_t s = 0; s < win->parallelism(); ++s) win->add_subtasks()->set_subtask_index(s);
  // Output subpartitions of both source subtasks (6 each, one per downstream subtask): one file.
  CKPT_RETURN_IF_ERROR(WriteChannelFile(b, "events-source-channel-state-0.state", src, 0, 1,
                                        win->parallelism(), /*output=*/true));
  // Input channels of the window subtasks (2 each), at most 5 subtasks per file.
  for (uint32_t first = 0, file = 0; first < win->parallelism();
       first += kMaxSubtasksPerChannelFile, ++file) {
    const uint32_t last = std::min(win->parallelism(), first + kMaxSubtasksPerChannelFile) - 1;
    CKPT_RETURN_IF_ERROR(WriteChannelFile(b, "window-sum-channel-state-" + std::to_string(file) +
                                                 ".state",
                                          win, first, last, src->parallelism(), /*output=*/false));
  }
  FillMetrics(&m);
  return b.Publish();
}

// ---------------------------------------------------------------------------------------------
// corrupt/: one small valid savepoint per case, then one defect each.

constexpr char kTinySpec[] = R"({
  "name": "tiny",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "operators": [{"id": "count", "kind": "keyed-count", "uid": "tiny-count"}],
  "checkpointing": {"intervalMs": 1000}
})";
constexpr char kTinyStateFile[] = "tiny-count-0-keyed.state";

Status WriteTinySavepoint(base::Fs& fs, const std::string& dir) {
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(StartMetadata(kTinySpec, 3, pb::SAVEPOINT, &m));
  m.set_savepoint_format(pb::CANONICAL);
  m.set_checkpoint_type(pb::FULL);
  m.set_post_action(pb::POST_ACTION_NONE);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  SnapshotBuilder b(fs, dir, &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  pb::OperatorState* op = AddOperatorState(&m, "count");
  *op->add_states() = State("count", pb::STATE_VALUE, types::Int64(), types::String());
  std::vector<KeyedEntry> entries;
  // Enough records for several blocks, so the flipped block is one of many.
  for (int i = 0; i < 200; ++i) {
    CKPT_ASSIGN_OR_RETURN(std::string key, Enc(types::String(), "key-" + std::to_string(i)));
    CKPT_ASSIGN_OR_RETURN(std::string v, Enc(types::Int64(), int64_t{i}));
    entries.push_back({KeyGroupForKey(key, op->max_parallelism()), key, 0, "", v});
  }
  CKPT_ASSIGN_OR_RETURN(pb::KeyedStateHandle h,
                        WriteKeyGroups(b, kTinyStateFile, pb::EXCLUSIVE, 3,
                                       RangeForSubtask(op->max_parallelism(), 1, 0), entries));
  pb::SubtaskState* st = op->add_subtasks();
  st->set_subtask_index(0);
  *st->add_keyed_state() = h;
  FillMetrics(&m);
  return b.Publish();
}

Status Rewrite(base::Fs& fs, const std::string& path, const std::function<void(std::string*)>& edit) {
  CKPT_ASSIGN_OR_RETURN(std::string bytes, base::ReadFileToString(fs, path));
  edit(&bytes);
  return base::WriteFileAtomic(fs, path, bytes);
}

Status WriteCorrupt(base::Fs& fs, const std::string& root) {
  auto make = [&](const std::string& name) -> base::Result<std::string> {
    const std::string dir = base::JoinPath(root, name);
    CKPT_RETURN_IF_ERROR(WriteTinySavepoint(fs, dir));
    return dir;
  };
  CKPT_ASSIGN_OR_RETURN(std::string d, make("truncated-metadata"));
  CKPT_RETURN_IF_ERROR(Rewrite(fs, d + "/_metadata", [](std::string* b) {
    b->resize(kMetadataHeaderSize + (b->size() - kMetadataHeaderSize) / 2);
  }));
  CKPT_ASSIGN_OR_RETURN(d, make("flipped-payload-byte"));
  CKPT_RETURN_IF_ERROR(Rewrite(fs, d + "/_metadata", [](std::string* b) {
    (*b)[kMetadataHeaderSize + (b->size() - kMetadataHeaderSize - kMetadataTrailerSize) / 2] ^= 0x20;
  }));
  CKPT_ASSIGN_OR_RETURN(d, make("bad-magic"));
  CKPT_RETURN_IF_ERROR(Rewrite(fs, d + "/_metadata", [](std::string* b) { b->replace(0, 8, "CKPTMETX"); }));
  CKPT_ASSIGN_OR_RETURN(d, make("future-version"));
  // A well-formed file of version 2: only the version differs, the checksum is recomputed.
  CKPT_RETURN_IF_ERROR(Rewrite(fs, d + "/_metadata", [](std::string* b) {
    std::string v;
    base::PutFixed32(&v, kFormatVersion + 1);
    b->replace(8, 4, v);
    b->resize(b->size() - kMetadataTrailerSize);
    base::PutFixed64(b, base::Xxh3(*b));
  }));
  CKPT_ASSIGN_OR_RETURN(d, make("missing-referenced-file"));
  CKPT_RETURN_IF_ERROR(fs.RemoveFile(base::JoinPath(d, kTinyStateFile)));
  CKPT_ASSIGN_OR_RETURN(d, make("block-checksum-mismatch"));
  {
    const std::string state = base::JoinPath(d, kTinyStateFile);
    CKPT_ASSIGN_OR_RETURN(auto reader, StateFileReader::Open(fs, state));
    const auto& blocks = reader->index().blocks;
    if (blocks.size() < 2) return Status::Internal("tiny savepoint has fewer than 2 blocks");
    const BlockInfo block = blocks[1];
    reader.reset();
    CKPT_RETURN_IF_ERROR(Rewrite(fs, state, [&](std::string* b) {
      (*b)[block.file_offset + kBlockHeaderSize + block.stored_length / 2] ^= 0x01;
    }));
  }
  CKPT_ASSIGN_OR_RETURN(d, make("escaping-reference"));
  {
    CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata m, ReadMetadataFile(fs, d + "/_metadata"));
    m.mutable_files(0)->set_path("../../etc/passwd");
    CKPT_RETURN_IF_ERROR(base::WriteFileAtomic(fs, d + "/_metadata", EncodeMetadata(m)));
  }
  return Status::OK();
}

Status Run(const std::string& out) {
  base::Fs& fs = base::Fs::Default();
  for (const char* sub : {"v1", "v1-r2", "corrupt"}) {
    if (fs.Stat(base::JoinPath(out, sub)).ok()) {
      return Status::AlreadyExists(base::JoinPath(out, sub) +
                                   " exists; fixtures are frozen, generate into an empty directory");
    }
  }
  const std::string v1 = base::JoinPath(out, "v1");
  CKPT_RETURN_IF_ERROR(WriteSampleSavepoint(fs, base::JoinPath(v1, "savepoint")).status());
  CKPT_RETURN_IF_ERROR(base::WriteFileAtomic(fs, base::JoinPath(v1, "savepoint.job.json"),
                                             kSavepointJobSpec));
  const std::string inc_job = JobDir(base::JoinPath(v1, "checkpoints"), kJobIdHex);
  CKPT_RETURN_IF_ERROR(WriteIncrementalCheckpoint(fs, inc_job, 1, SegmentCreator::kReferencingFrozenV1));
  CKPT_RETURN_IF_ERROR(WriteIncrementalCheckpoint(fs, inc_job, 2, SegmentCreator::kReferencingFrozenV1));
  // v1-r2: the same checkpoint root from the corrected writer (format version 1 still).
  const std::string r2_job = JobDir(base::JoinPath(base::JoinPath(out, "v1-r2"), "checkpoints"),
                                    kJobIdHex);
  CKPT_RETURN_IF_ERROR(WriteIncrementalCheckpoint(fs, r2_job, 1, SegmentCreator::kOriginal));
  CKPT_RETURN_IF_ERROR(WriteIncrementalCheckpoint(fs, r2_job, 2, SegmentCreator::kOriginal));
  CKPT_RETURN_IF_ERROR(WriteUnalignedCheckpoint(fs, JobDir(base::JoinPath(v1, "unaligned"), kJobIdHex)));
  return WriteCorrupt(fs, base::JoinPath(out, "corrupt"));
}

}  // namespace
}  // namespace ckpt::format::sample

int main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: ckpt-fixture-gen DIR\n"
                         "Writes DIR/v1/... and DIR/corrupt/... (see fixtures/README.md).\n");
    return 2;
  }
  ckpt::base::Status st = ckpt::format::sample::Run(argv[1]);
  if (!st.ok()) {
    std::fprintf(stderr, "ckpt-fixture-gen: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
