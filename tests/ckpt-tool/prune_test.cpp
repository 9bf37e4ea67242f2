// prune: retention, orphan detection (FLINK-30461), age guard, savepoints untouched, crash
// safety after every step of the plan (FaultInjectionFs), and the CLI's plan output.
#include "ckpt/ops/prune.h"

#include <gtest/gtest.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/base/posix_fs.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "ops_write_testutil.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;
namespace opsw = testing::opsw;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
constexpr int64_t kHourMs = 3600 * 1000;

// A root with chk-1..chk-6 of the counter job, a stray file in shared/, and an incomplete chk-7
// holding a leftover file.
void WritePruneRoot(const std::string& root) {
  const std::string job = opsw::CounterJobDir(root);
  for (int64_t id = 1; id <= 6; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  testing::WriteTextFile(job + "/shared/leaked-by-a-crashed-job.sst", "leak");
  ASSERT_OK(base::Fs::Default().CreateDirs(job + "/chk-7"));
  testing::WriteTextFile(job + "/chk-7/partial-upload.state", "partial");
}

const PruneSnapshot* FindSnapshot(const PrunePlan& plan, const std::string& suffix) {
  for (const auto& s : plan.snapshots) {
    if (s.path.size() >= suffix.size() &&
        s.path.compare(s.path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return &s;
    }
  }
  return nullptr;
}

std::string KeptReason(const PrunePlan& plan, const std::string& suffix) {
  for (const auto& k : plan.kept) {
    if (k.path.size() >= suffix.size() &&
        k.path.compare(k.path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return k.reason;
    }
  }
  return "<not kept>";
}

bool Deletes(const PrunePlan& plan, const std::string& suffix) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [&](const PruneStep& s) {
    return s.action == PruneAction::kRemoveFile && s.path.size() >= suffix.size() &&
           s.path.compare(s.path.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
}

PruneOptions OldEnough(uint32_t keep_last) {
  PruneOptions o;
  o.keep_last = keep_last;
  o.now_ms = NowMs() + 2 * kHourMs;  // every file on disk is then older than the 1h guard
  return o;
}

TEST(PruneTest, PlansSubsumedCheckpointsMetadataFirstThenFilesThenOrphans) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(2)));

  for (int id = 1; id <= 4; ++id) {
    const PruneSnapshot* s = FindSnapshot(plan, "chk-" + std::to_string(id));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->verdict, SnapshotVerdict::kSubsumed) << s->path;
  }
  EXPECT_EQ(FindSnapshot(plan, "chk-5")->verdict, SnapshotVerdict::kRetained);
  EXPECT_EQ(FindSnapshot(plan, "chk-6")->verdict, SnapshotVerdict::kRetained);
  EXPECT_EQ(FindSnapshot(plan, "chk-7")->verdict, SnapshotVerdict::kIncomplete);

  // The first 8 steps remove and sync the four subsumed _metadata files, before any other file.
  ASSERT_GE(plan.steps.size(), 20u);
  for (size_t i = 0; i < 8; ++i) {
    const PruneStep& s = plan.steps[i];
    if (i % 2 == 0) {
      EXPECT_EQ(s.action, PruneAction::kRemoveFile);
      EXPECT_NE(s.path.find("/_metadata"), std::string::npos) << s.path;
    } else {
      EXPECT_EQ(s.action, PruneAction::kSyncDir);
    }
  }
  // Shared files still referenced by chk-5/chk-6 stay, with the reason naming both.
  EXPECT_FALSE(Deletes(plan, "shared/count-4-0.state"));
  EXPECT_NE(KeptReason(plan, "shared/count-4-0.state").find("chk-5 and "), std::string::npos)
      << KeptReason(plan, "shared/count-4-0.state");
  EXPECT_NE(KeptReason(plan, "shared/count-4-0.state").find("chk-6"), std::string::npos);
  // Orphans (FLINK-30461): files only subsumed checkpoints referenced, and the leak.
  EXPECT_TRUE(Deletes(plan, "shared/count-1-0.state"));
  EXPECT_TRUE(Deletes(plan, "shared/count-2-1.state"));
  EXPECT_TRUE(Deletes(plan, "shared/leaked-by-a-crashed-job.sst"));
  EXPECT_TRUE(Deletes(plan, "chk-7/partial-upload.state"));
  EXPECT_FALSE(Deletes(plan, "shared/count-6-1.state"));
  EXPECT_EQ(KeptReason(plan, "chk-6/_metadata").find("_metadata of retained"), 0u);
  // Orphans come after every file of the subsumed checkpoints.
  size_t last_subsumed = 0, first_orphan = plan.steps.size();
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].reason.rfind("file of subsumed", 0) == 0) last_subsumed = i;
    if (plan.steps[i].reason.rfind("orphan", 0) == 0) first_orphan = std::min(first_orphan, i);
  }
  EXPECT_LT(last_subsumed, first_orphan);
}

