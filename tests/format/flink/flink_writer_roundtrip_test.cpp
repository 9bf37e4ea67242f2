// SerializeFlinkMetadata over the real Flink snapshots in fixtures/flink (metadata v2-v6):
// read -> write gives the same bytes for every `_metadata` found there; edits of the model
// (uid, ID, a v7 ref checkpoint id) survive a write and a re-read; what a version cannot hold is
// refused naming the operator.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "ckpt/base/posix_fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::flink {
namespace {

std::vector<std::string> FixtureMetadataFiles() {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(testing::FixturePath("flink"))) {
    if (e.is_regular_file() && e.path().filename() == "_metadata") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Metadata Parse(const std::string& path) {
  auto md = ParseFlinkMetadata(testing::ReadBytes(path), path);
  EXPECT_OK(md);
  return md.ok() ? std::move(md).value() : Metadata{};
}

std::string Fixture(const std::string& name) {
  return testing::FixturePath("flink/" + name + "/_metadata");
}

TEST(FlinkMetadataWriterTest, EveryFixtureRoundTripsByteForByte) {
  const auto files = FixtureMetadataFiles();
  ASSERT_GE(files.size(), 13u);
  std::set<uint32_t> versions;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    const std::string bytes = testing::ReadBytes(path);
    ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(bytes, path));
    versions.insert(md.version);
    ASSERT_OK_AND_ASSIGN(std::string written, SerializeFlinkMetadata(md));
    ASSERT_EQ(written.size(), bytes.size());
    if (written != bytes) {
      size_t at = 0;
      while (written[at] == bytes[at]) ++at;
      FAIL() << "first differing byte at offset " << at;
    }
  }
  EXPECT_EQ(versions, (std::set<uint32_t>{2, 3, 4, 5, 6}));
}

TEST(FlinkMetadataWriterTest, WriteFlinkMetadataWritesTheSameFileAtomically) {
  testing::TempDir tmp;
  const std::string src = Fixture("complexKeyed-flink1.20");
  ASSERT_OK_AND_ASSIGN(Metadata md, ReadFlinkMetadata(base::Fs::Default(), src));
  const std::string out = tmp.Sub("_metadata");
  ASSERT_OK(WriteFlinkMetadata(base::Fs::Default(), md, out));
  EXPECT_EQ(testing::ReadBytes(out), testing::ReadBytes(src));
  ASSERT_OK(WriteFlinkMetadata(base::Fs::Default(), md, out));  // replaces
  EXPECT_EQ(testing::ReadBytes(out), testing::ReadBytes(src));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()), {}), 1);
}

TEST(FlinkMetadataWriterTest, ARenamedOperatorIsTheOnlyChange) {
  const std::string path = Fixture("complexKeyed-flink2.0");
  Metadata md = Parse(path);
  ASSERT_FALSE(md.operators.empty());
  Metadata edited = md;
  OperatorState& op = edited.operators.back();
  op.uid = "renamed-\xE2\x82\xAC-\xF0\x9F\x98\x80";  // euro sign, an emoji (surrogate pair in Java)
  for (int i = 0; i < 16; ++i) op.id[i] = static_cast<uint8_t>(0xA0 + i);
  ASSERT_OK_AND_ASSIGN(std::string written, SerializeFlinkMetadata(edited));
  ASSERT_OK_AND_ASSIGN(Metadata back, ParseFlinkMetadata(written, "edited"));
  ASSERT_EQ(back.operators.size(), md.operators.size());
  EXPECT_EQ(back.operators.back().uid, op.uid);
  EXPECT_EQ(back.operators.back().IdHex(), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
  for (size_t i = 0; i + 1 < md.operators.size(); ++i) {
    EXPECT_EQ(back.operators[i].IdHex(), md.operators[i].IdHex());
    EXPECT_EQ(back.operators[i].uid, md.operators[i].uid);
  }
  EXPECT_EQ(back.trailer, md.trailer);
  ASSERT_TRUE(back.properties.has_value());
  // Writing the re-read model gives the edited bytes again.
  ASSERT_OK_AND_ASSIGN(std::string again, SerializeFlinkMetadata(back));
  EXPECT_EQ(again, written);
}

TEST(FlinkMetadataWriterTest, WithoutARecordedOrderSubtasksAreWrittenByIndex) {
  const std::string path = Fixture("new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint");
  const std::string bytes = testing::ReadBytes(path);
  Metadata md = Parse(path);
  for (auto& op : md.operators) {
    op.entry_order.clear();
  }
  ASSERT_OK_AND_ASSIGN(std::string written, SerializeFlinkMetadata(md));
  EXPECT_EQ(written, bytes);  // Flink's HashMap of small Integer keys iterates in index order
}

TEST(FlinkMetadataWriterTest, V7RefCheckpointIdsAndFinishedSubtasksSurvive) {
  Metadata md = Parse(Fixture("semi-anti-join-with-literal-agg-savepoint"));
  ASSERT_EQ(md.version, 6u);
  md.version = 7;
  OperatorState& op = md.operators.front();
  ASSERT_FALSE(op.subtasks.empty());
  op.subtasks.front().ref_checkpoint_id = 41;
  const int32_t finished = op.parallelism + 3;
  op.finished_subtasks.push_back(finished);
  op.entry_order.clear();
  ASSERT_OK_AND_ASSIGN(std::string written, SerializeFlinkMetadata(md));
  ASSERT_OK_AND_ASSIGN(Metadata back, ParseFlinkMetadata(written, "v7"));
  EXPECT_EQ(back.version, 7u);
  ASSERT_FALSE(back.operators.front().subtasks.empty());
  EXPECT_EQ(back.operators.front().subtasks.front().ref_checkpoint_id, std::optional<int64_t>(41));
  EXPECT_EQ(back.operators.front().finished_subtasks, std::vector<int32_t>{finished});
  ASSERT_OK_AND_ASSIGN(std::string again, SerializeFlinkMetadata(back));
  EXPECT_EQ(again, written);
}

TEST(FlinkMetadataWriterTest, RefusesWhatTheVersionCannotHold) {
  Metadata v4 = Parse(Fixture("complexKeyed-flink1.20"));
  ASSERT_EQ(v4.version, 4u);
  v4.operators.front().uid = "a-uid";
  ASSERT_STATUS(SerializeFlinkMetadata(v4).status(), kInvalidArgument, "need metadata v5+");
  ASSERT_STATUS(SerializeFlinkMetadata(v4).status(), kInvalidArgument,
                v4.operators.front().IdHex());

  Metadata v5 = Parse(Fixture("complexKeyed-flink2.0"));
  v5.operators.front().uid = std::string(70000, 'u');
  ASSERT_STATUS(SerializeFlinkMetadata(v5).status(), kInvalidArgument, "65535");
  v5.operators.front().uid = "bad \xC3";
  ASSERT_STATUS(SerializeFlinkMetadata(v5).status(), kInvalidArgument, "not valid UTF-8");

  Metadata v2 = Parse(Fixture("complexKeyed-flink1.9"));
  ASSERT_EQ(v2.version, 2u);
  v2.operators.front().finished_subtasks.push_back(7);
  ASSERT_STATUS(SerializeFlinkMetadata(v2).status(), kInvalidArgument, "finished subtasks");

  Metadata v1 = Parse(Fixture("complexKeyed-flink1.9"));
  v1.version = 1;
  ASSERT_STATUS(SerializeFlinkMetadata(v1).status(), kUnimplemented, "version 1");
}

}  // namespace
}  // namespace ckpt::flink
