// Test helpers for the write-side verbs (diff, prune, remap, relocate): a checkpoint root with
// many incremental checkpoints sharing files, and an integrity check of a snapshot (metadata
// decodes; every referenced file exists with its size and XXH3; every state container opens,
// verifies its block checksums and iterates). Header-only; included by t2's *_test.cpp only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/state_file_reader.h"
#include "tools/sample_snapshot.h"

namespace ckpt::testing::opsw {

namespace sample = ::ckpt::format::sample;

inline constexpr char kCounterJobSpec[] = R"({
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

// The metadata of the snapshot in `dir`; a test failure and an empty message when unreadable.
inline pb::CheckpointMetadata ReadMetadata(const std::string& dir) {
  auto m = format::ReadMetadataFile(base::Fs::Default(), dir + "/_metadata");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : pb::CheckpointMetadata();
}

// Checks what a restore relies on. Returns the first problem (Corruption naming the file).
inline base::Status VerifySnapshot(base::Fs& fs, const std::string& dir, bool deep = true) {
  CKPT_ASSIGN_OR_RETURN(auto m, format::ReadMetadataFile(
                                    fs, base::JoinPath(dir, format::kMetadataFileName)));
  for (const auto& f : m.files()) {
    CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(dir, f));
    auto bytes = base::ReadFileToString(fs, path);
    if (!bytes.ok()) return base::Status::Corruption(path + ": " + bytes.status().ToString());
    if (bytes->size() != f.size_bytes() || base::Xxh3(*bytes) != f.checksum_xxh3()) {
      return base::Status::Corruption(path + ": size or checksum differs from the metadata");
    }
    if (!deep || f.kind() == pb::COORDINATOR_STATE || f.kind() == pb::ROCKSDB_SST ||
        f.kind() == pb::ROCKSDB_META) {
      continue;
    }
    CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs, path));
    CKPT_RETURN_IF_ERROR(reader->VerifyChecksums());
    CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
    format::RecordRef ref;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&ref));
      if (!more) break;
    }
  }
  return base::Status::OK();
}

// Keyed INT64 sums for keys [0, keys) of "count" (value = key * factor), one container per
// subtask at `prefix`-<subtask>.state in `scope`.
inline base::Result<std::vector<pb::KeyedStateHandle>> WriteCounts(sample::SnapshotBuilder& b,
                                                                   const pb::OperatorState& op,
                                                                   int64_t keys, int64_t factor,
                                                                   pb::FileScope scope,
                                                                   const std::string& prefix) {
  std::vector<std::vector<sample::KeyedEntry>> per(op.parallelism());
  for (int64_t k = 0; k < keys; ++k) {
    CKPT_ASSIGN_OR_RETURN(std::string key, sample::Enc(format::types::Int64(), k));
    uint32_t g = format::KeyGroupForKey(key, op.max_parallelism());
    CKPT_ASSIGN_OR_RETURN(std::string v, sample::Enc(format::types::Int64(), k * factor));
    per[format::SubtaskForKeyGroup(op.max_parallelism(), op.parallelism(), g)].push_back(
        {g, key, 0, "", v});
  }
  std::vector<pb::KeyedStateHandle> out;
  for (uint32_t s = 0; s < op.parallelism(); ++s) {
    CKPT_ASSIGN_OR_RETURN(
        auto h, sample::WriteKeyGroups(
                    b, prefix + "-" + std::to_string(s) + ".state", scope,
                    b.metadata().checkpoint_id(),
                    format::RangeForSubtask(op.max_parallelism(), op.parallelism(), s),
                    std::move(per[s])));
    out.push_back(std::move(h));
  }
  return out;
}

// Writes checkpoint `id` of the counter job into `job_dir`: the source's offsets exclusive, the
// count state incremental in shared/ — subtask 0 re-uploads its file only every third
// checkpoint (ids 1, 4, 7, ...) and references it otherwise; subtask 1 uploads every time.
// Keys are [0, keys) with value key * (id of the last re-upload).
inline base::Status WriteCounterCheckpoint(const std::string& job_dir, int64_t id,
                                           int64_t keys = 40) {
  base::Fs& fs = base::Fs::Default();
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(sample::StartMetadata(kCounterJobSpec, id, pb::CHECKPOINT, &m));
  m.set_checkpoint_type(id == 1 ? pb::FULL : pb::INCREMENTAL);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  m.set_retention(pb::RETAIN_ON_CANCELLATION);
  sample::SnapshotBuilder b(fs, format::CheckpointDir(job_dir, id), &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(b.dir()));
  pb::OperatorState* src = sample::AddOperatorState(&m, "source");
  *src->add_states() = sample::State("offsets", pb::STATE_OPERATOR_LIST, format::types::Int64());
  for (uint32_t s = 0; s < src->parallelism(); ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string v, sample::Enc(format::types::Int64(), id * 100 + s));
    CKPT_ASSIGN_OR_RETURN(auto h, sample::WriteOperatorState(
                                      b, "source-" + std::to_string(s) + ".state", pb::EXCLUSIVE,
                                      id, {{0, "offsets", pb::STATE_OPERATOR_LIST, {v}}}));
    pb::SubtaskState* st = src->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  pb::OperatorState* cnt = sample::AddOperatorState(&m, "count");
  *cnt->add_states() =
      sample::State("count", pb::STATE_VALUE, format::types::Int64(), format::types::Int64());
  const int64_t base_id = 1 + 3 * ((id - 1) / 3);
  std::vector<pb::KeyedStateHandle> handles;
  if (base_id == id) {
    CKPT_ASSIGN_OR_RETURN(handles, WriteCounts(b, *cnt, keys, id, pb::SHARED,
                                               "count-" + std::to_string(id)));
  } else {
    // Subtask 1's state changed: write only it (subtask 0's new file is not needed).
    CKPT_ASSIGN_OR_RETURN(handles, WriteCounts(b, *cnt, keys, base_id, pb::SHARED,
                                               "count-" + std::to_string(id)));
    std::string unused = m.files(static_cast<int>(handles[0].key_groups().file_index())).path();
    CKPT_RETURN_IF_ERROR(
        fs.RemoveFile(base::JoinPath(base::JoinPath(job_dir, "shared"), unused)));
    // Point subtask 0 at the file uploaded by `base_id` instead (the table entry is reused).
    auto* entry = m.mutable_files(static_cast<int>(handles[0].key_groups().file_index()));
    pb::CheckpointMetadata probe;
    std::string old_rel = "count-" + std::to_string(base_id) + "-0.state";
    CKPT_ASSIGN_OR_RETURN(std::string bytes,
                          base::ReadFileToString(fs, base::JoinPath(job_dir, "shared/" + old_rel)));
    entry->set_path(old_rel);
    entry->set_size_bytes(bytes.size());
    entry->set_checksum_xxh3(base::Xxh3(bytes));
    entry->set_created_by_checkpoint_id(base_id);
  }
  for (uint32_t s = 0; s < cnt->parallelism(); ++s) {
    pb::SubtaskState* st = cnt->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = handles[s];
  }
  sample::FillMetrics(&m);
  return b.Publish();
}

// The job directory of the counter job under `root`.
inline std::string CounterJobDir(const std::string& root) {
  return format::JobDir(root, sample::kJobIdHex);
}

}  // namespace ckpt::testing::opsw
