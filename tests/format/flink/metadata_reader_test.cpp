// ReadFlinkMetadata over the 13 real Flink snapshots in fixtures/flink (Flink 1.9 - 2.1,
// metadata versions 2 - 6): every file decodes, and the facts spelled out below (taken from the
// files' provenance and from Flink's test sources) hold.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ckpt/base/murmur3.h"
#include "ckpt/base/posix_fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::flink {
namespace {

Metadata Load(const std::string& name) {
  auto md =
      ReadFlinkMetadata(base::Fs::Default(), testing::FixturePath("flink/" + name + "/_metadata"));
  EXPECT_OK(md);
  return md.ok() ? std::move(md).value() : Metadata{};
}

std::string UidHash(const std::string& uid) {
  auto h = base::Murmur3X64_128(uid);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t c : h) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

const std::vector<std::pair<std::string, uint32_t>> kFixtures = {
    {"complexKeyed-flink1.9", 2},
    {"complexKeyed-flink1.14", 3},
    {"complexKeyed-flink1.20", 4},
    {"complexKeyed-flink2.0", 5},
    {"nonKeyed-flink2.0", 5},
    {"new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint", 5},
    {"new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint", 5},
    {"new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint-native", 5},
    {"new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint", 5},
    {"new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint", 5},
    {"new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint-native", 5},
    {"table-state", 5},
    {"semi-anti-join-with-literal-agg-savepoint", 6},
};

TEST(FlinkMetadataReaderTest, ReadsEveryFixtureWithItsVersion) {
  for (const auto& [name, version] : kFixtures) {
    SCOPED_TRACE(name);
    Metadata md = Load(name);
    EXPECT_EQ(md.version, version);
    EXPECT_FALSE(md.operators.empty());
    if (version >= 4) {
      EXPECT_TRUE(md.properties.has_value()) << md.properties_error;
    }
  }
}

// The streamed parse hands over each operator in turn in one reused object: copies of what it
// held, put back together with the rest of the metadata, write back the file byte for byte.
TEST(FlinkMetadataReaderTest, StreamedOperatorsWriteBackTheSameFile) {
  for (const auto& [name, version] : kFixtures) {
    SCOPED_TRACE(name);
    const std::string path = testing::FixturePath("flink/" + name + "/_metadata");
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFlinkMetadataBytes(base::Fs::Default(), path));
    std::vector<OperatorState> seen;
    ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(bytes, path, [&](OperatorState& op) {
                           seen.push_back(op);
                           return base::Status::OK();
                         }));
    EXPECT_TRUE(md.operators.empty());
    EXPECT_EQ(seen.size(), Load(name).operators.size());
    md.operators = std::move(seen);
    ASSERT_OK_AND_ASSIGN(std::string written, SerializeFlinkMetadata(md));
    EXPECT_TRUE(written == bytes);
  }
}

TEST(FlinkMetadataReaderTest, VisitorErrorStopsTheStreamedParse) {
  const std::string path = testing::FixturePath("flink/table-state/_metadata");
  ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFlinkMetadataBytes(base::Fs::Default(), path));
  int visits = 0;
  auto md = ParseFlinkMetadata(bytes, path, [&](OperatorState&) {
    return ++visits == 2 ? base::Status::Cancelled("enough") : base::Status::OK();
  });
  EXPECT_EQ(md.status().code(), base::StatusCode::kCancelled);
  EXPECT_EQ(visits, 2);
  EXPECT_EQ(FlinkMetadataDir(path), testing::FixturePath("flink/table-state"));
  EXPECT_EQ(FlinkMetadataDir("_metadata"), ".");
  EXPECT_EQ(FlinkMetadataDir("/_metadata"), "/");
}

TEST(FlinkMetadataReaderTest, OperatorIdIsTheMurmur3HashOfTheUid) {
  for (const auto& [name, version] : kFixtures) {
    SCOPED_TRACE(name);
    for (const OperatorState& op : Load(name).operators) {
      if (!op.uid.empty()) {
        EXPECT_EQ(op.IdHex(), UidHash(op.uid)) << op.uid;
      }
    }
  }
  Metadata md = Load("table-state");
  ASSERT_FALSE(md.operators.empty());
  EXPECT_EQ(md.operators[0].uid, "datagen-source-uid");
  EXPECT_EQ(md.operators[0].IdHex(), "47aee94394d6ea26e2d544bef0a37bb5");
}

