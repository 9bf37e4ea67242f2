// Hostile and damaged state files: every failure is a clean Corruption (or Unimplemented for a
// newer version) whose message names the file. In the spirit of LevelDB's corruption_test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/base/fs.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

using base::StatusCode;

// The footer index as format/docs/state-files.md documents it, written independently of the
// library so the test also pins the documented grammar.
std::string EncodeDocumentedIndex(const StateFileIndex& index) {
  std::string out;
  base::PutVarint64(&out, static_cast<uint64_t>(index.kind));
  base::PutVarint64(&out, static_cast<uint64_t>(index.compression));
  base::PutVarint64(&out, index.blocks.size());
  for (const BlockInfo& b : index.blocks) {
    base::PutVarint64(&out, b.file_offset);
    base::PutVarint64(&out, b.stored_length);
    base::PutVarint64(&out, b.raw_length);
    base::PutVarint64(&out, b.record_count);
    base::PutVarint64(&out, b.logical_offset);
    base::PutFixed64(&out, b.checksum);
  }
  base::PutVarint64(&out, index.sections.size());
  for (const SectionInfo& s : index.sections) {
    base::PutVarint64(&out, s.section_id);
    base::PutVarint64(&out, s.logical_offset);
    base::PutVarint64(&out, s.length);
    base::PutVarint64(&out, s.record_count);
  }
  base::PutVarint64(&out, index.total_records);
  base::PutVarint64(&out, index.logical_size);
  return out;
}

class StateFileCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_.Sub("victim.state"); }

  // Three sections over several small blocks.
  void WriteGood(pb::Compression compression) {
    ASSERT_OK(base::RemoveAll(fs_, path_));
    StateFileWriterOptions o{pb::KEYED_STATE, compression};
    o.block_size_bytes = 200;
    auto writer = StateFileWriter::Create(fs_, path_, o);
    ASSERT_OK(writer);
    for (uint32_t s : {1u, 5u, 9u}) {
      ASSERT_OK((*writer)->BeginSection(s));
      for (int i = 0; i < 12; ++i) {
        ASSERT_OK((*writer)->Add("record-" + std::to_string(s) + "-" + std::to_string(i) +
                                 std::string(20, 'p')));
      }
    }
    ASSERT_OK((*writer)->Finish());
    auto bytes = base::ReadFileToString(fs_, path_);
    ASSERT_OK(bytes);
    good_ = *bytes;
    auto reader = StateFileReader::Open(fs_, path_);
    ASSERT_OK(reader);
    index_ = (*reader)->index();
    index_offset_ = base::DecodeFixed64(good_.data() + good_.size() - 32);
    ASSERT_GT(index_.blocks.size(), 3u);
  }

  // Replaces the file (no fsync: these files are throwaway).
  void Put(const std::string& bytes) {
    auto file = fs_.OpenWrite(path_);
    ASSERT_OK(file);
    ASSERT_OK((*file)->Append(bytes));
    ASSERT_OK((*file)->Close());
  }

  // `bytes` with its index replaced by `index` and a consistent trailer.
  std::string WithIndex(const std::string& bytes, const std::string& index) const {
    std::string out = bytes.substr(0, index_offset_) + index;
    base::PutFixed64(&out, index_offset_);
    base::PutFixed64(&out, index.size());
    base::PutFixed64(&out, base::Xxh3(index));
    out.append(kStateFileMagic);
    return out;
  }

  // `bytes` with block `block`'s checksum recomputed in its header and in the index, as if the
  // damage had happened before the writer sealed it.
  std::string Resealed(const std::string& bytes, size_t block) const {
    const BlockInfo& b = index_.blocks[block];
    const uint64_t stored_at = b.file_offset + kBlockHeaderSize;
    const uint64_t checksum =
        base::Xxh3(bytes.substr(b.file_offset, 16) + bytes.substr(stored_at, b.stored_length));
    std::string out = bytes;
    std::string field;
    base::PutFixed64(&field, checksum);
    out.replace(b.file_offset + 16, 8, field);
    StateFileIndex idx = index_;
    idx.blocks[block].checksum = checksum;
    return WithIndex(out, EncodeDocumentedIndex(idx));
  }

  base::Status OpenStatus() { return StateFileReader::Open(fs_, path_).status(); }

  // Opens, verifies and iterates; returns the first failure.
  base::Status ReadEverything() {
    auto reader = StateFileReader::Open(fs_, path_);
    if (!reader.ok()) return reader.status();
    base::Status verify = (*reader)->VerifyChecksums();
    auto it = (*reader)->NewIterator();
    if (!it.ok()) return it.status();
    RecordRef r;
    while (true) {
      auto next = (*it)->Next(&r);
      if (!next.ok()) return next.status();
      if (!*next) break;
    }
    return verify;
  }

  testing::TempDir dir_;
  base::Fs& fs_ = base::Fs::Default();
  std::string path_;
  std::string good_;
  StateFileIndex index_;
  uint64_t index_offset_ = 0;
};

