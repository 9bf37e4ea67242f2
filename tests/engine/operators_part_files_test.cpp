// The two-phase-commit file sink's file logic: part-file names, the writer, commit and recovery
// (engine/src/operators/part_file_{names,writer,committer}.cpp), over a real temp directory.
#include <gtest/gtest.h>

#include <algorithm>

#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/base/fs.h"
#include "ckpt/engine/operators/part_file_committer.h"
#include "ckpt/engine/operators/part_file_names.h"
#include "ckpt/engine/operators/part_file_writer.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine::operators {
namespace {

using base::Fs;

std::vector<std::string> PartDirNames(const std::string& dir) {
  std::vector<std::string> out;
  auto entries = Fs::Default().ListDir(dir);
  EXPECT_TRUE(entries.ok());
  for (const auto& e : *entries) out.push_back(e.name);
  return out;
}

PendingPartFile WriteAndClose(PartFileWriter& w, std::vector<std::string> lines, int64_t cp) {
  for (const auto& l : lines) EXPECT_OK(w.WriteLine(l));
  auto pending = w.CloseForCommit(cp);
  EXPECT_TRUE(pending.ok() && pending->has_value());
  return pending.ok() && pending->has_value() ? **pending : PendingPartFile{};
}

TEST(PartFileNamesTest, FormatsAndParsesBothForms) {
  EXPECT_EQ(InProgressFileName("sink", 3, 17), ".part-sink-3-17.inprogress");
  EXPECT_EQ(FinalFileName("sink", 3, 17), "part-sink-3-17");
  EXPECT_EQ(ParsePartFileName(".part-my-sink-0-5.inprogress"),
            (PartFileName{"my-sink", 0, 5, true}));
  EXPECT_EQ(ParsePartFileName("part-my-sink-2-0"), (PartFileName{"my-sink", 2, 0, false}));
}

TEST(PartFileNamesTest, IgnoresOtherNames) {
  for (const char* name : {"part-", "part-x", "part-x-1", "part--1-2", "part-x-1-02",
                           "part-x-a-1", ".part-x-1-2", "data.txt", ".part-x-1-2.inprogres",
                           "part-x-1-99999999999999999999999"}) {
    EXPECT_FALSE(ParsePartFileName(name).has_value()) << name;
  }
}

TEST(PartFileWriterTest, WritesDotFileAndClosesItIntoPendingWithSizeAndChecksum) {
  ckpt::testing::TempDir dir;
  PartFileWriter w(Fs::Default(), dir.path(), "sink", 1, 0, /*buffer_bytes=*/4);
  ASSERT_OK(w.WriteLine("1"));
  EXPECT_EQ(PartDirNames(dir.path()), (std::vector<std::string>{".part-sink-1-0.inprogress"}));
  ASSERT_OK(w.WriteLine("22"));
  ASSERT_OK_AND_ASSIGN(std::optional<PendingPartFile> p, w.CloseForCommit(7));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pending_path, dir.Sub(".part-sink-1-0.inprogress"));
  EXPECT_EQ(p->final_path, dir.Sub("part-sink-1-0"));
  EXPECT_EQ(p->size_bytes, 5u);
  EXPECT_EQ(p->checksum_xxh3, base::Xxh3("1\n22\n"));
  EXPECT_EQ(p->checkpoint_id, 7);
  EXPECT_EQ(ckpt::testing::ReadBytes(p->pending_path), "1\n22\n");
  // Nothing written since the close: no empty part file.
  ASSERT_OK_AND_ASSIGN(p, w.CloseForCommit(8));
  EXPECT_FALSE(p.has_value());
  EXPECT_EQ(w.next_part_number(), 1u);
}

TEST(PartFileWriterTest, RefusesToOverwriteAnExistingInProgressFile) {
  ckpt::testing::TempDir dir;
  ASSERT_OK(base::WriteFileAtomic(Fs::Default(), dir.Sub(".part-s-0-0.inprogress"), "old"));
  PartFileWriter w(Fs::Default(), dir.path(), "s", 0, 0);
  ASSERT_STATUS(w.WriteLine("x"), kAlreadyExists, ".part-s-0-0.inprogress");
}

TEST(PartFileCommitterTest, CommitRenamesAndIsIdempotent) {
  ckpt::testing::TempDir dir;
  PartFileWriter w(Fs::Default(), dir.path(), "s", 0, 0);
  PendingPartFile p = WriteAndClose(w, {"a", "b"}, 1);
  ASSERT_OK(CommitPendingPartFile(Fs::Default(), p));
  EXPECT_EQ(PartDirNames(dir.path()), (std::vector<std::string>{"part-s-0-0"}));
  EXPECT_EQ(ckpt::testing::ReadBytes(dir.Sub("part-s-0-0")), "a\nb\n");
  ASSERT_OK(CommitPendingPartFile(Fs::Default(), p));  // e.g. replayed after a restore
  EXPECT_EQ(PartDirNames(dir.path()), (std::vector<std::string>{"part-s-0-0"}));
}

TEST(PartFileCommitterTest, CommitDetectsTruncatedAndLostFiles) {
  ckpt::testing::TempDir dir;
  PartFileWriter w(Fs::Default(), dir.path(), "s", 0, 0);
  PendingPartFile p = WriteAndClose(w, {"abc"}, 1);
  ASSERT_OK(base::WriteFileAtomic(Fs::Default(), p.pending_path, "ab"));
  ASSERT_STATUS(CommitPendingPartFile(Fs::Default(), p), kCorruption, p.pending_path);
  ASSERT_OK(Fs::Default().RemoveFile(p.pending_path));
  ASSERT_STATUS(CommitPendingPartFile(Fs::Default(), p), kNotFound, p.final_path);
}

