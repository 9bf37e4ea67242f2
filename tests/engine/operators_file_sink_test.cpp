// file-sink (engine/src/operators/file_sink.cpp): the two-phase-commit protocol end to end over a
// temp directory — dot files while writing, pending at a barrier, committed on notification,
// restore commits pending files and discards later ones, savepoint semantics, end of input.
#include <gtest/gtest.h>

#include <algorithm>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::HarnessOptions;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

std::vector<std::string> SinkDirNames(const std::string& dir) {
  std::vector<std::string> out;
  auto entries = base::Fs::Default().ListDir(dir);
  if (entries.ok()) {
    for (const auto& e : *entries) out.push_back(e.name);
  }
  return out;
}

// The committed output: every line of every file not starting with '.', in name order.
std::vector<std::string> SinkCommittedLines(const std::string& dir) {
  std::vector<std::string> lines;
  for (const std::string& name : SinkDirNames(dir)) {
    if (name[0] == '.') continue;
    auto text = base::ReadFileToString(base::Fs::Default(), dir + "/" + name);
    EXPECT_TRUE(text.ok());
    size_t start = 0;
    for (size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1) {
      lines.push_back(text->substr(start, nl - start));
    }
  }
  return lines;
}

std::string Params(const ckpt::testing::TempDir& dir) {
  return R"({"path": ")" + dir.Sub("out") + R"("})";
}

base::Status WriteRecords(OperatorHarness& h, int64_t from, int64_t to) {
  for (int64_t v = from; v <= to; ++v) {
    CKPT_RETURN_IF_ERROR(h.Process(Record(Value(v))));
  }
  return base::Status::OK();
}

TEST(FileSinkTest, CommitsOnlyWhenTheCheckpointCompletes) {
  ckpt::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(h->Process(testing::KV(Value("k"), Value(int64_t{1}))));
  ASSERT_OK(h->Process(Record(Value(int64_t{2}))));
  EXPECT_EQ(SinkDirNames(dir.Sub("out")), (std::vector<std::string>{".part-s-0-0.inprogress"}));
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  ASSERT_EQ(snap.committables.size(), 1u);
  EXPECT_EQ(snap.committables[0].pending_path(), dir.Sub("out/.part-s-0-0.inprogress"));
  EXPECT_EQ(snap.committables[0].final_path(), dir.Sub("out/part-s-0-0"));
  EXPECT_EQ(snap.committables[0].checkpoint_id(), 1);
  EXPECT_EQ(snap.committables[0].size_bytes(), 6u);
  EXPECT_TRUE(SinkCommittedLines(dir.Sub("out")).empty());
  ASSERT_OK(WriteRecords(*h, 3, 3));
  ASSERT_OK(h->NotifyComplete(1));
  EXPECT_EQ(SinkCommittedLines(dir.Sub("out")), (std::vector<std::string>{"k,1", "2"}));
  EXPECT_EQ(SinkDirNames(dir.Sub("out")),
            (std::vector<std::string>{".part-s-0-1.inprogress", "part-s-0-0"}));
  ASSERT_OK_AND_ASSIGN(snap, h->Snapshot(2));
  EXPECT_EQ(snap.committables.size(), 1u);  // the committed file is no longer pending
}

TEST(FileSinkTest, RestoreCommitsPendingAndDiscardsEverythingAfterTheSnapshot) {
  ckpt::testing::TempDir dir;
  SubtaskSnapshot snap2;
  {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
    ASSERT_OK(h->Initialize());
    ASSERT_OK(WriteRecords(*h, 1, 10));
    ASSERT_OK(h->Snapshot(1).status());
    ASSERT_OK(h->NotifyComplete(1));
    ASSERT_OK(WriteRecords(*h, 11, 20));
    ASSERT_OK_AND_ASSIGN(snap2, h->Snapshot(2));  // completes, but the notification is lost
    ASSERT_OK(WriteRecords(*h, 21, 30));
    ASSERT_OK(h->Snapshot(3).status());  // never completes
    ASSERT_OK(WriteRecords(*h, 31, 35));  // in progress when the job fails
    h->Close();
  }
  // Restore from checkpoint 2; the source replays 21.. .
  ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
  ASSERT_OK(r->Initialize({snap2}));
  ASSERT_OK(WriteRecords(*r, 21, 40));
  ASSERT_OK(r->Snapshot(4).status());
  ASSERT_OK(r->NotifyComplete(4));
  std::vector<std::string> lines = SinkCommittedLines(dir.Sub("out"));
  ASSERT_EQ(lines.size(), 40u);
  std::vector<int64_t> values;
  for (const auto& l : lines) values.push_back(std::stoll(l));
  std::sort(values.begin(), values.end());
  for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(values[static_cast<size_t>(i)], i + 1);
  for (const auto& name : SinkDirNames(dir.Sub("out"))) EXPECT_NE(name[0], '.') << name;
}

