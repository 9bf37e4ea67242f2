// Tests of retention (engine/src/checkpoint/completed_checkpoint_store.cpp) and discovery of the
// latest complete checkpoint (checkpoint_discovery.cpp).
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"

#include <gtest/gtest.h>

#include <string>

#include "checkpoint_test_support.h"
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

class CheckpointStoreTest : public ::testing::Test {
 protected:
  // A published snapshot directory with one state file.
  CompletedCheckpoint MakeSnapshot(const std::string& dir, int64_t id,
                                   pb::SnapshotKind kind = pb::CHECKPOINT,
                                   bool with_missing_file = false) {
    EXPECT_OK(fs_.CreateDirs(dir));
    const std::string data = "state of " + std::to_string(id);
    EXPECT_OK(base::WriteFileAtomic(fs_, base::JoinPath(dir, "a.state"), data));
    pb::CheckpointMetadata md;
    md.set_format_version(format::kFormatVersion);
    md.set_checkpoint_id(id);
    md.set_kind(kind);
    md.set_job_id(testing::JobId());
    pb::FileEntry* f = md.add_files();
    f->set_path("a.state");
    f->set_scope(pb::EXCLUSIVE);
    f->set_kind(pb::KEYED_STATE);
    f->set_size_bytes(data.size());
    if (with_missing_file) {
      pb::FileEntry* g = md.add_files();
      g->set_path("gone.state");
      g->set_scope(pb::EXCLUSIVE);
      g->set_kind(pb::KEYED_STATE);
      g->set_size_bytes(3);
    }
    EXPECT_OK(format::WriteMetadataFile(fs_, dir, md));
    CompletedCheckpoint c;
    c.checkpoint_id = id;
    c.kind = kind;
    c.dir = dir;
    c.metadata_path = base::JoinPath(dir, "_metadata");
    c.owned = kind == pb::CHECKPOINT;
    return c;
  }
  bool Exists(const std::string& p) { return fs_.Stat(p).ok(); }

  base::Fs& fs_ = base::Fs::Default();
  ckpt::testing::TempDir dir_;
};

TEST_F(CheckpointStoreTest, KeepsNumRetainedAndDeletesSubsumed) {
  CompletedCheckpointStore store(fs_, 2);
  std::vector<CompletedCheckpoint> all;
  for (int64_t id = 1; id <= 4; ++id) {
    all.push_back(MakeSnapshot(dir_.Sub("chk-" + std::to_string(id)), id));
    ASSERT_OK(store.Add(all.back()));
  }
  EXPECT_FALSE(Exists(all[0].dir));
  EXPECT_FALSE(Exists(all[1].dir));
  EXPECT_TRUE(Exists(all[2].dir));
  EXPECT_TRUE(Exists(all[3].dir));
  ASSERT_EQ(store.All().size(), 2u);
  EXPECT_EQ(store.Latest()->checkpoint_id, 4);
}

