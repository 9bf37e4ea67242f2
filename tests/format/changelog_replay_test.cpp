// ReadChangelogChanges (segments in handle order, slices, key-group filter, sequence order,
// corruption) and ApplyChangelogChange (put, delete, clear, append over encoded entries).
#include "ckpt/format/changelog_replay.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

ChangelogRecord ReplayRecord(uint64_t seq, ChangeOp op, uint32_t group, std::string key,
                       std::string value, uint32_t state = 0) {
  ChangelogRecord r;
  r.sequence = seq;
  r.op = op;
  r.key_group = group;
  r.change.state_index = state;
  r.change.key = key;
  r.change.value = value;
  return r;
}

class ChangelogReadTest : public ::testing::Test {
 protected:
  // Writes `records` (encoded as given, or raw bytes) to one CHANGELOG container and returns the
  // segment slice that covers them.
  pb::ChangelogSegment Write(const std::string& name, const std::vector<std::string>& records) {
    auto writer = StateFileWriter::Create(base::Fs::Default(), dir_.Sub(name),
                                          {pb::CHANGELOG, pb::COMPRESSION_NONE, 1, 128u << 10});
    EXPECT_OK(writer);
    pb::ChangelogSegment seg;
    seg.mutable_slice()->set_file_index(static_cast<uint32_t>(paths_.size()));
    seg.mutable_slice()->set_offset((*writer)->logical_offset());
    for (const std::string& r : records) EXPECT_OK((*writer)->Add(r));
    seg.mutable_slice()->set_length((*writer)->logical_offset() - seg.slice().offset());
    EXPECT_OK((*writer)->Finish());
    paths_.push_back(dir_.Sub(name));
    return seg;
  }

  static std::string Encoded(const ChangelogRecord& r) {
    std::string out;
    EncodeChangelogRecord(r, &out);
    return out;
  }

  ChangelogSegmentOpener Opener() {
    return [this](const pb::ChangelogSegment& seg)
               -> base::Result<std::unique_ptr<StateFileReader>> {
      opened_.push_back(seg.slice().file_index());
      return StateFileReader::Open(base::Fs::Default(), paths_[seg.slice().file_index()]);
    };
  }

  testing::TempDir dir_;
  std::vector<std::string> paths_;
  std::vector<uint32_t> opened_;
};

TEST_F(ChangelogReadTest, ReadsSegmentsInOrderAndSortsBySequence) {
  pb::ChangelogStateHandle h;
  *h.add_segments() = Write("a.log", {Encoded(ReplayRecord(3, ChangeOp::kPut, 1, "k", "v3")),
                                      Encoded(ReplayRecord(1, ChangeOp::kPut, 1, "k", "v1"))});
  *h.add_segments() = Write("b.log", {Encoded(ReplayRecord(2, ChangeOp::kDelete, 2, "k", ""))});
  ASSERT_OK_AND_ASSIGN(auto changes, ReadChangelogChanges(h, 1, std::nullopt, Opener()));
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].sequence, 1u);
  EXPECT_EQ(changes[0].value, "v1");
  EXPECT_EQ(changes[1].sequence, 2u);
  EXPECT_EQ(changes[1].op, ChangeOp::kDelete);
  EXPECT_EQ(changes[1].key_group, 2u);
  EXPECT_EQ(changes[2].sequence, 3u);
  EXPECT_EQ(opened_, (std::vector<uint32_t>{0, 1}));
}

TEST_F(ChangelogReadTest, KeepsOnlyTheRequestedKeyGroups) {
  pb::ChangelogStateHandle h;
  *h.add_segments() = Write("a.log", {Encoded(ReplayRecord(1, ChangeOp::kPut, 0, "a", "1")),
                                      Encoded(ReplayRecord(2, ChangeOp::kPut, 5, "b", "2")),
                                      Encoded(ReplayRecord(3, ChangeOp::kPut, 9, "c", "3"))});
  ASSERT_OK_AND_ASSIGN(auto changes, ReadChangelogChanges(h, 1, KeyGroupRange{4, 8}, Opener()));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].key, "b");
}

TEST_F(ChangelogReadTest, StopsAtTheEndOfTheSlice) {
  pb::ChangelogStateHandle h;
  pb::ChangelogSegment seg = Write("a.log", {Encoded(ReplayRecord(1, ChangeOp::kPut, 0, "a", "1")),
                                             Encoded(ReplayRecord(2, ChangeOp::kPut, 0, "b", "2"))});
  // The slice ends inside the first record: the second belongs to another subtask's slice.
  seg.mutable_slice()->set_length(1);
  *h.add_segments() = seg;
  ASSERT_OK_AND_ASSIGN(auto changes, ReadChangelogChanges(h, 1, std::nullopt, Opener()));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].key, "a");
}

TEST_F(ChangelogReadTest, SkipsSegmentsTheOpenerDeclines) {
  pb::ChangelogStateHandle h;
  *h.add_segments() = Write("a.log", {Encoded(ReplayRecord(1, ChangeOp::kPut, 0, "a", "1"))});
  auto none = [](const pb::ChangelogSegment&) -> base::Result<std::unique_ptr<StateFileReader>> {
    return std::unique_ptr<StateFileReader>();
  };
  ASSERT_OK_AND_ASSIGN(auto changes, ReadChangelogChanges(h, 1, std::nullopt, none));
  EXPECT_TRUE(changes.empty());
}