TEST(PruneTest, CrashAfterEveryStepLeavesEveryCompleteSnapshotValid) {
  TempDir tmp;
  const std::string tmpl = tmp.Sub("template");
  WritePruneRoot(tmpl);
  ASSERT_OK_AND_ASSIGN(PrunePlan probe, PlanPrune(base::Fs::Default(), tmpl, OldEnough(2)));
  const size_t steps = probe.steps.size();
  ASSERT_GE(steps, 20u);

  base::PosixFs posix;
  for (size_t k = 0; k <= steps; ++k) {
    SCOPED_TRACE("crash after " + std::to_string(k) + " of " + std::to_string(steps) + " steps");
    const std::string root = tmp.Sub("run-" + std::to_string(k));
    testing::CopyTree(tmpl, root);
    ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(posix, root, OldEnough(2)));
    ASSERT_EQ(plan.steps.size(), steps);
    base::FaultInjectionFs faulty(posix);
    faulty.CrashAfter(static_cast<int64_t>(k));
    size_t done = 0;
    base::Status st = ExecutePrune(faulty, plan, {}, &done);
    EXPECT_EQ(st.ok(), k >= steps) << st.ToString();
    EXPECT_EQ(done, std::min(k, steps));

    // Every snapshot that still has a _metadata must be fully restorable; the retained ones
    // must still have theirs.
    const std::string job = opsw::CounterJobDir(root);
    for (int id = 1; id <= 6; ++id) {
      const std::string dir = job + "/chk-" + std::to_string(id);
      if (!testing::Exists(dir + "/_metadata")) {
        EXPECT_LE(id, 4) << "retained chk-" << id << " lost its _metadata";
        continue;
      }
      EXPECT_OK(opsw::VerifySnapshot(posix, dir, /*deep=*/false));
    }
    if (k == 0 || k == steps / 2 || k == steps) {
      // The project's own validator, deep (every record decoded, keys in their key groups).
      for (int id : {5, 6}) {
        ValidateOptions deep;
        deep.deep = true;
        auto report = Validate(posix, job + "/chk-" + std::to_string(id), deep);
        ASSERT_OK(report);
        for (const auto& f : report->findings) {
          EXPECT_NE(f.severity, Severity::kError) << "chk-" << id << ": " << f.rule_id << " "
                                                  << f.message;
        }
      }
    }

    // Re-running after the crash finishes the job and leaves exactly the retained state.
    ASSERT_OK_AND_ASSIGN(PrunePlan again, PlanPrune(posix, root, OldEnough(2)));
    ASSERT_OK(ExecutePrune(posix, again));
    for (int id = 1; id <= 4; ++id)
      EXPECT_FALSE(testing::Exists(job + "/chk-" + std::to_string(id)));
    EXPECT_FALSE(testing::Exists(job + "/chk-7"));
    EXPECT_FALSE(testing::Exists(job + "/shared/count-1-0.state"));
    EXPECT_FALSE(testing::Exists(job + "/shared/leaked-by-a-crashed-job.sst"));
    for (int id : {5, 6}) {
      EXPECT_OK(opsw::VerifySnapshot(posix, job + "/chk-" + std::to_string(id), /*deep=*/true));
    }
    ASSERT_OK_AND_ASSIGN(PrunePlan nothing_left, PlanPrune(posix, root, OldEnough(2)));
    EXPECT_TRUE(nothing_left.steps.empty());
  }
}

