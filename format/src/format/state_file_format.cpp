#include "state_file_format.h"


#include <string>

#include "ckpt/base/endian.h"

namespace ckpt::format::internal {
namespace {

using base::Status;

// The fewest bytes one encoded block / section entry of the index can take (each varint at
// least one byte, the checksum eight). Used to bound counts before allocating.
constexpr uint64_t kMinBlockEntryBytes = 5 + 8;
constexpr uint64_t kMinSectionEntryBytes = 4;

bool ValidCompression(uint64_t c) {
  return c == pb::COMPRESSION_NONE || c == pb::COMPRESSION_ZSTD;
}
bool ValidKind(uint64_t k) {
  return k != pb::FILE_KIND_UNSPECIFIED && pb::FileKind_IsValid(static_cast<int>(k));
}

uint16_t DecodeFixed16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | (static_cast<uint8_t>(p[1]) << 8));
}
void PutFixed16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}

}  // namespace

std::string Where(const std::string& path) { return "state file " + path + ": "; }

std::string WhereBlock(const std::string& path, size_t block, uint64_t file_offset) {
  return Where(path) + "block " + std::to_string(block) + " (file offset " +
         std::to_string(file_offset) + "): ";
}

void BlockHasher::Reset(const char* header16) {
  stream_.Reset();
  stream_.Update(std::string_view(header16, 16));
}
void BlockHasher::Update(const char* data, size_t n) { stream_.Update(std::string_view(data, n)); }

void EncodeFileHeader(const FileHeader& header, std::string* out) {
  out->append(kStateFileMagic);
  PutFixed16(out, header.version);
  PutFixed16(out, static_cast<uint16_t>(header.kind));
  out->push_back(static_cast<char>(header.compression));
  out->append(3, '\0');
}

base::Result<FileHeader> DecodeFileHeader(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kStateFileHeaderSize || bytes.substr(0, 8) != kStateFileMagic) {
    return Status::Corruption(Where(path) + "bad magic (not a state-file container)");
  }
  FileHeader h;
  h.version = DecodeFixed16(bytes.data() + 8);
  if (h.version == 0) return Status::Corruption(Where(path) + "invalid container version 0");
  if (h.version > kStateFileVersion) {
    return Status::Unimplemented(Where(path) + "written by a newer version (container version " +
                                 std::to_string(h.version) + ", this build reads up to " +
                                 std::to_string(kStateFileVersion) + ")");
  }
  uint16_t kind = DecodeFixed16(bytes.data() + 10);
  if (!ValidKind(kind)) {
    return Status::Corruption(Where(path) + "unknown file kind " + std::to_string(kind));
  }
  h.kind = static_cast<pb::FileKind>(kind);
  uint8_t compression = static_cast<uint8_t>(bytes[12]);
  if (!ValidCompression(compression)) {
    return Status::Corruption(Where(path) + "unknown compression " + std::to_string(compression));
  }
  h.compression = static_cast<pb::Compression>(compression);
  if (bytes[13] != 0 || bytes[14] != 0 || bytes[15] != 0) {
    return Status::Corruption(Where(path) + "reserved header bytes are not zero");
  }
  return h;
}

void EncodeBlockHeaderPrefix(const BlockHeader& header, char* out) {
  std::string s;
  s.reserve(16);
  base::PutFixed32(&s, header.stored_length);
  base::PutFixed32(&s, header.raw_length);
  base::PutFixed32(&s, header.record_count);
  s.push_back(static_cast<char>(header.codec));
  s.append(3, '\0');
  s.copy(out, 16);
}

bool DecodeBlockHeader(const char* bytes, BlockHeader* header) {
  header->stored_length = base::DecodeFixed32(bytes);
  header->raw_length = base::DecodeFixed32(bytes + 4);
  header->record_count = base::DecodeFixed32(bytes + 8);
  header->codec = static_cast<pb::Compression>(static_cast<uint8_t>(bytes[12]));
  header->checksum = base::DecodeFixed64(bytes + 16);
  return bytes[13] == 0 && bytes[14] == 0 && bytes[15] == 0;
}

void EncodeTrailer(const Trailer& trailer, std::string* out) {
  base::PutFixed64(out, trailer.index_offset);
  base::PutFixed64(out, trailer.index_length);
  base::PutFixed64(out, trailer.index_checksum);
  out->append(kStateFileMagic);
}