TEST_F(StateFileCorruptionTest, DocumentedIndexGrammarMatchesTheWriter) {
  WriteGood(pb::COMPRESSION_ZSTD);
  EXPECT_EQ(EncodeDocumentedIndex(index_),
            good_.substr(index_offset_, good_.size() - 32 - index_offset_));
  EXPECT_EQ(good_.substr(0, 8), "CKPTSTAT");
  EXPECT_EQ(good_.substr(8, 8), std::string("\x01\x00\x01\x00\x02\x00\x00\x00", 8));
  EXPECT_EQ(WithIndex(good_, EncodeDocumentedIndex(index_)), good_);
}

TEST_F(StateFileCorruptionTest, RejectsTruncatedFile) {
  WriteGood(pb::COMPRESSION_ZSTD);
  for (size_t len : {size_t{0}, size_t{8}, size_t{16}, size_t{47}, size_t{100}, good_.size() / 2,
                     good_.size() - 33, good_.size() - 32, good_.size() - 1}) {
    SCOPED_TRACE(len);
    Put(good_.substr(0, len));
    ASSERT_STATUS(OpenStatus(), kCorruption, path_);
  }
}

TEST_F(StateFileCorruptionTest, FlippedBlockByteIsCaughtByChecksumsAndByIteration) {
  WriteGood(pb::COMPRESSION_ZSTD);
  const BlockInfo& b = index_.blocks[2];
  std::string bad = good_;
  bad[b.file_offset + kBlockHeaderSize + b.stored_length / 2] ^= 0x10;
  Put(bad);
  ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(fs_, path_));
  ASSERT_STATUS(reader->VerifyChecksums(), kCorruption, path_);
  ASSERT_STATUS(reader->VerifyChecksums(), kCorruption, "block 2");
  ASSERT_STATUS(reader->VerifyChecksums(), kCorruption, "checksum mismatch");
  // Sections before the damaged block still read; the whole-file iteration fails cleanly.
  ASSERT_OK_AND_ASSIGN(auto first, reader->NewSectionIterator(1));
  RecordRef r;
  ASSERT_OK_AND_ASSIGN(bool more, first->Next(&r));
  EXPECT_TRUE(more);
  ASSERT_STATUS(ReadEverything(), kCorruption, path_);
}

TEST_F(StateFileCorruptionTest, EveryFlippedByteInTheBlocksIsDetected) {
  for (pb::Compression c : {pb::COMPRESSION_NONE, pb::COMPRESSION_ZSTD}) {
    WriteGood(c);
    for (uint64_t pos = kStateFileHeaderSize; pos < index_offset_; ++pos) {
      std::string bad = good_;
      bad[pos] ^= 0x01;
      Put(bad);
      ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(fs_, path_));
      base::Status s = reader->VerifyChecksums();
      ASSERT_EQ(s.code(), StatusCode::kCorruption) << "offset " << pos << ": " << s.ToString();
      ASSERT_NE(s.message().find(path_), std::string::npos) << s.ToString();
      base::Status all = ReadEverything();
      ASSERT_EQ(all.code(), StatusCode::kCorruption) << "offset " << pos << ": " << all.ToString();
    }
  }
}