TEST(PruneTest, AgeGuardKeepsYoungOrphansButStillDeletesSubsumedCheckpoints) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  PruneOptions options;
  options.keep_last = 2;
  options.now_ms = NowMs();  // everything was written just now
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), options));
  EXPECT_TRUE(Deletes(plan, "chk-1/_metadata"));
  EXPECT_TRUE(Deletes(plan, "chk-1/source-0.state"));
  EXPECT_FALSE(Deletes(plan, "shared/leaked-by-a-crashed-job.sst"));
  EXPECT_NE(KeptReason(plan, "shared/leaked-by-a-crashed-job.sst").find("younger than the age "
                                                                         "guard (1h)"),
            std::string::npos);
  EXPECT_FALSE(Deletes(plan, "chk-7/partial-upload.state"));
  EXPECT_FALSE(Deletes(plan, "shared/count-1-0.state"));
}

TEST(PruneTest, FilesOfUnknownAgeAreKept) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string leak = opsw::CounterJobDir(tmp.path()) + "/shared/leaked-by-a-crashed-job.sst";
  // An mtime of the epoch is what some object stores report when they do not know.
  const timeval epoch[2] = {{0, 0}, {0, 0}};
  ASSERT_EQ(utimes(leak.c_str(), epoch), 0);
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(2)));
  EXPECT_FALSE(Deletes(plan, "shared/leaked-by-a-crashed-job.sst"));
  EXPECT_EQ(KeptReason(plan, "shared/leaked-by-a-crashed-job.sst"), "age unknown");
  EXPECT_TRUE(Deletes(plan, "shared/count-1-0.state"));
}

TEST(PruneTest, OlderThanKeepsRecentCheckpoints) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  PruneOptions options;
  options.keep_last = 1;
  options.older_than_ms = 3 * 1000;
  // The counter checkpoints complete at base + id*1000 + 250: at base + 5300 only chk-1 and
  // chk-2 completed more than 3s earlier.
  options.now_ms = opsw::sample::kBaseTimestampMs + 5300;
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), options));
  EXPECT_EQ(FindSnapshot(plan, "chk-1")->verdict, SnapshotVerdict::kSubsumed);
  EXPECT_EQ(FindSnapshot(plan, "chk-2")->verdict, SnapshotVerdict::kSubsumed);
  EXPECT_EQ(FindSnapshot(plan, "chk-3")->verdict, SnapshotVerdict::kRetained);
  EXPECT_NE(FindSnapshot(plan, "chk-3")->reason.find("less than 3s ago"), std::string::npos);
  EXPECT_EQ(FindSnapshot(plan, "chk-6")->verdict, SnapshotVerdict::kRetained);
}

TEST(PruneTest, NeverTouchesSavepoints) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string sp = tmp.Sub("savepoint-1a2b3c-0123456789ab");
  ASSERT_OK(testing::WriteSampleSavepoint(sp));
  testing::WriteTextFile(sp + "/stray.bin", "not referenced");
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  EXPECT_EQ(FindSnapshot(plan, "savepoint-1a2b3c-0123456789ab")->verdict,
            SnapshotVerdict::kSavepoint);
  for (const auto& step : plan.steps) {
    EXPECT_EQ(step.path.find("savepoint-"), std::string::npos) << step.path;
  }
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), sp));
  EXPECT_TRUE(testing::Exists(sp + "/stray.bin"));
  // Savepoints one level down (the engine's default <checkpoint-dir>/savepoints/) are listed.
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("savepoints/savepoint-1a2b3c-aaaaaaaaaaaa")));
  ASSERT_OK_AND_ASSIGN(PrunePlan again, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  const PruneSnapshot* nested = FindSnapshot(again, "savepoints/savepoint-1a2b3c-aaaaaaaaaaaa");
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->verdict, SnapshotVerdict::kSavepoint);
}

