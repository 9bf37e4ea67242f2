// Helpers shared by the checkpoint tests: job graphs, a recording CheckpointRuntime, driving one
// operator subtask's snapshot into the coordinator, and reading a snapshot back through
// ckpt::format with every checksum verified.
#pragma once

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/checkpoint/checkpoint_runtime.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine::testing {

struct OpDef {
  std::string uid;
  std::string name;
  uint32_t parallelism = 1;
  uint32_t max_parallelism = 128;
};

inline format::OperatorId Id(const std::string& uid) { return format::OperatorId::FromUid(uid); }

inline pb::JobGraph MakeGraph(const std::vector<OpDef>& ops) {
  pb::JobGraph g;
  uint32_t chain = 0;
  for (const auto& d : ops) {
    pb::OperatorInfo* op = g.add_operators();
    op->set_operator_id(Id(d.uid).ToBytes());
    op->set_uid(d.uid);
    op->set_name(d.name);
    op->set_kind("test");
    op->set_parallelism(d.parallelism);
    op->set_max_parallelism(d.max_parallelism);
    op->set_chain_index(chain++);
    op->set_spec_id(d.uid);
  }
  return g;
}

inline std::string JobId() { return std::string("\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef", 16); }

// Records what the coordinator asks of the runtime.
class FakeRuntime : public CheckpointRuntime {
 public:
  base::Status InjectBarriers(const CheckpointOptions& options) override {
    std::lock_guard<std::mutex> lock(mu_);
    injected.push_back(options);
    return inject_status;
  }
  void NotifyCheckpointComplete(int64_t id) override {
    std::lock_guard<std::mutex> lock(mu_);
    completed.push_back(id);
  }
  void NotifyCheckpointAborted(int64_t id, const base::Status& reason) override {
    std::lock_guard<std::mutex> lock(mu_);
    aborted.push_back(id);
    abort_reasons.push_back(reason);
  }
  base::Result<std::vector<CoordinatorSnapshot>> SnapshotCoordinators(int64_t) override {
    return coordinators;
  }
  void FailJob(const base::Status& reason) override {
    std::lock_guard<std::mutex> lock(mu_);
    failures.push_back(reason);
  }

  std::mutex mu_;
  base::Status inject_status;
  std::vector<CoordinatorSnapshot> coordinators;
  std::vector<CheckpointOptions> injected;
  std::vector<int64_t> completed;
  std::vector<int64_t> aborted;
  std::vector<base::Status> abort_reasons;
  std::vector<base::Status> failures;
};

// Acknowledges a stateless operator subtask.
inline void AckEmpty(CheckpointCoordinator& c, int64_t id, const std::string& uid,
                     uint32_t subtask, pb::SubtaskMetrics metrics = {}) {
  OperatorSubtaskState s;
  s.operator_id = Id(uid);
  s.subtask_index = subtask;
  s.subtask.set_subtask_index(subtask);
  c.AcknowledgeCheckpoint(id, std::move(s), metrics);
}

// Snapshots one operator subtask (both phases) and returns its contribution.
inline base::Result<OperatorSubtaskState> SnapshotSubtask(base::Fs& fs,
                                                          const CheckpointOptions& options,
                                                          const std::string& uid, uint32_t subtask,
                                                          KeyedStateBackend* keyed,
                                                          OperatorStateStore* ops,
                                                          std::vector<pb::SinkCommittable> c = {}) {
  OperatorSnapshot snap = TakeOperatorSnapshot(Id(uid), subtask, keyed, ops, std::move(c));
  return WriteOperatorSnapshot(fs, options, snap);
}

// Reads `_metadata` of `dir` and every state file it references through ckpt::format, verifying
// the envelope checksum, each file's size and whole-file XXH3 and every block checksum.
inline pb::CheckpointMetadata ReadBackVerified(base::Fs& fs, const std::string& dir) {
  base::Result<pb::CheckpointMetadata> md =
      format::ReadMetadataFile(fs, base::JoinPath(dir, format::kMetadataFileName));
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  if (!md.ok()) return {};
  for (const pb::FileEntry& f : md->files()) {
    EXPECT_EQ(f.scope(), pb::EXCLUSIVE) << f.path();
    EXPECT_OK(format::CheckRelativePath(f.path()));
    base::Result<std::string> path = format::ResolveFile(dir, f);
    EXPECT_TRUE(path.ok());
    if (!path.ok()) continue;
    base::Result<std::string> bytes = base::ReadFileToString(fs, *path);
    EXPECT_TRUE(bytes.ok()) << *path;
    if (!bytes.ok()) continue;
    EXPECT_EQ(bytes->size(), f.size_bytes()) << *path;
    EXPECT_EQ(base::Xxh3(*bytes), f.checksum_xxh3()) << *path;
    base::Result<std::unique_ptr<format::StateFileReader>> reader =
        format::StateFileReader::Open(fs, *path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (reader.ok()) {
      EXPECT_OK((*reader)->VerifyChecksums());
      EXPECT_EQ((*reader)->index().kind, f.kind());
    }
  }
  return *md;
}

}  // namespace ckpt::engine::testing