TEST_F(StateFileCorruptionTest, EveryFlippedByteOfHeaderIndexOrTrailerFailsOpen) {
  WriteGood(pb::COMPRESSION_ZSTD);
  std::vector<uint64_t> positions;
  for (uint64_t p = 0; p < kStateFileHeaderSize; ++p) positions.push_back(p);
  for (uint64_t p = index_offset_; p < good_.size(); ++p) positions.push_back(p);
  for (uint64_t pos : positions) {
    for (uint8_t mask : {0x01, 0x80}) {
      std::string bad = good_;
      bad[pos] ^= static_cast<char>(mask);
      Put(bad);
      base::Status s = OpenStatus();
      ASSERT_TRUE(s.code() == StatusCode::kCorruption || s.code() == StatusCode::kUnimplemented)
          << "offset " << pos << ": " << s.ToString();
      ASSERT_NE(s.message().find(path_), std::string::npos) << s.ToString();
    }
  }
}

TEST_F(StateFileCorruptionTest, FlippedIndexByteIsAChecksumMismatch) {
  WriteGood(pb::COMPRESSION_ZSTD);
  std::string bad = good_;
  bad[index_offset_ + 3] ^= 0x04;
  Put(bad);
  ASSERT_STATUS(OpenStatus(), kCorruption, path_);
  ASSERT_STATUS(OpenStatus(), kCorruption, "index checksum mismatch");
}

TEST_F(StateFileCorruptionTest, RejectsBadMagic) {
  WriteGood(pb::COMPRESSION_NONE);
  std::string bad = good_;
  bad[0] = 'X';
  Put(bad);
  ASSERT_STATUS(OpenStatus(), kCorruption, path_);
  ASSERT_STATUS(OpenStatus(), kCorruption, "bad magic");
  Put("this is not a state file at all, just some text to fill 48+ bytes........");
  ASSERT_STATUS(OpenStatus(), kCorruption, path_);
}

TEST_F(StateFileCorruptionTest, NewerVersionIsUnimplemented) {
  WriteGood(pb::COMPRESSION_ZSTD);
  std::string bad = good_;
  bad[8] = 2;
  Put(bad);
  ASSERT_STATUS(OpenStatus(), kUnimplemented, path_);
  ASSERT_STATUS(OpenStatus(), kUnimplemented, "written by a newer version");
  bad[8] = 0;
  Put(bad);
  ASSERT_STATUS(OpenStatus(), kCorruption, "version 0");
}

TEST_F(StateFileCorruptionTest, HostileIndexCountsAndLengthsAreRefusedBeforeAllocating) {
  WriteGood(pb::COMPRESSION_ZSTD);
  auto with_header = [&](uint64_t block_count) {
    std::string idx;
    base::PutVarint64(&idx, pb::KEYED_STATE);
    base::PutVarint64(&idx, pb::COMPRESSION_ZSTD);
    base::PutVarint64(&idx, block_count);
    return idx;
  };
  // 2^60 blocks in a few bytes.
  Put(WithIndex(good_, with_header(uint64_t{1} << 60)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "exceeds the index size");
  ASSERT_STATUS(OpenStatus(), kCorruption, path_);

  // A block whose stored length runs past the index.
  StateFileIndex idx = index_;
  idx.blocks[1].stored_length = 0xfffffff0u;
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "runs past the index");

  // A raw length beyond the container's limit (a decompression bomb).
  idx = index_;
  idx.blocks[0].raw_length = kMaxBlockRawBytes + 1;
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "implausible raw length");

  // Huge section count after valid blocks.
  idx = index_;
  std::string enc = EncodeDocumentedIndex(idx);
  idx.sections.clear();
  std::string no_sections = EncodeDocumentedIndex(idx);
  // Cut before the section count, then claim 2^40 sections.
  auto varint_len = [](uint64_t v) {
    std::string tmp;
    base::PutVarint64(&tmp, v);
    return tmp.size();
  };
  std::string hostile = no_sections.substr(
      0, no_sections.size() - 1 - varint_len(idx.total_records) - varint_len(idx.logical_size));
  base::PutVarint64(&hostile, uint64_t{1} << 40);
  Put(WithIndex(good_, hostile));
  ASSERT_STATUS(OpenStatus(), kCorruption, "section count");

  // Non-contiguous blocks, inconsistent logical offsets, descending sections, bad totals.
  idx = index_;
  idx.blocks[2].file_offset += 1;
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "contiguous");
  idx = index_;
  idx.blocks[2].logical_offset += 1;
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "logical offset");
  idx = index_;
  std::swap(idx.sections[0].section_id, idx.sections[1].section_id);
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "not ascending");
  idx = index_;
  idx.total_records += 1;
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "totals disagree");
  idx = index_;
  idx.sections[1].length += 1;
  Put(WithIndex(good_, EncodeDocumentedIndex(idx)));
  ASSERT_STATUS(OpenStatus(), kCorruption, "inconsistent with the record stream");
  // Trailing garbage inside the index.
  Put(WithIndex(good_, enc + "zz"));
  ASSERT_STATUS(OpenStatus(), kCorruption, "trailing bytes");
}