TEST(PruneTest, ASavepointInAChkDirectoryIsNeverDeleted) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string chk3 = opsw::CounterJobDir(tmp.path()) + "/chk-3";
  ASSERT_OK(testing::RewriteMetadata(chk3, [](pb::CheckpointMetadata& m) {
    m.set_kind(pb::SAVEPOINT);
  }));
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  EXPECT_EQ(FindSnapshot(plan, "chk-3")->verdict, SnapshotVerdict::kSavepoint);
  EXPECT_EQ(FindSnapshot(plan, "chk-5")->verdict, SnapshotVerdict::kSubsumed);
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  // Its own files and the shared files it references survive.
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), chk3));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), opsw::CounterJobDir(tmp.path()) + "/chk-6"));
}

TEST(PruneTest, FilesReferencedFromOtherSnapshotsAndJobsAreKept) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string job = opsw::CounterJobDir(tmp.path());
  // A second job beside the first, and a savepoint that references (EXTERNAL) a file inside
  // the first job's subsumed chk-1.
  const std::string other = tmp.Sub("0123456789abcdef0123456789abcdef");
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(other, id));
  const std::string sp = tmp.Sub("savepoint-1a2b3c-0123456789ab");
  ASSERT_OK(testing::WriteSampleSavepoint(sp));
  const std::string borrowed = job + "/chk-1/source-0.state";
  ASSERT_OK(testing::RewriteMetadata(sp, [&](pb::CheckpointMetadata& m) {
    auto bytes = base::ReadFileToString(base::Fs::Default(), borrowed);
    pb::FileEntry* f = m.add_files();
    f->set_path(borrowed);
    f->set_scope(pb::EXTERNAL);
    f->set_kind(pb::OPERATOR_STATE);
    f->set_size_bytes(bytes.ok() ? bytes->size() : 0);
    f->set_checksum_xxh3(bytes.ok() ? base::Xxh3(*bytes) : 0);
  }));
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  EXPECT_TRUE(Deletes(plan, "1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-1/_metadata"));
  EXPECT_TRUE(Deletes(plan, "0123456789abcdef0123456789abcdef/chk-1/_metadata"));
  EXPECT_FALSE(Deletes(plan, "0123456789abcdef0123456789abcdef/chk-2/_metadata"));
  EXPECT_FALSE(Deletes(plan, "1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-1/source-0.state"));
  EXPECT_EQ(KeptReason(plan, "1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-1/source-0.state"),
            "referenced by savepoint-1a2b3c-0123456789ab");
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_TRUE(testing::Exists(borrowed));
  EXPECT_FALSE(testing::Exists(job + "/chk-1/_metadata"));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), sp));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), other + "/chk-2"));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), job + "/chk-6"));
}

TEST(PruneTest, UnreadableMetadataKeepsItsFilesAndBlocksSharedOrphans) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string job = opsw::CounterJobDir(tmp.path());
  testing::FlipByte(job + "/chk-3/_metadata", 30);
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(2)));
  EXPECT_EQ(FindSnapshot(plan, "chk-3")->verdict, SnapshotVerdict::kCorrupt);
  EXPECT_FALSE(Deletes(plan, "chk-3/source-0.state"));
  EXPECT_FALSE(Deletes(plan, "shared/leaked-by-a-crashed-job.sst"));
  EXPECT_FALSE(Deletes(plan, "shared/count-3-1.state"));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("chk-3 has an unreadable _metadata"), std::string::npos);
  // Subsumed checkpoints with readable metadata still go.
  EXPECT_TRUE(Deletes(plan, "chk-1/_metadata"));
}

// --- Only a checkpoint that would restore counts: a damaged newest one never costs the older
// good one. ---

enum class Damage { kMissing, kTruncated, kFlipped };

void DamageFile(const std::string& path, Damage damage) {
  switch (damage) {
    case Damage::kMissing: ASSERT_TRUE(std::filesystem::remove(path)) << path; break;
    case Damage::kTruncated: testing::TruncateFile(path, 10); break;
    case Damage::kFlipped: testing::FlipByte(path, 20); break;
  }
}

