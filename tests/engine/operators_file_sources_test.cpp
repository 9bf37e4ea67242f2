// The file sources: LineReader (engine/src/operators/line_reader.cpp), text-file-source and
// directory-source with its coordinator (text_file_source.cpp, directory_source.cpp): every line
// exactly once across snapshots, restores, rescales and coordinator/reader snapshot races.
#include <gtest/gtest.h>

#include <set>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "operators/line_reader.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using operators::LineReader;
using testing::HarnessOptions;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

std::multiset<std::string> Lines(const std::vector<Record>& records) {
  std::multiset<std::string> out;
  for (const Record& r : records) out.insert(std::get<std::string>(r.value.v));
  return out;
}

// Writes files f0..f{n-1} with `lines` lines "f<i>:<j>" each; returns all lines.
std::multiset<std::string> WriteFiles(const ckpt::testing::TempDir& dir, int files, int lines) {
  std::multiset<std::string> all;
  EXPECT_OK(base::Fs::Default().CreateDirs(dir.Sub("in")));
  for (int i = 0; i < files; ++i) {
    std::string text;
    for (int j = 0; j < lines; ++j) {
      const std::string line = "f" + std::to_string(i) + ":" + std::to_string(j);
      text += line + "\n";
      all.insert(line);
    }
    EXPECT_OK(base::WriteFileAtomic(base::Fs::Default(), dir.Sub("in/f" + std::to_string(i)),
                                    text));
  }
  return all;
}

TEST(LineReaderTest, ReadsLinesTracksOffsetsAndResumes) {
  ckpt::testing::TempDir dir;
  const std::string big(100000, 'x');  // longer than one read chunk
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), dir.Sub("f"),
                                  "a\r\n\n" + big + "\nlast"));
  ASSERT_OK_AND_ASSIGN(auto r, LineReader::Open(base::Fs::Default(), dir.Sub("f"), 0));
  std::string line;
  ASSERT_OK_AND_ASSIGN(bool more, r->Next(&line));
  ASSERT_TRUE(more);
  EXPECT_EQ(line, "a");
  EXPECT_EQ(r->offset(), 3u);
  ASSERT_OK_AND_ASSIGN(more, r->Next(&line));
  EXPECT_EQ(line, "");
  ASSERT_OK_AND_ASSIGN(more, r->Next(&line));
  EXPECT_EQ(line, big);
  const uint64_t resume = r->offset();
  ASSERT_OK_AND_ASSIGN(more, r->Next(&line));
  EXPECT_EQ(line, "last");
  ASSERT_OK_AND_ASSIGN(more, r->Next(&line));
  EXPECT_FALSE(more);

  ASSERT_OK_AND_ASSIGN(auto again, LineReader::Open(base::Fs::Default(), dir.Sub("f"), resume));
  ASSERT_OK_AND_ASSIGN(more, again->Next(&line));
  EXPECT_EQ(line, "last");
  ASSERT_STATUS(LineReader::Open(base::Fs::Default(), dir.Sub("f"), 1u << 20), kInvalidArgument,
                dir.Sub("f"));
}

TEST(TextFileSourceTest, EveryLineOnceAcrossARescaledRestore) {
  ckpt::testing::TempDir dir;
  const std::multiset<std::string> all = WriteFiles(dir, 5, 300);
  const std::string params = R"({"path": ")" + dir.Sub("in") + R"(", "batch_size": 70})";
  std::multiset<std::string> seen;
  std::vector<SubtaskSnapshot> snaps;
  for (uint32_t i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("text-file-source", params,
                                                         {.subtask = i, .parallelism = 2}));
    ASSERT_OK(h->Initialize());
    for (uint32_t k = 0; k < 3 + 4 * i; ++k) ASSERT_OK(h->Poll().status());
    ASSERT_OK_AND_ASSIGN(SubtaskSnapshot s, h->Snapshot(1));
    snaps.push_back(std::move(s));
    auto lines = Lines(h->records());
    seen.insert(lines.begin(), lines.end());
    ASSERT_OK(h->Poll().status());  // after the snapshot: replayed
  }
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("text-file-source", params,
                                                         {.subtask = i, .parallelism = 3}));
    ASSERT_OK(h->Initialize(snaps));
    ASSERT_OK(h->RunSourceToEnd());
    auto lines = Lines(h->records());
    seen.insert(lines.begin(), lines.end());
  }
  EXPECT_EQ(seen, all);
}

