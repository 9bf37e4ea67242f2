// validate over damaged copies of real Flink snapshots (fixtures/flink): a `_metadata` that is not
// whole (cut anywhere, bytes after its CheckpointProperties, properties that do not decode) is an
// error that blocks restore, in plain and --deep mode; a wrong magic names both formats; RocksDB's
// errors name the snapshot's real files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;
using ::ckpt::testing::TempDir;

const char kRocksDbCheckpoint[] = "new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint";

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

std::string Dump(const ValidateReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule_id + " " + f.location.file + ": " + f.message + "\n";
  return s;
}

ValidateReport MustValidate(const std::string& path, bool deep) {
  ValidateOptions o;
  o.deep = deep;
  auto r = Validate(base::Fs::Default(), path, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ValidateReport{};
}

const Finding* FindRule(const ValidateReport& r, const std::string& rule) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const Finding& f) { return f.rule_id == rule; });
  return it == r.findings.end() ? nullptr : &*it;
}

// `rule` is reported on _metadata with `needle` and the file's path, and restore says no.
void ExpectMetadataFinding(const ValidateReport& r, const std::string& rule,
                           const std::string& needle, const std::string& metadata) {
  const Finding* f = FindRule(r, rule);
  ASSERT_NE(f, nullptr) << Dump(r);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->location.file, "_metadata");
  EXPECT_NE(f->message.find(needle), std::string::npos) << f->message;
  EXPECT_NE(f->message.find(metadata), std::string::npos) << f->message;
  auto restore = std::find_if(r.capabilities.begin(), r.capabilities.end(),
                              [](const Capability& c) { return c.operation == "restore"; });
  ASSERT_NE(restore, r.capabilities.end());
  EXPECT_FALSE(restore->supported) << restore->note;
  EXPECT_NE(std::find(restore->blocked_by.begin(), restore->blocked_by.end(), rule),
            restore->blocked_by.end());
}

// A copy of fixtures/flink/<name> in `tmp`, and its `_metadata`'s bytes.
std::string CopyFixture(const TempDir& tmp, const std::string& name, std::string* bytes) {
  const std::string dir = tmp.Sub(name);
  testing::CopyTree(FixturePath("flink/" + name), dir);
  *bytes = testing::ReadBytes(dir + "/_metadata");
  return dir;
}

TEST(FlinkValidateTest, EveryCutOfTheTrailerIsAFindingThatBlocksRestore) {
  for (const std::string name : {"complexKeyed-flink1.20", "nonKeyed-flink2.0"}) {
    SCOPED_TRACE(name);
    TempDir tmp;
    std::string bytes;
    const std::string dir = CopyFixture(tmp, name, &bytes);
    const std::string metadata = dir + "/_metadata";
    ASSERT_OK_AND_ASSIGN(flink::Metadata whole, flink::ParseFlinkMetadata(bytes, metadata));
    ASSERT_GT(whole.trailer_size, 100u);
    // Every 5th byte of the trailer in plain mode, its first and last bytes in both modes.
    for (uint64_t cut = whole.trailer_offset; cut < bytes.size(); cut += 5) {
      SCOPED_TRACE(cut);
      WriteBytes(metadata, bytes.substr(0, cut));
      ExpectMetadataFinding(MustValidate(dir, false), "CKPT-M004", "truncated", metadata);
    }
    for (uint64_t cut : {whole.trailer_offset, whole.trailer_offset + 1, bytes.size() - 1}) {
      SCOPED_TRACE(cut);
      WriteBytes(metadata, bytes.substr(0, cut));
      ExpectMetadataFinding(MustValidate(dir, true), "CKPT-M004", "truncated", metadata);
    }
  }
}

TEST(FlinkValidateTest, FileEndingAfterTheOperatorsIsTruncated) {
  TempDir tmp;
  std::string bytes;
  const std::string dir = CopyFixture(tmp, "nonKeyed-flink2.0", &bytes);
  ASSERT_OK_AND_ASSIGN(flink::Metadata whole, flink::ParseFlinkMetadata(bytes, "x"));
  WriteBytes(dir + "/_metadata", bytes.substr(0, whole.trailer_offset));
  ExpectMetadataFinding(MustValidate(dir, true), "CKPT-M004",
                        "at byte " + std::to_string(whole.trailer_offset) +
                            ": truncated: the file ends after the last operator",
                        dir + "/_metadata");
}

TEST(FlinkValidateTest, BytesAfterThePropertiesAreAFinding) {
  TempDir tmp;
  std::string bytes;
  const std::string dir = CopyFixture(tmp, "complexKeyed-flink2.0", &bytes);
  WriteBytes(dir + "/_metadata", bytes + std::string(4, '\0'));
  for (bool deep : {false, true}) {
    ExpectMetadataFinding(MustValidate(dir, deep), "CKPT-M004",
                          "trailing bytes: 4 byte(s) after the CheckpointProperties object",
                          dir + "/_metadata");
  }
  // The CLI exits 1, not 0.
  testing::ToolRun run =
      testing::RunTool({"validate", "--deep", "complexKeyed-flink2.0"}, tmp.path());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
}

