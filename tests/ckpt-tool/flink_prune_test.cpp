// prune of an Apache Flink checkpoint directory (<root>/<job-id>/chk-N, shared/, taskowned/):
// reachability from the retained `_metadata` files (read by ckpt::flink), a shared SST kept while
// a retained checkpoint references it, taskowned/ never touched, and the retained checkpoint
// still complete afterwards.
#include <gtest/gtest.h>

#include <filesystem>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using flink::StreamHandle;
using testing::TempDir;
namespace fs = std::filesystem;

const char kPruneFixture[] = "new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint";
const char kPruneJob[] = "0123456789abcdef0123456789abcdef";

// Writes <job>/chk-<id> from the RocksDB checkpoint fixture in the shape of a Flink incremental
// checkpoint: every handle absolute; `.sst` files in <job>/shared/ (named `<prefix><n>.sst` for
// the SSTs after the first `reuse` ones, which reuse chk-1's names), the rest in chk-<id>.
// Returns the shared paths it references.
std::set<std::string> WriteCheckpoint(const std::string& job, int id, size_t reuse) {
  const std::string chk = job + "/chk-" + std::to_string(id);
  const std::string fixture = testing::FixturePath(std::string("flink/") + kPruneFixture);
  fs::create_directories(chk);
  fs::create_directories(job + "/shared");
  auto md = flink::ReadFlinkMetadata(base::Fs::Default(), fixture + "/_metadata");
  EXPECT_OK(md);
  std::set<std::string> shared;
  size_t sst = 0;
  auto place = [&](StreamHandle* h, bool is_sst) {
    if (h->type != StreamHandle::Type::kRelativeFile) return;
    const std::string from = fixture + "/" + h->path;
    std::string to;
    if (is_sst) {
      const size_t n = sst++;
      to = job + "/shared/" + (n < reuse ? "c1-" : "c" + std::to_string(id) + "-") + std::to_string(n) + ".sst";
      shared.insert(to);
    } else {
      to = chk + "/" + h->path;
    }
    if (!fs::exists(to)) fs::copy_file(from, to);
    h->type = StreamHandle::Type::kFile;
    h->path = "file:" + to;
  };
  for (auto& op : md->operators) {
    for (auto& st : op.subtasks) {
      for (auto* oh : {&st.managed_operator, &st.raw_operator}) {
        if (oh->has_value()) place(&(*oh)->delegate, false);
      }
      for (auto* kh : {&st.managed_keyed, &st.raw_keyed}) {
        place(&kh->meta, false);
        for (auto& f : kh->private_files) {
          place(&f.handle, f.local_path.size() > 4 && f.local_path.ends_with(".sst"));
        }
      }
    }
  }
  md->checkpoint_id = id;
  EXPECT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), *md, chk + "/_metadata"));
  return shared;
}

TEST(FlinkPruneTest, KeepLastOneKeepsSharedFilesTheRetainedCheckpointReferences) {
  TempDir tmp;
  const std::string job = tmp.Sub(kPruneJob);
  const auto old_shared = WriteCheckpoint(job, 1, 0);
  ASSERT_GE(old_shared.size(), 2u) << "the fixture has SST files";
  const size_t reuse = old_shared.size() / 2;
  const auto new_shared = WriteCheckpoint(job, 2, reuse);
  fs::create_directories(job + "/taskowned");
  testing::WriteTextFile(job + "/taskowned/changelog-segment", "task-owned bytes");

  PruneOptions options;
  options.keep_last = 1;
  options.min_orphan_age_ms = 0;
  options.now_ms = int64_t{1} << 52;  // far after every file's mtime
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), tmp.path(), options));
  bool chk1_subsumed = false;
  for (const auto& s : plan.snapshots) {
    if (s.path.ends_with("chk-1")) chk1_subsumed = s.verdict == SnapshotVerdict::kSubsumed;
    if (s.path.ends_with("chk-2")) {
      EXPECT_EQ(s.verdict, SnapshotVerdict::kRetained) << s.reason;
    }
  }
  EXPECT_TRUE(chk1_subsumed);
  std::set<std::string> deleted;
  for (const auto& st : plan.steps) {
    if (st.action == PruneAction::kRemoveFile) deleted.insert(tmp.Sub(st.path));
  }
  for (const auto& s : new_shared) EXPECT_EQ(deleted.count(s), 0u) << "referenced by chk-2: " << s;
  size_t old_only = 0;
  for (const auto& s : old_shared) {
    if (new_shared.count(s)) continue;
    ++old_only;
    EXPECT_EQ(deleted.count(s), 1u) << "referenced only by chk-1: " << s;
  }
  EXPECT_GT(old_only, 0u);
  for (const auto& d : deleted) EXPECT_EQ(d.find("taskowned"), std::string::npos) << d;
  bool why_kept = false;
  for (const auto& k : plan.kept) {
    if (new_shared.count(tmp.Sub(k.path))) why_kept = !k.reason.empty();
  }
  EXPECT_TRUE(why_kept) << "a kept shared file says why";

  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_FALSE(fs::exists(job + "/chk-1/_metadata"));
  EXPECT_TRUE(fs::exists(job + "/taskowned/changelog-segment"));
  for (const auto& s : new_shared) EXPECT_TRUE(fs::exists(s)) << s;
  ASSERT_OK_AND_ASSIGN(ValidateReport v, Validate(base::Fs::Default(), job + "/chk-2", {}));
  for (const auto& f : v.findings) EXPECT_NE(f.severity, Severity::kError) << f.rule_id << ": " << f.message;
}