void ExpectOlderGoodOneKept(Damage damage, const std::string& why) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string job = opsw::CounterJobDir(tmp.path());
  DamageFile(job + "/chk-6/source-0.state", damage);
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  const PruneSnapshot* chk6 = FindSnapshot(plan, "chk-6");
  ASSERT_NE(chk6, nullptr);
  EXPECT_EQ(chk6->verdict, SnapshotVerdict::kDamaged);
  EXPECT_NE(chk6->reason.find("source-0.state"), std::string::npos) << chk6->reason;
  EXPECT_NE(chk6->reason.find(why), std::string::npos) << chk6->reason;
  EXPECT_NE(chk6->reason.find("not counted towards --keep-last 1"), std::string::npos);
  EXPECT_EQ(FindSnapshot(plan, "chk-5")->verdict, SnapshotVerdict::kRetained);
  EXPECT_EQ(FindSnapshot(plan, "chk-4")->verdict, SnapshotVerdict::kSubsumed);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("chk-5 is the newest restorable checkpoint; chk-6 would not "
                               "restore"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_FALSE(Deletes(plan, "chk-6/_metadata"));
  EXPECT_FALSE(Deletes(plan, "chk-6/source-1.state"));
  EXPECT_EQ(KeptReason(plan, "chk-6/source-1.state"),
            "chk-6 would not restore; its files are kept");
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), job + "/chk-5"));
  EXPECT_FALSE(testing::Exists(job + "/chk-4"));
}

TEST(PruneTest, NewestWithAMissingFileDoesNotCostTheOlderGoodOne) {
  ExpectOlderGoodOneKept(Damage::kMissing, "missing source-0.state");
}

TEST(PruneTest, NewestWithATruncatedFileDoesNotCostTheOlderGoodOne) {
  ExpectOlderGoodOneKept(Damage::kTruncated, "has 10 bytes, the metadata records 100");
}

TEST(PruneTest, NewestWithAFlippedByteDoesNotCostTheOlderGoodOne) {
  ExpectOlderGoodOneKept(Damage::kFlipped, "XXH3 is ");
}

TEST(PruneTest, ADamagedSharedFileDiscountsEveryCheckpointReferencingIt) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string job = opsw::CounterJobDir(tmp.path());
  // shared/count-4-0.state is referenced by chk-4, chk-5 and chk-6: none of them restores.
  testing::FlipByte(job + "/shared/count-4-0.state", 5);
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  for (const char* id : {"chk-4", "chk-5", "chk-6"}) {
    EXPECT_EQ(FindSnapshot(plan, id)->verdict, SnapshotVerdict::kDamaged) << id;
  }
  EXPECT_EQ(FindSnapshot(plan, "chk-3")->verdict, SnapshotVerdict::kRetained);
  EXPECT_EQ(FindSnapshot(plan, "chk-2")->verdict, SnapshotVerdict::kSubsumed);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("chk-3 is the newest restorable checkpoint; chk-6, chk-5 and "
                               "chk-4 would not restore"),
            std::string::npos)
      << plan.notes[0];
  EXPECT_FALSE(Deletes(plan, "shared/count-4-0.state"));
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), job + "/chk-3"));
}

TEST(PruneTest, NoRestorableCheckpointKeepsThemAll) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.path());
  for (int64_t id = 1; id <= 3; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  // shared/count-1-0.state is referenced by every checkpoint.
  ASSERT_TRUE(std::filesystem::remove(job + "/shared/count-1-0.state"));
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(1)));
  for (const auto& s : plan.snapshots) EXPECT_EQ(s.verdict, SnapshotVerdict::kDamaged) << s.path;
  for (const auto& st : plan.steps) EXPECT_EQ(st.path.find("/chk-"), std::string::npos) << st.path;
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("has no restorable checkpoint"), std::string::npos)
      << plan.notes[0];
}

