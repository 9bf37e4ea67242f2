#include "ckpt/format/keyed_state_reader.h"

#include <gtest/gtest.h>

#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/state_kind.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

google::protobuf::RepeatedPtrField<pb::StateDescriptor> States() {
  google::protobuf::RepeatedPtrField<pb::StateDescriptor> states;
  states.Add()->set_kind(pb::STATE_VALUE);
  states.Add()->set_kind(pb::STATE_OPERATOR_LIST);
  states.Add()->set_kind(pb::STATE_MAP);
  return states;
}

std::string Keyed(uint32_t state, std::string key, std::string value) {
  std::string out;
  KeyedRecord r;
  r.state_index = state;
  r.key = key;
  r.value = value;
  EncodeKeyedRecord(r, &out);
  return out;
}

void Write(const std::string& path, pb::FileKind kind,
           const std::vector<std::pair<uint32_t, std::string>>& records) {
  StateFileWriterOptions o{kind};
  ASSERT_OK_AND_ASSIGN(auto writer, StateFileWriter::Create(base::Fs::Default(), path, o));
  uint32_t section = UINT32_MAX;
  for (const auto& [g, rec] : records) {
    if (g != section) {
      ASSERT_OK(writer->BeginSection(g));
      section = g;
    }
    ASSERT_OK(writer->Add(rec).status());
  }
  ASSERT_OK(writer->Finish().status());
}

TEST(StateKindTest, KeyedKindsArePartitionedByKeyGroup) {
  for (auto k : {pb::STATE_VALUE, pb::STATE_LIST, pb::STATE_MAP, pb::STATE_REDUCING,
                 pb::STATE_AGGREGATING, pb::STATE_TIMERS}) {
    EXPECT_TRUE(IsKeyedStateKind(k)) << k;
  }
  for (auto k : {pb::STATE_KIND_UNSPECIFIED, pb::STATE_OPERATOR_LIST, pb::STATE_OPERATOR_UNION,
                 pb::STATE_BROADCAST}) {
    EXPECT_FALSE(IsKeyedStateKind(k)) << k;
  }
}

TEST(KeyedStateReaderTest, ReadsOneKeyGroupAndTreatsAMissingSectionAsEmpty) {
  testing::TempDir dir;
  const std::string path = dir.Sub("k.state");
  Write(path, pb::KEYED_STATE, {{1, Keyed(0, "a", "1")}, {1, Keyed(2, "a", "2")},
                                {5, Keyed(0, "b", "3")}});
  ASSERT_OK_AND_ASSIGN(auto reader, KeyedStateReader::Open(base::Fs::Default(), path, States()));
  ASSERT_OK_AND_ASSIGN(auto it, reader->NewKeyGroupIterator(1));
  KeyedEntry e;
  std::vector<std::string> seen;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool more, it.Next(&e));
    if (!more) break;
    EXPECT_EQ(e.key_group, 1u);
    seen.push_back(std::to_string(e.record.state_index) + std::string(e.record.value));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"01", "22"}));
  ASSERT_OK_AND_ASSIGN(auto empty, reader->NewKeyGroupIterator(3));
  ASSERT_OK_AND_ASSIGN(bool more, empty.Next(&e));
  EXPECT_FALSE(more);
  ASSERT_OK_AND_ASSIGN(auto all, reader->NewIterator());
  int n = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool m, all.Next(&e));
    if (!m) break;
    ++n;
  }
  EXPECT_EQ(n, 3);
}

TEST(KeyedStateReaderTest, RejectsARecordNamingAnOperatorStateOrUndeclaredState) {
  testing::TempDir dir;
  for (uint32_t bad : {1u, 7u}) {
    const std::string path = dir.Sub("k" + std::to_string(bad));
    Write(path, pb::KEYED_STATE, {{0, Keyed(bad, "a", "1")}});
    ASSERT_OK_AND_ASSIGN(auto reader, KeyedStateReader::Open(base::Fs::Default(), path, States()));
    ASSERT_OK_AND_ASSIGN(auto it, reader->NewIterator());
    KeyedEntry e;
    const base::Status st = it.Next(&e).status();
    ASSERT_STATUS(st, kCorruption, path);
    ASSERT_STATUS(st, kCorruption, "not a declared keyed state");
  }
}

TEST(KeyedStateReaderTest, RejectsMalformedRecordsAndOtherKinds) {
  testing::TempDir dir;
  const std::string bad = dir.Sub("bad");
  Write(bad, pb::KEYED_STATE, {{4, std::string("\x00\x09", 2)}});
  ASSERT_OK_AND_ASSIGN(auto reader, KeyedStateReader::Open(base::Fs::Default(), bad, States()));
  ASSERT_OK_AND_ASSIGN(auto it, reader->NewIterator());
  KeyedEntry e;
  ASSERT_STATUS(it.Next(&e).status(), kCorruption, "malformed keyed record at logical offset 0 of key group 4");
  const std::string op = dir.Sub("op");
  Write(op, pb::OPERATOR_STATE, {{0, "x"}});
  ASSERT_STATUS(KeyedStateReader::Open(base::Fs::Default(), op, States()).status(), kCorruption,
                "expected KEYED_STATE");
}

}  // namespace
}  // namespace ckpt::format