TEST_F(ChangelogReadTest, ReturnsTheOpenersError) {
  pb::ChangelogStateHandle h;
  *h.add_segments() = Write("a.log", {Encoded(ReplayRecord(1, ChangeOp::kPut, 0, "a", "1"))});
  auto fail = [](const pb::ChangelogSegment&) -> base::Result<std::unique_ptr<StateFileReader>> {
    return base::Status::Corruption("segment file #0 cannot be resolved");
  };
  ASSERT_STATUS(ReadChangelogChanges(h, 1, std::nullopt, fail), kCorruption, "file #0");
}

TEST_F(ChangelogReadTest, RejectsAMalformedRecordNamingTheFile) {
  pb::ChangelogStateHandle h;
  *h.add_segments() = Write("bad.log", {Encoded(ReplayRecord(1, ChangeOp::kPut, 0, "a", "1")), "\x01"});
  ASSERT_STATUS(ReadChangelogChanges(h, 1, std::nullopt, Opener()), kCorruption,
                dir_.Sub("bad.log") + ": malformed changelog record at logical offset");
}

TEST_F(ChangelogReadTest, RejectsAStateIndexBeyondTheOperatorsStates) {
  pb::ChangelogStateHandle h;
  *h.add_segments() = Write("a.log", {Encoded(ReplayRecord(1, ChangeOp::kPut, 0, "a", "1", 2))});
  ASSERT_STATUS(ReadChangelogChanges(h, 2, std::nullopt, Opener()), kCorruption,
                "malformed changelog record");
  EXPECT_OK(ReadChangelogChanges(h, 3, std::nullopt, Opener()));
}

pb::StateDescriptor ReplayState(pb::StateKind kind, pb::TypeDescriptor value_type) {
  pb::StateDescriptor d;
  d.set_kind(kind);
  *d.mutable_value_type() = std::move(value_type);
  return d;
}

ChangelogChange ReplayOp(ChangeOp op, std::string key, std::string user_key, std::string value) {
  ChangelogChange c;
  c.op = op;
  c.key = std::move(key);
  c.user_key = std::move(user_key);
  c.value = std::move(value);
  return c;
}

TEST(ApplyChangelogChangeTest, PutDeleteAndClearOnAMapState) {
  const pb::StateDescriptor map = ReplayState(pb::STATE_MAP, types::String());
  ChangelogEntries e;
  ASSERT_OK(ApplyChangelogChange(map, ReplayOp(ChangeOp::kPut, "k", "a", "1"), &e));
  ASSERT_OK(ApplyChangelogChange(map, ReplayOp(ChangeOp::kPut, "k", "b", "2"), &e));
  ASSERT_OK(ApplyChangelogChange(map, ReplayOp(ChangeOp::kPut, "other", "a", "3"), &e));
  ASSERT_OK(ApplyChangelogChange(map, ReplayOp(ChangeOp::kDelete, "k", "a", ""), &e));
  EXPECT_EQ(e.size(), 2u);
  EXPECT_EQ(e.count(ChangelogEntryId(0, "k", "", "b")), 1u);
  // A delete without a user key removes the whole map of the key; other keys stay.
  ASSERT_OK(ApplyChangelogChange(map, ReplayOp(ChangeOp::kDelete, "k", "", ""), &e));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e.begin()->second, "3");
  ASSERT_OK(ApplyChangelogChange(map, ReplayOp(ChangeOp::kClear, "other", "", ""), &e));
  EXPECT_TRUE(e.empty());
}

TEST(ApplyChangelogChangeTest, DeleteOnAValueStateRemovesOnlyItsEntry) {
  const pb::StateDescriptor value = ReplayState(pb::STATE_VALUE, types::String());
  ChangelogEntries e;
  ASSERT_OK(ApplyChangelogChange(value, ReplayOp(ChangeOp::kPut, "k", "", "1"), &e));
  ASSERT_OK(ApplyChangelogChange(value, ReplayOp(ChangeOp::kPut, "j", "", "2"), &e));
  ASSERT_OK(ApplyChangelogChange(value, ReplayOp(ChangeOp::kPut, "k", "", "3"), &e));
  EXPECT_EQ((e[ChangelogEntryId(0, "k", "", "")]), "3");
  ASSERT_OK(ApplyChangelogChange(value, ReplayOp(ChangeOp::kDelete, "k", "", ""), &e));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(std::get<1>(e.begin()->first), "j");
}

TEST(ApplyChangelogChangeTest, AppendExtendsTheEncodedList) {
  const pb::StateDescriptor list = ReplayState(pb::STATE_LIST, types::Int64());
  ChangelogEntries e;
  ASSERT_OK_AND_ASSIGN(std::string one, EncodeValue(types::Int64(), Value(int64_t{1})));
  ASSERT_OK_AND_ASSIGN(std::string two, EncodeValue(types::Int64(), Value(int64_t{2})));
  ASSERT_OK(ApplyChangelogChange(list, ReplayOp(ChangeOp::kAppend, "k", "", one), &e));
  ASSERT_OK(ApplyChangelogChange(list, ReplayOp(ChangeOp::kAppend, "k", "", two), &e));
  List want;
  want.elements = {Value(int64_t{1}), Value(int64_t{2})};
  ASSERT_OK_AND_ASSIGN(std::string encoded, EncodeValue(types::List(types::Int64()), Value(want)));
  EXPECT_EQ((e[ChangelogEntryId(0, "k", "", "")]), encoded);
}

TEST(ApplyChangelogChangeTest, AppendOfAnUndecodableElementIsCorruption) {
  const pb::StateDescriptor list = ReplayState(pb::STATE_LIST, types::Int64());
  ChangelogEntries e;
  EXPECT_EQ(ApplyChangelogChange(list, ReplayOp(ChangeOp::kAppend, "k", "", "\x80"), &e).code(),
            base::StatusCode::kCorruption);
  EXPECT_TRUE(e.empty());
}

}  // namespace
}  // namespace ckpt::format