TEST(TextFileSourceTest, MissingPathFailsNamingTheParam) {
  ckpt::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                   "text-file-source", R"({"path": ")" + dir.Sub("nope") + "\"}"));
  ASSERT_STATUS(h->Initialize(), kNotFound, "params.path");
  ASSERT_STATUS(OperatorHarness::Create("text-file-source", "{}"), kInvalidArgument,
                "params.path");
}

base::Result<std::unique_ptr<OperatorCoordinator>> MakeCoordinator(const std::string& params,
                                                                   uint32_t parallelism,
                                                                   const std::string& state) {
  CKPT_ASSIGN_OR_RETURN(auto s, testing::ParamsFromJson(params));
  const OperatorKind* kind = OperatorRegistry::Builtin().Find("directory-source");
  CKPT_ASSIGN_OR_RETURN(auto coordinator,
                        kind->coordinator_factory(OperatorParams("dir", s), parallelism));
  CKPT_RETURN_IF_ERROR(coordinator->Restore(state));
  return coordinator;
}

TEST(DirectorySourceTest, CoordinatorHandsOutEachFileOnceAndWaitsForAllReaders) {
  ckpt::testing::TempDir dir;
  const std::multiset<std::string> all = WriteFiles(dir, 7, 50);
  const std::string params = R"({"path": ")" + dir.Sub("in") + R"("})";
  ASSERT_OK_AND_ASSIGN(auto coordinator, MakeCoordinator(params, 2, ""));
  std::vector<std::unique_ptr<OperatorHarness>> readers;
  for (uint32_t i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create(
                                     "directory-source", params,
                                     {.subtask = i, .parallelism = 2,
                                      .coordinator = coordinator.get()}));
    if (i == 0) {
      // Reader 0 is up before reader 1 registered: it must wait, not take files.
      ASSERT_OK(h->Initialize());
      ASSERT_OK_AND_ASSIGN(SourceStatus s, h->Poll());
      EXPECT_EQ(s, SourceStatus::kNothingAvailable);
    } else {
      ASSERT_OK(h->Initialize());
    }
    readers.push_back(std::move(h));
  }
  // Poll the readers alternately, as two task threads would.
  std::vector<bool> ended(readers.size(), false);
  for (int round = 0; round < 10000 && !(ended[0] && ended[1]); ++round) {
    for (size_t i = 0; i < readers.size(); ++i) {
      if (ended[i]) continue;
      ASSERT_OK_AND_ASSIGN(SourceStatus s, readers[i]->Poll());
      ended[i] = s == SourceStatus::kEndOfInput;
    }
  }
  ASSERT_TRUE(ended[0] && ended[1]);
  std::multiset<std::string> seen;
  for (auto& h : readers) {
    auto lines = Lines(h->records());
    EXPECT_FALSE(lines.empty());  // both readers got work
    seen.insert(lines.begin(), lines.end());
  }
  EXPECT_EQ(seen, all);
}

TEST(DirectorySourceTest, FileAssignedBetweenCoordinatorAndReaderSnapshotIsReadOnce) {
  ckpt::testing::TempDir dir;
  const std::multiset<std::string> all = WriteFiles(dir, 4, 40);
  const std::string params = R"({"path": ")" + dir.Sub("in") + R"(", "batch_size": 15})";
  ASSERT_OK_AND_ASSIGN(auto coordinator, MakeCoordinator(params, 1, ""));
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("directory-source", params,
                                                       {.coordinator = coordinator.get()}));
  ASSERT_OK(h->Initialize());
  for (int i = 0; i < 4; ++i) ASSERT_OK(h->Poll().status());  // file 0 taken and partly read
  // Checkpoint 1 is triggered: the coordinator is snapshotted first ...
  ASSERT_OK_AND_ASSIGN(std::string coordinator_state, coordinator->SnapshotState(1));
  // ... then, before the barrier reaches the reader, it finishes file 0 and takes file 1.
  for (int i = 0; i < 3; ++i) ASSERT_OK(h->Poll().status());
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  std::multiset<std::string> seen = Lines(h->records());
  ASSERT_OK(h->Poll().status());  // after the barrier: replayed

  // Restore both from checkpoint 1 (new attempt, new coordinator).
  ASSERT_OK_AND_ASSIGN(auto restored, MakeCoordinator(params, 1, coordinator_state));
  ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("directory-source", params,
                                                       {.coordinator = restored.get()}));
  ASSERT_OK(r->Initialize({snap}));
  ASSERT_OK(r->RunSourceToEnd());
  auto rest = Lines(r->records());
  seen.insert(rest.begin(), rest.end());
  EXPECT_EQ(seen, all);
}

}  // namespace
}  // namespace ckpt::engine