TEST_F(StateFileCorruptionTest, TrailerPointingOutsideTheFileIsRefused) {
  WriteGood(pb::COMPRESSION_ZSTD);
  for (uint64_t offset : {uint64_t{0}, uint64_t{8}, good_.size() + 1, uint64_t{1} << 63,
                          ~uint64_t{0}}) {
    std::string bad = good_;
    std::string field;
    base::PutFixed64(&field, offset);
    bad.replace(bad.size() - 32, 8, field);
    Put(bad);
    ASSERT_STATUS(OpenStatus(), kCorruption, "outside the file");
    ASSERT_STATUS(OpenStatus(), kCorruption, path_);
  }
  std::string bad = good_;
  std::string field;
  base::PutFixed64(&field, ~uint64_t{0});
  bad.replace(bad.size() - 24, 8, field);  // index length
  Put(bad);
  ASSERT_STATUS(OpenStatus(), kCorruption, "outside the file");
}

TEST_F(StateFileCorruptionTest, MalformedRecordsUnderAValidChecksumFailIteration) {
  WriteGood(pb::COMPRESSION_NONE);
  // Make the first record's length prefix point past its neighbours, then re-seal block 0 and
  // the index so only the record framing is wrong.
  std::string bad = good_;
  bad[index_.blocks[0].file_offset + kBlockHeaderSize] = 0x7f;
  Put(Resealed(bad, 0));
  ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(fs_, path_));
  ASSERT_OK(reader->VerifyChecksums());
  ASSERT_STATUS(ReadEverything(), kCorruption, path_);
  ASSERT_STATUS(ReadEverything(), kCorruption, "block 0");
  // So does reading the section that starts in the damaged block.
  ASSERT_OK_AND_ASSIGN(auto section, reader->NewSectionIterator(1));
  RecordRef r;
  ASSERT_OK(section->Next(&r));  // the first record's (wrong) length still fits the block
  ASSERT_STATUS(section->Next(&r), kCorruption, "malformed record");
}

TEST_F(StateFileCorruptionTest, VerifyChecksumsNeverDecompresses) {
  WriteGood(pb::COMPRESSION_ZSTD);
  // Damage block 1's zstd frame under a valid checksum: only decompression can notice.
  const BlockInfo& b = index_.blocks[1];
  std::string bad = good_;
  for (uint64_t i = b.stored_length / 2; i < b.stored_length; ++i) {
    bad[b.file_offset + kBlockHeaderSize + i] = '\xff';
  }
  Put(Resealed(bad, 1));
  ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(fs_, path_));
  ASSERT_OK(reader->VerifyChecksums());
  ASSERT_STATUS(ReadEverything(), kCorruption, path_);
  ASSERT_STATUS(ReadEverything(), kCorruption, "block 1");
}

}  // namespace
}  // namespace ckpt::format