TEST(PruneCliTest, SaysWhyADamagedNewerCheckpointDidNotCount) {
  TempDir tmp;
  WritePruneRoot(tmp.Sub("root"));
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  testing::TruncateFile(job + "/chk-6/source-1.state", 7);
  auto run = testing::RunTool({"prune", "root", "--yes"}, tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("damaged"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("source-1.state has 7 bytes, the metadata records 100"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("note: job "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(": chk-5 is the newest restorable checkpoint; chk-6 would not restore"),
            std::string::npos)
      << run.out;
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), job + "/chk-5"));
  EXPECT_TRUE(testing::Exists(job + "/chk-6/_metadata"));
  EXPECT_FALSE(testing::Exists(job + "/chk-4"));
  auto json = testing::RunTool({"prune", "root", "--format", "json"}, tmp.path());
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"verdict\":\"damaged\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("{\"note\":\"job "), std::string::npos) << json.out;
}

TEST(PruneTest, StrayFilesInRetainedCheckpointsAreOrphans) {
  TempDir tmp;
  WritePruneRoot(tmp.path());
  const std::string job = opsw::CounterJobDir(tmp.path());
  testing::WriteTextFile(job + "/chk-6/_metadata.tmp-0badf00d", "torn");
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), OldEnough(2)));
  EXPECT_TRUE(Deletes(plan, "chk-6/_metadata.tmp-0badf00d"));
  EXPECT_FALSE(Deletes(plan, "chk-6/_metadata"));
  EXPECT_FALSE(Deletes(plan, "chk-6/source-0.state"));
}

TEST(PruneTest, RejectsKeepLastZeroAndMissingRoot) {
  TempDir tmp;
  PruneOptions options;
  options.keep_last = 0;
  ASSERT_STATUS(PlanPrune(base::Fs::Default(), tmp.path(), options), kInvalidArgument,
                "--keep-last");
  ASSERT_STATUS(PlanPrune(base::Fs::Default(), tmp.Sub("nope"), {}), kNotFound, "nope");
}

TEST(PruneTest, ParsesAndFormatsDurations) {
  EXPECT_EQ(*ParseDuration("500ms"), 500);
  EXPECT_EQ(*ParseDuration("30s"), 30'000);
  EXPECT_EQ(*ParseDuration("15m"), 900'000);
  EXPECT_EQ(*ParseDuration("12h"), 43'200'000);
  EXPECT_EQ(*ParseDuration("7d"), 604'800'000);
  EXPECT_EQ(*ParseDuration("90"), 90'000);
  ASSERT_STATUS(ParseDuration("7x"), kInvalidArgument, "7x");
  ASSERT_STATUS(ParseDuration("-1h"), kInvalidArgument, "-1h");
  ASSERT_STATUS(ParseDuration("h"), kInvalidArgument, "whole number");
  ASSERT_STATUS(ParseDuration(""), kInvalidArgument, "no number");
  ASSERT_STATUS(ParseDuration("99999999999999999999d"), kInvalidArgument, "too large");
  EXPECT_EQ(FormatDuration(3'600'000), "1h");
  EXPECT_EQ(FormatDuration(90'000), "90s");
  EXPECT_EQ(FormatDuration(1500), "1500ms");
}

// --- A live job (its _job.lock held): nothing in its directory is deleted. ---

TEST(PruneTest, LiveJobKeepsEverythingIncludingItsInFlightTmpFiles) {
  TempDir tmp;
  const std::string root = tmp.Sub("root");
  WritePruneRoot(root);
  const std::string job = opsw::CounterJobDir(root);
  // The in-flight checkpoint of a running engine: `_metadata` not yet renamed into place.
  testing::WriteTextFile(job + "/chk-7/_metadata.tmp-1a2b3c", "in flight");
  PruneOptions o = OldEnough(1);
  o.min_orphan_age_ms = 0;
  {
    // The engine's job lock, held as a running engine holds it.
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<base::FileLock> lock,
                         base::Fs::Default().TryLockFile(job + "/_job.lock"));
    ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), root, o));
    EXPECT_TRUE(plan.steps.empty()) << plan.steps.front().path;
    ASSERT_FALSE(plan.notes.empty());
    EXPECT_NE(plan.notes[0].find("is running"), std::string::npos) << plan.notes[0];
    EXPECT_EQ(KeptReason(plan, "chk-7/_metadata.tmp-1a2b3c"), "its job is running");
    const PruneSnapshot* chk1 = FindSnapshot(plan, "chk-1");
    ASSERT_NE(chk1, nullptr);
    EXPECT_EQ(chk1->verdict, SnapshotVerdict::kRetained);
    ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
    EXPECT_TRUE(testing::Exists(job + "/chk-7/_metadata.tmp-1a2b3c"));
    EXPECT_TRUE(testing::Exists(job + "/chk-1/_metadata"));
  }
  // A plan made while the job was stopped is refused if the job started meanwhile.
  ASSERT_OK_AND_ASSIGN(PrunePlan stale, PlanPrune(base::Fs::Default(), root, o));
  ASSERT_FALSE(stale.steps.empty());
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<base::FileLock> lock,
                         base::Fs::Default().TryLockFile(job + "/_job.lock"));
    ASSERT_STATUS(ExecutePrune(base::Fs::Default(), stale), kFailedPrecondition,
                  "started running since the plan");
    EXPECT_TRUE(testing::Exists(job + "/chk-1/_metadata"));
  }
  // Stopped for good: the dead job's leftovers go.
  ASSERT_OK(ExecutePrune(base::Fs::Default(), stale));
  EXPECT_FALSE(testing::Exists(job + "/chk-7/_metadata.tmp-1a2b3c"));
  EXPECT_FALSE(testing::Exists(job + "/chk-1"));
  EXPECT_TRUE(testing::Exists(job + "/chk-6/_metadata"));
}