TEST(PartFileCommitterTest, CommitAfterACrashMidRenameCompletesOnRetry) {
  ckpt::testing::TempDir dir;
  PartFileWriter w(Fs::Default(), dir.path(), "s", 0, 0);
  PendingPartFile p = WriteAndClose(w, {"x"}, 1);
  base::FaultInjectionFs faulty(Fs::Default());
  faulty.CrashAfter(0);  // the rename itself fails
  EXPECT_FALSE(CommitPendingPartFile(faulty, p).ok());
  EXPECT_EQ(PartDirNames(dir.path()), (std::vector<std::string>{".part-s-0-0.inprogress"}));
  base::FaultInjectionFs faulty2(Fs::Default());
  faulty2.CrashAfter(1);  // the rename succeeds, the directory sync "crashes"
  EXPECT_FALSE(CommitPendingPartFile(faulty2, p).ok());
  EXPECT_EQ(PartDirNames(dir.path()), (std::vector<std::string>{"part-s-0-0"}));
  ASSERT_OK(CommitPendingPartFile(Fs::Default(), p));
  EXPECT_EQ(PartDirNames(dir.path()), (std::vector<std::string>{"part-s-0-0"}));
}

TEST(PartFileCommitterTest, RecoveryCommitsRestoredPendingAndDiscardsLaterInProgress) {
  ckpt::testing::TempDir dir;
  PendingPartFile committed_before, pending_at_snapshot;
  {
    PartFileWriter w(Fs::Default(), dir.path(), "s", 0, 0);
    committed_before = WriteAndClose(w, {"1", "2"}, 1);
    ASSERT_OK(CommitPendingPartFile(Fs::Default(), committed_before));
    pending_at_snapshot = WriteAndClose(w, {"3"}, 2);  // checkpoint 2 snapshot, never notified
    PendingPartFile after = WriteAndClose(w, {"4"}, 3);  // checkpoint 3 never completed
    ASSERT_OK(w.WriteLine("5"));                         // open when the job died
    w.Abandon();
  }
  // Another sink and another subtask in the same directory are left alone.
  ASSERT_OK(base::WriteFileAtomic(Fs::Default(), dir.Sub(".part-other-0-0.inprogress"), "o\n"));
  ASSERT_OK(base::WriteFileAtomic(Fs::Default(), dir.Sub(".part-s-1-0.inprogress"), "z\n"));

  ASSERT_OK_AND_ASSIGN(PartFileRecovery r,
                       RecoverPartFiles(Fs::Default(), dir.path(), "s", 0, 2,
                                        {pending_at_snapshot}));
  EXPECT_EQ(r.committed, 1u);
  EXPECT_EQ(r.discarded, (std::vector<std::string>{dir.Sub(".part-s-0-2.inprogress"),
                                                   dir.Sub(".part-s-0-3.inprogress")}));
  EXPECT_EQ(r.next_part_number, 2u);
  EXPECT_EQ(PartDirNames(dir.path()),
            (std::vector<std::string>{".part-other-0-0.inprogress", ".part-s-1-0.inprogress",
                                      "part-s-0-0", "part-s-0-1"}));
  EXPECT_EQ(ckpt::testing::ReadBytes(dir.Sub("part-s-0-1")), "3\n");

  // Running the same recovery again (a failure during recovery) changes nothing.
  ASSERT_OK_AND_ASSIGN(PartFileRecovery again,
                       RecoverPartFiles(Fs::Default(), dir.path(), "s", 0, 2,
                                        {pending_at_snapshot}));
  EXPECT_EQ(again.committed, 0u);
  EXPECT_TRUE(again.discarded.empty());
  EXPECT_EQ(again.next_part_number, 2u);
}

TEST(PartFileCommitterTest, RecoveryAfterScaleDownCleansOrphanedSubtasksByModulo) {
  ckpt::testing::TempDir dir;
  for (uint32_t k = 0; k < 5; ++k) {
    PartFileWriter w(Fs::Default(), dir.path(), "s", k, 0);
    ASSERT_OK(w.WriteLine("x"));
    w.Abandon();
  }
  // New parallelism 2: subtask 1 owns old subtasks 1 and 3.
  ASSERT_OK_AND_ASSIGN(PartFileRecovery r,
                       RecoverPartFiles(Fs::Default(), dir.path(), "s", 1, 2, {}));
  EXPECT_EQ(r.discarded, (std::vector<std::string>{dir.Sub(".part-s-1-0.inprogress"),
                                                   dir.Sub(".part-s-3-0.inprogress")}));
  EXPECT_EQ(r.next_part_number, 0u);
  EXPECT_EQ(PartDirNames(dir.path()).size(), 3u);
}

TEST(PartFileCommitterTest, NextPartNumberNeverReusesACommittedName) {
  ckpt::testing::TempDir dir;
  ASSERT_OK(base::WriteFileAtomic(Fs::Default(), dir.Sub("part-s-0-9"), "old\n"));
  ASSERT_OK_AND_ASSIGN(PartFileRecovery r,
                       RecoverPartFiles(Fs::Default(), dir.path(), "s", 0, 1, {}));
  EXPECT_EQ(r.next_part_number, 10u);
}

TEST(PartFileCommitterTest, RecoveryCreatesAMissingDirectory) {
  ckpt::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(PartFileRecovery r,
                       RecoverPartFiles(Fs::Default(), dir.Sub("a/b"), "s", 0, 1, {}));
  EXPECT_EQ(r.next_part_number, 0u);
  EXPECT_TRUE(Fs::Default().Stat(dir.Sub("a/b")).ok());
  ASSERT_STATUS(RecoverPartFiles(Fs::Default(), dir.path(), "s", 2, 2, {}), kInvalidArgument,
                "subtask 2");
}

}  // namespace
}  // namespace ckpt::engine::operators