TEST(FileSinkTest, RestoringTheSameSnapshotTwiceIsIdempotent) {
  ckpt::testing::TempDir dir;
  SubtaskSnapshot snap;
  {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
    ASSERT_OK(h->Initialize());
    ASSERT_OK(WriteRecords(*h, 1, 5));
    ASSERT_OK_AND_ASSIGN(snap, h->Snapshot(1));
  }
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failure during recovery, then again
    ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
    ASSERT_OK(r->Initialize({snap}));
    ASSERT_OK(WriteRecords(*r, 6, 7));
    r->Close();
  }
  EXPECT_EQ(SinkCommittedLines(dir.Sub("out")),
            (std::vector<std::string>{"1", "2", "3", "4", "5"}));
}

TEST(FileSinkTest, RescaleHandsEachOldSubtasksPendingFilesToExactlyOneNewSubtask) {
  ckpt::testing::TempDir dir;
  std::vector<SubtaskSnapshot> snaps;
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir),
                                                         {.subtask = i, .parallelism = 3,
                                                          .uid = "s"}));
    ASSERT_OK(h->Initialize());
    ASSERT_OK(WriteRecords(*h, i * 100, i * 100 + 9));
    ASSERT_OK_AND_ASSIGN(SubtaskSnapshot s, h->Snapshot(1));
    snaps.push_back(std::move(s));
    ASSERT_OK(WriteRecords(*h, 1000, 1001));  // after the barrier: must vanish
    h->Close();
  }
  for (uint32_t i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir),
                                                         {.subtask = i, .parallelism = 2,
                                                          .uid = "s"}));
    ASSERT_OK(h->Initialize(snaps));
  }
  std::vector<std::string> lines = SinkCommittedLines(dir.Sub("out"));
  EXPECT_EQ(lines.size(), 30u);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "1000"), 0);
  for (const auto& name : SinkDirNames(dir.Sub("out"))) EXPECT_NE(name[0], '.') << name;
}

TEST(FileSinkTest, IntermediateSavepointFilesWaitForTheNextCheckpoint) {
  ckpt::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(WriteRecords(*h, 1, 3));
  ASSERT_OK(h->Snapshot(5).status());  // savepoint 5: the runtime never notifies it
  EXPECT_TRUE(SinkCommittedLines(dir.Sub("out")).empty());
  ASSERT_OK(WriteRecords(*h, 4, 4));
  ASSERT_OK(h->Snapshot(6).status());
  ASSERT_OK(h->NotifyComplete(6));
  EXPECT_EQ(SinkCommittedLines(dir.Sub("out")).size(), 4u);
}

TEST(FileSinkTest, EndOfInputCommitsWithTheFinalCheckpointNotAnOlderOne) {
  ckpt::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir), {.uid = "s"}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(WriteRecords(*h, 1, 2));
  ASSERT_OK(h->Snapshot(1).status());
  ASSERT_OK(WriteRecords(*h, 3, 4));
  ASSERT_OK(h->Finish());
  ASSERT_OK(h->NotifyComplete(1));  // late notification of a checkpoint before the end
  EXPECT_EQ(SinkCommittedLines(dir.Sub("out")).size(), 2u);
  ASSERT_OK(h->Snapshot(2).status());  // the final checkpoint
  ASSERT_OK(h->NotifyComplete(2));
  EXPECT_EQ(SinkCommittedLines(dir.Sub("out")).size(), 4u);
}

TEST(FileSinkTest, WithoutCheckpointingTheEndOfTheJobCommitsEverything) {
  ckpt::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("file-sink", Params(dir),
                                                       {.uid = "s", .checkpointing_enabled = false}));
  ASSERT_OK(h->Initialize());
  ASSERT_OK(WriteRecords(*h, 1, 3));
  ASSERT_OK(h->Finish());
  ASSERT_OK(h->NotifyComplete(INT64_MAX));
  EXPECT_EQ(SinkCommittedLines(dir.Sub("out")), (std::vector<std::string>{"1", "2", "3"}));
}

TEST(FileSinkTest, RequiresAPath) {
  ASSERT_STATUS(OperatorHarness::Create("file-sink", "{}"), kInvalidArgument, "params.path");
  ASSERT_STATUS(OperatorHarness::Create("file-sink", R"({"path": 3})"), kInvalidArgument,
                "params.path");
}

}  // namespace
}  // namespace ckpt::engine