TEST(PruneCliTest, DryRunShowsThePlanAndDeletesNothing) {
  TempDir tmp;
  WritePruneRoot(tmp.Sub("root"));
  auto run = testing::RunTool({"prune", "root", "--keep-last", "4"}, tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  testing::ExpectGolden("prune-dry-run.text", run.out);
  EXPECT_TRUE(testing::Exists(opsw::CounterJobDir(tmp.Sub("root")) + "/chk-1/_metadata"));
  auto json = testing::RunTool({"prune", "root", "--keep-last", "4", "--format", "json"},
                               tmp.path());
  EXPECT_EQ(json.exit_code, 0) << json.err;
  testing::ExpectGolden("prune-dry-run.json", json.out);
  // The default text counts what goes per category; --verbose also lists every file.
  EXPECT_NE(run.out.find("subsumed checkpoints      6  2.6 KiB"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("chk-1/source-0.state"), std::string::npos) << run.out;
  auto verbose = testing::RunTool({"prune", "root", "--keep-last", "4", "--verbose"}, tmp.path());
  EXPECT_EQ(verbose.exit_code, 0) << verbose.err;
  testing::ExpectGolden("prune-dry-run-verbose.text", verbose.out);
  EXPECT_NE(verbose.out.find("chk-1/source-0.state"), std::string::npos) << verbose.out;
  EXPECT_NE(verbose.out.find("kept 22 files"), std::string::npos) << verbose.out;
}

TEST(PruneCliTest, YesDeletesAndRetainedCheckpointsStayValid) {
  TempDir tmp;
  WritePruneRoot(tmp.Sub("root"));
  auto run = testing::RunTool({"prune", "root", "--keep-last", "2", "--yes", "-q"}, tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  EXPECT_FALSE(testing::Exists(job + "/chk-1"));
  EXPECT_TRUE(testing::Exists(job + "/chk-6/_metadata"));
  // Young orphans (the leak was written a moment ago) survive the default 1h guard.
  EXPECT_TRUE(testing::Exists(job + "/shared/leaked-by-a-crashed-job.sst"));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), job + "/chk-5"));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), job + "/chk-6"));
  auto usage = testing::RunTool({"prune", "root", "--older-than", "soon"}, tmp.path());
  EXPECT_EQ(usage.exit_code, 2);
  auto both = testing::RunTool({"prune", "root", "--yes", "--dry-run"}, tmp.path());
  EXPECT_EQ(both.exit_code, 2);
}

}  // namespace
}  // namespace ckpt::ops