TEST(FlinkMetadataReaderTest, TableStateHasMasterStateFinishedOperatorAndCoordinator) {
  Metadata md = Load("table-state");
  EXPECT_EQ(md.checkpoint_id, 2);
  ASSERT_EQ(md.master_states.size(), 1u);
  EXPECT_FALSE(md.master_states[0].name.empty());
  ASSERT_EQ(md.operators.size(), 7u);
  int fully_finished = 0;
  for (const auto& op : md.operators) fully_finished += op.fully_finished ? 1 : 0;
  EXPECT_EQ(fully_finished, 1);
  EXPECT_EQ(md.operators[0].name, "Source: datagen-source");
  EXPECT_EQ(md.operators[0].coordinator.type, StreamHandle::Type::kByteStream);
  EXPECT_FALSE(md.operators[0].coordinator.data.empty());
  ASSERT_TRUE(md.properties.has_value());
  EXPECT_FALSE(md.properties->is_savepoint);
  EXPECT_EQ(md.properties->sharing_files, "FORWARD_BACKWARD");
}

TEST(FlinkMetadataReaderTest, DecodesCheckpointPropertiesOfEachSnapshotKind) {
  struct Case {
    std::string name;
    bool savepoint;
    std::string format;
    std::string post;
  };
  const Case cases[] = {
      {"complexKeyed-flink1.20", true, "CANONICAL", "NONE"},
      {"new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint", false, "", ""},
      {"new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint-native", true, "NATIVE", "NONE"},
      {"semi-anti-join-with-literal-agg-savepoint", true, "CANONICAL", "SUSPEND"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Metadata md = Load(c.name);
    ASSERT_TRUE(md.properties.has_value()) << md.properties_error;
    EXPECT_EQ(md.properties->is_savepoint, c.savepoint);
    EXPECT_EQ(md.properties->format_type, c.format);
    EXPECT_EQ(md.properties->post_action, c.post);
  }
}

TEST(FlinkMetadataReaderTest, KeyedHandleTagsMatchTheSnapshotKind) {
  auto tags = [](const Metadata& md) {
    std::set<int> out;
    for (const auto& op : md.operators) {
      for (const auto& st : op.subtasks) {
        if (!st.managed_keyed.is_null()) out.insert(static_cast<int>(st.managed_keyed.tag));
      }
    }
    return out;
  };
  EXPECT_EQ(tags(Load("complexKeyed-flink1.9")), std::set<int>{3});
  EXPECT_EQ(tags(Load("complexKeyed-flink1.14")), std::set<int>{7});
  const std::string p = "new-stateful-udf-migration-itcase-flink2.0-";
  EXPECT_EQ(tags(Load(p + "hashmap-checkpoint")), std::set<int>{12});
  EXPECT_EQ(tags(Load(p + "hashmap-savepoint")), std::set<int>{7});
  EXPECT_EQ(tags(Load(p + "hashmap-savepoint-native")), std::set<int>{12});
  EXPECT_EQ(tags(Load(p + "rocksdb-checkpoint")), std::set<int>{11});
  EXPECT_EQ(tags(Load(p + "rocksdb-savepoint-native")), std::set<int>{11});
}

TEST(FlinkMetadataReaderTest, RocksDbHandleListsItsFilesAsRelativeHandles) {
  Metadata md = Load("new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint");
  size_t rocks = 0;
  size_t ssts = 0;
  for (const auto& op : md.operators) {
    for (const auto& st : op.subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      if (h.tag != KeyedHandle::Tag::kIncrementalV2) continue;
      ++rocks;
      EXPECT_FALSE(h.backend_id.empty());
      EXPECT_EQ(h.meta.type, StreamHandle::Type::kRelativeFile);
      for (const auto& f : h.private_files) {
        EXPECT_EQ(f.handle.type, StreamHandle::Type::kRelativeFile) << f.local_path;
        ssts += f.local_path.find(".sst") != std::string::npos ? 1 : 0;
        ASSERT_OK_AND_ASSIGN(std::string local, LocalPath(md, f.handle));
        ASSERT_OK_AND_ASSIGN(auto info, base::Fs::Default().Stat(local));
        EXPECT_EQ(static_cast<int64_t>(info.size_bytes), f.handle.size) << local;
      }
    }
  }
  EXPECT_GT(rocks, 0u);
  EXPECT_GT(ssts, 0u);
}

TEST(FlinkMetadataReaderTest, OldSavepointsHoldStateInline) {
  Metadata md = Load("complexKeyed-flink1.9");
  for (const auto& op : md.operators) {
    for (const auto& st : op.subtasks) {
      if (st.managed_keyed.key_groups) {
        EXPECT_EQ(st.managed_keyed.key_groups->delegate.type, StreamHandle::Type::kByteStream);
        EXPECT_EQ(st.managed_keyed.key_groups->offsets.size(), 32u);
      }
      if (st.managed_operator) {
        EXPECT_EQ(st.managed_operator->delegate.type, StreamHandle::Type::kByteStream);
      }
    }
  }
}

}  // namespace
}  // namespace ckpt::flink
