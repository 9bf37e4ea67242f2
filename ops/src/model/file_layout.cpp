// The byte map of a snapshot file (ckpt/ops/file_layout.h), from the state-file container's own
// footer index (format::StateFileReader); no second parser of the container grammar.
#include "ckpt/ops/file_layout.h"

#include <algorithm>

#include "ckpt/base/checksum.h"
#include "ckpt/format/state_file.h"
#include "ckpt/format/state_file_reader.h"

namespace ckpt::ops {
namespace {

using base::Result;
using base::Status;

bool StartsWithMagic(base::Fs& fs, const std::string& path, uint64_t* size) {
  auto file = fs.OpenRead(path);
  if (!file.ok()) return false;
  *size = (*file)->Size();
  char magic[format::kStateFileMagic.size()];
  auto got = (*file)->ReadAt(0, sizeof(magic), magic);
  return got.ok() && *got == sizeof(magic) &&
         std::string_view(magic, sizeof(magic)) == format::kStateFileMagic;
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// XXH3 over the block header's first 16 bytes and its stored bytes (format/docs/state-files.md).
Result<bool> BlockChecksumMatches(const base::RandomAccessFile& file, const BlockLayout& b,
                                  uint64_t expected) {
  std::string bytes(b.whole().length, '\0');
  CKPT_ASSIGN_OR_RETURN(size_t got, file.ReadAt(b.header.offset, bytes.size(), bytes.data()));
  if (got != bytes.size()) return false;
  base::Xxh3Stream hash;
  hash.Update(std::string_view(bytes.data(), 16));
  hash.Update(std::string_view(bytes.data() + b.header.length, b.stored.length));
  return hash.Digest() == expected;
}

}  // namespace

const SectionLayout* FileLayout::FindSection(uint32_t section_id) const {
  auto it = std::lower_bound(sections.begin(), sections.end(), section_id,
                             [](const SectionLayout& s, uint32_t id) { return s.section_id < id; });
  return it != sections.end() && it->section_id == section_id ? &*it : nullptr;
}

const BlockLayout* FileLayout::BlockAtLogical(uint64_t logical_offset) const {
  auto it = std::upper_bound(blocks.begin(), blocks.end(), logical_offset,
                             [](uint64_t off, const BlockLayout& b) { return off < b.logical_offset; });
  if (it == blocks.begin()) return nullptr;
  --it;
  return logical_offset < it->logical_offset + it->raw_length ? &*it : nullptr;
}

Result<FileLayout> DescribeFileLayout(base::Fs& fs, const std::string& path, bool verify_blocks,
                                      const base::Progress& progress) {
  FileLayout layout;
  layout.path = path;
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(path));
  layout.file_size = info.size_bytes;
  uint64_t size = 0;
  if (!StartsWithMagic(fs, path, &size)) return layout;
  layout.file_size = size;
  CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs, path));
  const format::StateFileIndex& index = reader->index();
  layout.container = true;
  layout.compression = index.compression == ckpt::pb::COMPRESSION_ZSTD ? "zstd" : "none";
  layout.file_header = {0, format::kStateFileHeaderSize};
  layout.logical_size = index.logical_size;
  uint64_t blocks_end = format::kStateFileHeaderSize;
  std::unique_ptr<base::RandomAccessFile> file;
  if (verify_blocks) {
    CKPT_ASSIGN_OR_RETURN(file, fs.OpenRead(path));
  }
  for (size_t i = 0; i < index.blocks.size(); ++i) {
    const format::BlockInfo& bi = index.blocks[i];
    BlockLayout b;
    b.index = static_cast<uint32_t>(i);
    b.header = {bi.file_offset, format::kBlockHeaderSize};
    b.stored = {bi.file_offset + format::kBlockHeaderSize, bi.stored_length};
    b.raw_length = bi.raw_length;
    b.record_count = bi.record_count;
    b.logical_offset = bi.logical_offset;
    if (verify_blocks) {
      if (progress.cancelled()) return Status::Cancelled(path + ": block verification cancelled");
      CKPT_ASSIGN_OR_RETURN(bool ok, BlockChecksumMatches(*file, b, bi.checksum));
      b.checksum_ok = ok;
      progress.Report(i + 1, index.blocks.size(), path);
    }
    blocks_end = std::max(blocks_end, b.stored.end());
    layout.blocks.push_back(b);
  }
  layout.footer = {blocks_end, size > blocks_end ? size - blocks_end : 0};
  for (const format::SectionInfo& si : index.sections) {
    SectionLayout s;
    s.section_id = si.section_id;
    s.logical = {si.logical_offset, si.length};
    s.record_count = si.record_count;
    const BlockLayout* first = layout.BlockAtLogical(si.logical_offset);
    const BlockLayout* last =
        layout.BlockAtLogical(si.length > 0 ? si.logical_offset + si.length - 1 : si.logical_offset);
    if (first != nullptr && last != nullptr) {
      s.first_block = first->index;
      s.last_block = last->index;
      s.stored = {first->header.offset, last->stored.end() - first->header.offset};
    }
    layout.sections.push_back(s);
  }
  return layout;
}

Result<std::string> ReadBlockRecords(base::Fs& fs, const std::string& path, uint32_t block) {
  CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs, path));
  const auto& blocks = reader->index().blocks;
  if (block >= blocks.size()) {
    return Status::InvalidArgument(path + ": block " + std::to_string(block) + " out of range (" +
                                   std::to_string(blocks.size()) + " blocks)");
  }
  const format::BlockInfo& bi = blocks[block];
  std::string out;
  out.reserve(bi.raw_length);
  if (bi.record_count == 0) return out;
  CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIteratorAt(bi.logical_offset, bi.record_count));
  format::RecordRef r;
  for (uint32_t n = 0; n < bi.record_count; ++n) {
    CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&r));
    if (!more) break;
    AppendVarint(r.bytes.size(), &out);
    out.append(r.bytes);
  }
  if (out.size() != bi.raw_length) {
    return Status::Corruption(path + ": block " + std::to_string(block) + " decodes to " +
                              std::to_string(out.size()) + " bytes, its header says " +
                              std::to_string(bi.raw_length));
  }
  return out;
}

const SectionLayout* KeyGroupSection(const FileLayout& layout, uint32_t key_group) {
  return layout.FindSection(key_group);
}

std::optional<FindingRange> RangeOfFinding(const Snapshot& snapshot, const FileLayout& layout,
                                           const Finding& finding) {
  const std::string& named = finding.location.file;
  if (named.empty()) return std::nullopt;
  bool same = named == layout.path;
  for (const SnapshotFile& f : snapshot.files) {
    if ((f.path == named || f.resolved_path == named) && f.resolved_path == layout.path) same = true;
  }
  if (!same) return std::nullopt;
  if (finding.location.key_group) {
    if (const SectionLayout* s = layout.FindSection(*finding.location.key_group)) {
      return FindingRange{s->stored, std::nullopt, s->section_id,
                          "key group " + std::to_string(s->section_id)};
    }
  }
  for (const BlockLayout& b : layout.blocks) {
    if (b.checksum_ok.has_value() && !*b.checksum_ok) {
      return FindingRange{b.whole(), b.index, std::nullopt,
                          "block " + std::to_string(b.index) + " (checksum mismatch)"};
    }
  }
  return FindingRange{{0, layout.file_size}, std::nullopt, std::nullopt, "file"};
}

}  // namespace ckpt::ops