// A Flink checkpoint counts only if it would restore: chk-2 with one of its own SSTs damaged
// leaves chk-1 retained, chk-2 kept with its files, and the reason in the plan.
struct DamagedRoot {
  TempDir tmp;
  std::string job = tmp.Sub(kPruneJob);
  std::string damaged;  // an SST only chk-2 references
};

void WriteDamagedRoot(DamagedRoot* r) {
  const auto old_shared = WriteCheckpoint(r->job, 1, 0);
  const auto new_shared = WriteCheckpoint(r->job, 2, old_shared.size() / 2);
  for (const auto& f : new_shared) {
    if (!old_shared.count(f)) r->damaged = f;
  }
  ASSERT_FALSE(r->damaged.empty());
}

void ExpectChk1Kept(DamagedRoot& r, bool deep, const std::string& why) {
  PruneOptions options;
  options.min_orphan_age_ms = 0;
  options.now_ms = int64_t{1} << 52;
  options.deep = deep;
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(base::Fs::Default(), r.tmp.path(), options));
  for (const auto& s : plan.snapshots) {
    if (s.path.ends_with("chk-1")) {
      EXPECT_EQ(s.verdict, SnapshotVerdict::kRetained) << s.reason;
    }
    if (s.path.ends_with("chk-2")) {
      EXPECT_EQ(s.verdict, SnapshotVerdict::kDamaged) << s.reason;
      EXPECT_NE(s.reason.find(why), std::string::npos) << s.reason;
    }
  }
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("chk-1 is the newest restorable checkpoint; chk-2 would not"),
            std::string::npos)
      << plan.notes[0];
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_TRUE(fs::exists(r.job + "/chk-2/_metadata"));
  ASSERT_OK_AND_ASSIGN(ValidateReport v, Validate(base::Fs::Default(), r.job + "/chk-1", {}));
  for (const auto& f : v.findings) {
    EXPECT_NE(f.severity, Severity::kError) << f.rule_id << ": " << f.message;
  }
}

TEST(FlinkPruneTest, NewestWithAMissingFileDoesNotCostTheOlderGoodOne) {
  DamagedRoot r;
  WriteDamagedRoot(&r);
  fs::remove(r.damaged);
  ExpectChk1Kept(r, false, "missing " + r.damaged);
}

TEST(FlinkPruneTest, NewestWithATruncatedFileDoesNotCostTheOlderGoodOne) {
  DamagedRoot r;
  WriteDamagedRoot(&r);
  testing::TruncateFile(r.damaged, fs::file_size(r.damaged) - 1);
  ExpectChk1Kept(r, false, r.damaged + " has ");
}

// Flink reads `_metadata` to its end: a checkpoint whose CheckpointProperties trailer is cut
// decodes operator by operator, but does not restore.
TEST(FlinkPruneTest, NewestWithACutMetadataTrailerDoesNotCostTheOlderGoodOne) {
  DamagedRoot r;
  WriteDamagedRoot(&r);
  const std::string md = r.job + "/chk-2/_metadata";
  testing::TruncateFile(md, fs::file_size(md) - 1);
  ExpectChk1Kept(r, false, "_metadata");
}

// Flink records no checksums: a flipped byte is found by --deep, which decodes every SST.
TEST(FlinkPruneTest, NewestWithAFlippedByteDoesNotCostTheOlderGoodOneWithDeep) {
  DamagedRoot r;
  WriteDamagedRoot(&r);
  testing::FlipByte(r.damaged, 20);
  ExpectChk1Kept(r, true, "validate --deep says it does not restore");
}

}  // namespace
}  // namespace ckpt::ops
