// Tests of ops::DescribeFileLayout, ReadBlockRecords and RangeOfFinding
// (ops/src/model/file_layout.cpp): the byte map the inspector's hex view highlights.
#include "ckpt/ops/file_layout.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

const SnapshotFile* KeyedFile(const Snapshot& s) {
  for (const SnapshotFile& f : s.files) {
    if (f.kind == FileKind::kKeyedState) return &f;
  }
  return nullptr;
}

TEST(FileLayoutTest, BlocksTileTheFileBetweenHeaderAndFooter) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  const SnapshotFile* f = KeyedFile(s);
  ASSERT_NE(f, nullptr);
  ASSERT_OK_AND_ASSIGN(FileLayout l, DescribeFileLayout(base::Fs::Default(), f->resolved_path));
  ASSERT_TRUE(l.container);
  EXPECT_EQ(l.file_size, f->size_bytes);
  EXPECT_EQ(l.file_header, (ByteRange{0, 16}));
  ASSERT_FALSE(l.blocks.empty());
  uint64_t at = l.file_header.end();
  uint64_t logical = 0;
  for (const BlockLayout& b : l.blocks) {
    EXPECT_EQ(b.header.offset, at);
    EXPECT_EQ(b.header.length, 24u);
    EXPECT_EQ(b.stored.offset, b.header.end());
    EXPECT_EQ(b.logical_offset, logical);
    EXPECT_FALSE(b.checksum_ok.has_value());
    at = b.stored.end();
    logical += b.raw_length;
  }
  EXPECT_EQ(logical, l.logical_size);
  EXPECT_EQ(l.footer.offset, at);
  EXPECT_EQ(l.footer.end(), l.file_size);
  // Every key group the handle counts records for is a section inside the blocks.
  ASSERT_FALSE(l.sections.empty());
  for (const SectionLayout& sec : l.sections) {
    EXPECT_LE(sec.first_block, sec.last_block);
    EXPECT_EQ(sec.stored.offset, l.blocks[sec.first_block].header.offset);
    EXPECT_EQ(sec.stored.end(), l.blocks[sec.last_block].stored.end());
    EXPECT_EQ(KeyGroupSection(l, sec.section_id), &sec);
  }
  EXPECT_EQ(KeyGroupSection(l, 1u << 30), nullptr);
}

TEST(FileLayoutTest, BlockRecordsAreTheRecordStreamBytes) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  const SnapshotFile* f = KeyedFile(s);
  ASSERT_NE(f, nullptr);
  ASSERT_OK_AND_ASSIGN(FileLayout l, DescribeFileLayout(base::Fs::Default(), f->resolved_path));
  ASSERT_OK_AND_ASSIGN(std::string raw, ReadBlockRecords(base::Fs::Default(), f->resolved_path, 0));
  ASSERT_EQ(raw.size(), l.blocks[0].raw_length);
  // The first byte is the first record's varint length prefix: walking the prefixes lands
  // exactly on the block's end after record_count records.
  size_t pos = 0;
  uint32_t records = 0;
  while (pos < raw.size()) {
    uint64_t len = 0;
    int shift = 0;
    while (static_cast<unsigned char>(raw[pos]) & 0x80) {
      len |= static_cast<uint64_t>(raw[pos++] & 0x7f) << shift;
      shift += 7;
    }
    len |= static_cast<uint64_t>(raw[pos++]) << shift;
    pos += len;
    ++records;
  }
  EXPECT_EQ(pos, raw.size());
  EXPECT_EQ(records, l.blocks[0].record_count);
  auto bad = ReadBlockRecords(base::Fs::Default(), f->resolved_path,
                              static_cast<uint32_t>(l.blocks.size()));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), base::StatusCode::kInvalidArgument);
}

TEST(FileLayoutTest, NonContainerIsOneOpaqueRange) {
  ASSERT_OK_AND_ASSIGN(FileLayout l, DescribeFileLayout(base::Fs::Default(),
                                                        FixturePath("v1/savepoint/_metadata")));
  EXPECT_FALSE(l.container);
  EXPECT_GT(l.file_size, 0u);
  EXPECT_TRUE(l.blocks.empty());
  auto missing = DescribeFileLayout(base::Fs::Default(), FixturePath("v1/savepoint/nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), base::StatusCode::kNotFound);
}

TEST(FileLayoutTest, ChecksumFindingPointsAtTheDamagedBlock) {
  const std::string dir = FixturePath("corrupt/block-checksum-mismatch");
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  ASSERT_OK_AND_ASSIGN(ValidateReport r, Validate(base::Fs::Default(), dir, {}));
  const Finding* finding = nullptr;
  for (const Finding& f : r.findings) {
    if (f.rule_id == "CKPT-F006") finding = &f;
  }
  ASSERT_NE(finding, nullptr);
  const SnapshotFile* f = KeyedFile(s);
  ASSERT_NE(f, nullptr);
  ASSERT_OK_AND_ASSIGN(FileLayout l,
                       DescribeFileLayout(base::Fs::Default(), f->resolved_path, true));
  ASSERT_GE(l.blocks.size(), 2u);
  EXPECT_EQ(l.blocks[0].checksum_ok, std::optional<bool>(true));
  EXPECT_EQ(l.blocks[1].checksum_ok, std::optional<bool>(false));  // the fixture's flipped bit
  auto range = RangeOfFinding(s, l, *finding);
  ASSERT_TRUE(range.has_value());
  ASSERT_TRUE(range->block.has_value());
  EXPECT_EQ(*range->block, 1u);
  EXPECT_EQ(range->range, l.blocks[1].whole());
  EXPECT_NE(range->range.offset, 0u);
  auto raw = ReadBlockRecords(base::Fs::Default(), f->resolved_path, 1);
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.status().code(), base::StatusCode::kCorruption);
  EXPECT_NE(raw.status().message().find("tiny-count-0-keyed.state"), std::string::npos);
  // A finding on another file has no range in this one.
  Finding other = *finding;
  other.location.file = "elsewhere.state";
  EXPECT_FALSE(RangeOfFinding(s, l, other).has_value());
}

TEST(FileLayoutTest, KeyGroupFindingPointsAtItsSection) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  const SnapshotFile* f = KeyedFile(s);
  ASSERT_NE(f, nullptr);
  ASSERT_OK_AND_ASSIGN(FileLayout l, DescribeFileLayout(base::Fs::Default(), f->resolved_path));
  ASSERT_FALSE(l.sections.empty());
  const SectionLayout& sec = l.sections.back();
  Finding finding;
  finding.rule_id = "CKPT-D001";
  finding.location.file = f->path;
  finding.location.key_group = sec.section_id;
  auto range = RangeOfFinding(s, l, finding);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->section, std::optional<uint32_t>(sec.section_id));
  EXPECT_EQ(range->range, sec.stored);
}

}  // namespace
}  // namespace ckpt::ops