TEST(FlinkValidateTest, PropertiesThatDoNotDecodeAreAFinding) {
  TempDir tmp;
  std::string bytes;
  const std::string dir = CopyFixture(tmp, "nonKeyed-flink2.0", &bytes);
  const size_t at = bytes.rfind("CheckpointProperties");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'X';
  WriteBytes(dir + "/_metadata", bytes);
  ExpectMetadataFinding(MustValidate(dir, false), "CKPT-M006", "not CheckpointProperties",
                        dir + "/_metadata");
  testing::ToolRun run = testing::RunTool({"validate", "nonKeyed-flink2.0"}, tmp.path());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.find("flink.properties_error"), std::string::npos) << run.out;
}

// A bit flipped in Flink's magic makes the file neither format: the message says what each
// format starts with and what this file starts with.
TEST(FlinkValidateTest, FlippedFlinkMagicNamesBothFormats) {
  TempDir tmp;
  std::string bytes;
  const std::string dir = CopyFixture(tmp, "complexKeyed-flink2.0", &bytes);
  bytes[3] = static_cast<char>(bytes[3] ^ 0x01);
  WriteBytes(dir + "/_metadata", bytes);
  ValidateReport r = MustValidate(dir, true);
  const Finding* f = FindRule(r, "CKPT-M002");
  ASSERT_NE(f, nullptr) << Dump(r);
  for (const std::string& needle :
       {dir + "/_metadata", std::string("it starts with 49 60 67 2c 00 00 00 05 (\"I`g,....\")"),
        std::string("\"CKPTMETA\" (this project's format)"),
        std::string("Apache Flink's _metadata magic 0x4960672D")}) {
    EXPECT_NE(f->message.find(needle), std::string::npos) << needle << " in " << f->message;
  }
  // show fails with the same message.
  testing::ToolRun show = testing::RunTool({"show", "complexKeyed-flink2.0"}, tmp.path());
  EXPECT_EQ(show.exit_code, 2);
  EXPECT_NE(show.err.find("0x4960672D"), std::string::npos) << show.err;
  EXPECT_NE(show.err.find("CKPTMETA"), std::string::npos) << show.err;
}

// The RocksDB file a native keyed handle names `local_name` (MANIFEST-..., CURRENT), as a path
// in the snapshot directory.
std::string RocksDbFile(const std::string& dir, const std::string& prefix) {
  auto md = flink::ReadFlinkMetadata(base::Fs::Default(), dir + "/_metadata");
  EXPECT_OK(md);
  if (!md.ok()) return "";
  for (const auto& op : md->operators) {
    for (const auto& st : op.subtasks) {
      for (const auto* list : {&st.managed_keyed.shared_files, &st.managed_keyed.private_files}) {
        for (const auto& f : *list) {
          if (f.local_path.rfind(prefix, 0) == 0) return dir + "/" + f.handle.path;
        }
      }
    }
  }
  ADD_FAILURE() << "no RocksDB file " << prefix << " in " << dir;
  return "";
}

TEST(FlinkValidateTest, RocksDbErrorsNameTheSnapshotsFiles) {
  TempDir tmp;
  std::string bytes;
  const std::string dir = CopyFixture(tmp, kRocksDbCheckpoint, &bytes);
  const std::string manifest = RocksDbFile(dir, "MANIFEST-");
  ASSERT_FALSE(manifest.empty());
  const std::string good = testing::ReadBytes(manifest);
  std::string flipped = good;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x10);
  WriteBytes(manifest, flipped);
  ValidateReport r = MustValidate(dir, true);
  const Finding* f = FindRule(r, "CKPT-D001");
  ASSERT_NE(f, nullptr) << Dump(r);
  EXPECT_NE(f->message.find(manifest + " (MANIFEST-"), std::string::npos) << f->message;
  EXPECT_EQ(f->message.find("/flink-rocksdb"), std::string::npos) << f->message;
  WriteBytes(manifest, good);

  // CURRENT naming a MANIFEST the handle does not list: named as missing, not by a path.
  const std::string current = RocksDbFile(dir, "CURRENT");
  ASSERT_EQ(testing::ReadBytes(current).size(), 16u);
  WriteBytes(current, "MANIFEST-000099\n");
  r = MustValidate(dir, true);
  f = FindRule(r, "CKPT-D001");
  ASSERT_NE(f, nullptr) << Dump(r);
  EXPECT_NE(f->message.find("RocksDB file MANIFEST-000099 (not among the files of the handle)"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find(current), std::string::npos) << f->message;
  EXPECT_EQ(f->message.find("/flink-rocksdb"), std::string::npos) << f->message;
}

}  // namespace
}  // namespace ckpt::ops