base::Result<Trailer> DecodeTrailer(std::string_view bytes, uint64_t file_size,
                                    const std::string& path) {
  if (bytes.size() != kStateFileTrailerSize || bytes.substr(24, 8) != kStateFileMagic) {
    return Status::Corruption(Where(path) + "bad trailer magic (truncated or not a container)");
  }
  Trailer t;
  t.index_offset = base::DecodeFixed64(bytes.data());
  t.index_length = base::DecodeFixed64(bytes.data() + 8);
  t.index_checksum = base::DecodeFixed64(bytes.data() + 16);
  // The index sits right before the trailer; compare without overflowing.
  const uint64_t index_end = file_size - kStateFileTrailerSize;
  if (t.index_offset < kStateFileHeaderSize || t.index_offset > index_end ||
      t.index_length != index_end - t.index_offset) {
    return Status::Corruption(Where(path) + "trailer points outside the file (index offset " +
                              std::to_string(t.index_offset) + ", length " +
                              std::to_string(t.index_length) + ", file size " +
                              std::to_string(file_size) + ")");
  }
  return t;
}

void EncodeIndex(const StateFileIndex& index, std::string* out) {
  base::PutVarint64(out, static_cast<uint64_t>(index.kind));
  base::PutVarint64(out, static_cast<uint64_t>(index.compression));
  base::PutVarint64(out, index.blocks.size());
  for (const BlockInfo& b : index.blocks) {
    base::PutVarint64(out, b.file_offset);
    base::PutVarint64(out, b.stored_length);
    base::PutVarint64(out, b.raw_length);
    base::PutVarint64(out, b.record_count);
    base::PutVarint64(out, b.logical_offset);
    base::PutFixed64(out, b.checksum);
  }
  base::PutVarint64(out, index.sections.size());
  for (const SectionInfo& s : index.sections) {
    base::PutVarint64(out, s.section_id);
    base::PutVarint64(out, s.logical_offset);
    base::PutVarint64(out, s.length);
    base::PutVarint64(out, s.record_count);
  }
  base::PutVarint64(out, index.total_records);
  base::PutVarint64(out, index.logical_size);
}

namespace {

// Decodes the index fields in order, remembering the first failure.
class IndexParser {
 public:
  IndexParser(std::string_view in, const std::string& path) : in_(in), path_(path) {}

  bool Varint(uint64_t* v, const char* what) {
    if (!base::GetVarint64(&in_, v)) return Fail(std::string("truncated or bad varint in ") + what);
    return true;
  }
  bool Varint32(uint32_t* v, const char* what) {
    uint64_t x = 0;
    if (!Varint(&x, what)) return false;
    if (x > UINT32_MAX) return Fail(std::string(what) + " out of range: " + std::to_string(x));
    *v = static_cast<uint32_t>(x);
    return true;
  }
  bool Fixed64(uint64_t* v, const char* what) {
    if (in_.size() < 8) return Fail(std::string("truncated ") + what);
    *v = base::DecodeFixed64(in_.data());
    in_.remove_prefix(8);
    return true;
  }
  bool Fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg);
    return false;
  }
  size_t remaining() const { return in_.size(); }
  Status status() const {
    return Status::Corruption(Where(path_) + "bad footer index: " + error_);
  }

 private:
  std::string_view in_;
  const std::string& path_;
  std::string error_;
};

}  // namespace