TEST_F(CheckpointStoreTest, ReportsEachDeletedCheckpointAfterItsDirectoryIsGone) {
  CompletedCheckpointStore store(fs_, 1);
  std::vector<int64_t> deleted;
  store.OnDeleted([&](const CompletedCheckpoint& c) {
    EXPECT_FALSE(Exists(c.dir)) << c.dir;
    deleted.push_back(c.checkpoint_id);
  });
  CompletedCheckpoint kept = MakeSnapshot(dir_.Sub("restored"), 1);
  kept.restored = true;
  kept.owned = false;  // NO_CLAIM: subsumed but never deleted, so never reported
  ASSERT_OK(store.Add(kept));
  for (int64_t id = 2; id <= 4; ++id) {
    ASSERT_OK(store.Add(MakeSnapshot(dir_.Sub("chk-" + std::to_string(id)), id)));
  }
  EXPECT_EQ(deleted, (std::vector<int64_t>{2, 3}));
  ASSERT_OK(store.Shutdown(JobTermination::kCancelled));
  EXPECT_EQ(deleted, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_TRUE(Exists(kept.dir));
}

TEST_F(CheckpointStoreTest, NoClaimRestoredSnapshotIsNeverDeletedClaimIs) {
  for (pb::ClaimMode mode : {pb::NO_CLAIM, pb::CLAIM}) {
    ckpt::testing::TempDir d;
    CompletedCheckpointStore store(fs_, 1);
    CompletedCheckpoint restored = MakeSnapshot(d.Sub("restored"), 7);
    restored.restored = true;
    restored.owned = mode == pb::CLAIM;
    ASSERT_OK(store.Add(restored));
    ASSERT_OK(store.Add(MakeSnapshot(d.Sub("chk-8"), 8)));
    EXPECT_EQ(Exists(restored.dir), mode == pb::NO_CLAIM) << pb::ClaimMode_Name(mode);
    ASSERT_OK(store.Shutdown(JobTermination::kCancelled));
    EXPECT_EQ(Exists(restored.dir), mode == pb::NO_CLAIM);
    EXPECT_FALSE(Exists(d.Sub("chk-8")));
  }
}

TEST_F(CheckpointStoreTest, SavepointTakenByTheJobIsNeverDeleted) {
  CompletedCheckpointStore store(fs_, 1);
  CompletedCheckpoint sp = MakeSnapshot(dir_.Sub("savepoint-012345-abcdefabcdef"), 3,
                                        pb::SAVEPOINT);
  sp.owned = true;  // even if marked owned by mistake
  ASSERT_OK(store.Add(sp));
  ASSERT_OK(store.Add(MakeSnapshot(dir_.Sub("chk-4"), 4)));
  ASSERT_OK(store.Shutdown(JobTermination::kFinished));
  EXPECT_TRUE(Exists(base::JoinPath(sp.dir, "_metadata")));
}

struct RetentionCase {
  pb::RetentionPolicy policy;
  JobTermination how;
  bool deleted;
};

class RetentionTest : public CheckpointStoreTest,
                      public ::testing::WithParamInterface<RetentionCase> {};

TEST_P(RetentionTest, AppliesThePolicyOnTermination) {
  const RetentionCase& rc = GetParam();
  CompletedCheckpointStore store(fs_, 1, rc.policy);
  CompletedCheckpoint c = MakeSnapshot(dir_.Sub("chk-1"), 1);
  ASSERT_OK(store.Add(c));
  ASSERT_OK(store.Shutdown(rc.how));
  EXPECT_EQ(!Exists(c.dir), rc.deleted);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, RetentionTest,
    ::testing::Values(RetentionCase{pb::NO_EXTERNALIZED, JobTermination::kCancelled, true},
                      RetentionCase{pb::NO_EXTERNALIZED, JobTermination::kFailed, true},
                      RetentionCase{pb::NO_EXTERNALIZED, JobTermination::kFinished, true},
                      RetentionCase{pb::NO_EXTERNALIZED, JobTermination::kSuspended, false},
                      RetentionCase{pb::RETAIN_ON_CANCELLATION, JobTermination::kCancelled, false},
                      RetentionCase{pb::RETAIN_ON_CANCELLATION, JobTermination::kFailed, false},
                      RetentionCase{pb::RETAIN_ON_CANCELLATION, JobTermination::kFinished, true},
                      RetentionCase{pb::DELETE_ON_CANCELLATION, JobTermination::kCancelled, true},
                      RetentionCase{pb::DELETE_ON_CANCELLATION, JobTermination::kFailed, false},
                      RetentionCase{pb::DELETE_ON_CANCELLATION, JobTermination::kFinished, true}));

TEST_F(CheckpointStoreTest, DiscoveryReturnsTheNewestCompleteCheckpoint) {
  const std::string job = dir_.Sub("job");
  MakeSnapshot(base::JoinPath(job, "chk-1"), 1);
  MakeSnapshot(base::JoinPath(job, "chk-2"), 2);
  // chk-3: crashed before `_metadata`.
  ASSERT_OK(fs_.CreateDirs(base::JoinPath(job, "chk-3")));
  ASSERT_OK(base::WriteFileAtomic(fs_, base::JoinPath(job, "chk-3/a.state"), "partial"));
  // chk-4: `_metadata` with a flipped byte.
  MakeSnapshot(base::JoinPath(job, "chk-4"), 4);
  const std::string md4 = base::JoinPath(job, "chk-4/_metadata");
  ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(fs_, md4));
  bytes[bytes.size() / 2] ^= 0x40;
  ASSERT_OK(base::WriteFileAtomic(fs_, md4, bytes));
  // chk-5: references a file that is missing.
  MakeSnapshot(base::JoinPath(job, "chk-5"), 5, pb::CHECKPOINT, true);
  // Not checkpoints at all.
  ASSERT_OK(fs_.CreateDirs(base::JoinPath(job, "shared")));
  ASSERT_OK(fs_.CreateDirs(base::JoinPath(job, "chk-x")));

  ASSERT_OK_AND_ASSIGN(CompletedCheckpoint latest, FindLatestCheckpoint(fs_, job));
  EXPECT_EQ(latest.checkpoint_id, 2);
  EXPECT_EQ(latest.dir, base::JoinPath(job, "chk-2"));
  ASSERT_OK_AND_ASSIGN(DiscoveredCheckpoints all, DiscoverCheckpoints(fs_, job));
  ASSERT_EQ(all.complete.size(), 2u);
  EXPECT_EQ(all.complete[1].checkpoint_id, 1);
  ASSERT_EQ(all.skipped.size(), 3u);
  EXPECT_NE(all.skipped[0].find("chk-5"), std::string::npos);
  EXPECT_NE(all.skipped[0].find("gone.state"), std::string::npos);
  EXPECT_NE(all.skipped[1].find("chk-4"), std::string::npos);
  EXPECT_NE(all.skipped[1].find("Corruption"), std::string::npos);
  EXPECT_NE(all.skipped[2].find("chk-3: no _metadata"), std::string::npos);
}

TEST_F(CheckpointStoreTest, DiscoveryWithoutCompleteCheckpointIsNotFound) {
  const std::string job = dir_.Sub("job");
  ASSERT_OK(fs_.CreateDirs(base::JoinPath(job, "chk-1")));
  ASSERT_STATUS(FindLatestCheckpoint(fs_, job), kNotFound, "chk-1: no _metadata");
  ASSERT_STATUS(FindLatestCheckpoint(fs_, dir_.Sub("nope")), kNotFound, "nope");
}

}  // namespace
}  // namespace ckpt::engine