base::Result<StateFileIndex> DecodeIndex(std::string_view bytes, const FileHeader& header,
                                         uint64_t index_offset, const std::string& path) {
  IndexParser p(bytes, path);
  StateFileIndex index;
  uint64_t kind = 0, compression = 0, block_count = 0, section_count = 0;
  if (!p.Varint(&kind, "kind") || !p.Varint(&compression, "compression")) return p.status();
  if (kind != static_cast<uint64_t>(header.kind) ||
      compression != static_cast<uint64_t>(header.compression)) {
    p.Fail("kind/compression differ from the header");
    return p.status();
  }
  index.kind = header.kind;
  index.compression = header.compression;

  if (!p.Varint(&block_count, "block count")) return p.status();
  if (block_count > p.remaining() / kMinBlockEntryBytes) {
    p.Fail("block count " + std::to_string(block_count) + " exceeds the index size");
    return p.status();
  }
  index.blocks.resize(block_count);
  uint64_t file_offset = kStateFileHeaderSize;
  uint64_t logical = 0;
  uint64_t records = 0;
  for (uint64_t i = 0; i < block_count; ++i) {
    BlockInfo& b = index.blocks[i];
    if (!p.Varint(&b.file_offset, "block offset") ||
        !p.Varint32(&b.stored_length, "block stored length") ||
        !p.Varint32(&b.raw_length, "block raw length") ||
        !p.Varint32(&b.record_count, "block record count") ||
        !p.Varint(&b.logical_offset, "block logical offset") ||
        !p.Fixed64(&b.checksum, "block checksum")) {
      return p.status();
    }
    const std::string which = "block " + std::to_string(i) + ": ";
    if (b.file_offset != file_offset) {
      p.Fail(which + "file offset " + std::to_string(b.file_offset) + " != expected " +
             std::to_string(file_offset) + " (blocks must be contiguous)");
      return p.status();
    }
    if (b.stored_length > index_offset - file_offset ||
        index_offset - file_offset - b.stored_length < kBlockHeaderSize) {
      p.Fail(which + "stored length " + std::to_string(b.stored_length) +
             " runs past the index");
      return p.status();
    }
    if (b.raw_length == 0 || b.raw_length > kMaxBlockRawBytes || b.record_count == 0 ||
        b.record_count > b.raw_length) {
      p.Fail(which + "implausible raw length " + std::to_string(b.raw_length) +
             " / record count " + std::to_string(b.record_count));
      return p.status();
    }
    if (b.logical_offset != logical) {
      p.Fail(which + "logical offset " + std::to_string(b.logical_offset) + " != expected " +
             std::to_string(logical));
      return p.status();
    }
    file_offset += kBlockHeaderSize + b.stored_length;
    logical += b.raw_length;
    records += b.record_count;
  }
  if (file_offset != index_offset) {
    p.Fail("blocks end at " + std::to_string(file_offset) + " but the index starts at " +
           std::to_string(index_offset));
    return p.status();
  }

  if (!p.Varint(&section_count, "section count")) return p.status();
  if (section_count > p.remaining() / kMinSectionEntryBytes) {
    p.Fail("section count " + std::to_string(section_count) + " exceeds the index size");
    return p.status();
  }
  index.sections.resize(section_count);
  uint64_t section_end = 0;
  uint64_t section_records = 0;
  for (uint64_t i = 0; i < section_count; ++i) {
    SectionInfo& s = index.sections[i];
    if (!p.Varint32(&s.section_id, "section id") ||
        !p.Varint(&s.logical_offset, "section offset") ||
        !p.Varint(&s.length, "section length") ||
        !p.Varint(&s.record_count, "section record count")) {
      return p.status();
    }
    const std::string which = "section " + std::to_string(s.section_id) + ": ";
    if (i > 0 && s.section_id <= index.sections[i - 1].section_id) {
      p.Fail(which + "section ids are not ascending");
      return p.status();
    }
    // Sections tile the record stream in order, so each starts where the previous ended.
    if (s.logical_offset != section_end || s.length > logical - section_end ||
        s.record_count > s.length || (s.length > 0) != (s.record_count > 0)) {
      p.Fail(which + "offset " + std::to_string(s.logical_offset) + " length " +
             std::to_string(s.length) + " records " + std::to_string(s.record_count) +
             " inconsistent with the record stream");
      return p.status();
    }
    section_end += s.length;
    section_records += s.record_count;
  }
  if (!p.Varint(&index.total_records, "total records") ||
      !p.Varint(&index.logical_size, "logical size")) {
    return p.status();
  }
  if (p.remaining() != 0) {
    p.Fail(std::to_string(p.remaining()) + " trailing bytes");
    return p.status();
  }
  if (index.total_records != records || index.logical_size != logical ||
      section_end != logical || section_records != records) {
    p.Fail("totals disagree with the blocks and sections (records " +
           std::to_string(index.total_records) + " vs " + std::to_string(records) +
           ", logical size " + std::to_string(index.logical_size) + " vs " +
           std::to_string(logical) + ")");
    return p.status();
  }
  return index;
}

}  // namespace ckpt::format::internal
