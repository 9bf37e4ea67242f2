// libFuzzer target for the state-file iterators, differential: the input describes records
// (section ids, lengths, bytes) and writer options (block size, compression); the harness writes
// them with StateFileWriter, reopens the file and checks every iterator against what was
// written: the whole stream, each section (and an absent one: NotFound), and NewIteratorAt from
// every record's offset with a few counts (and a non-record offset: InvalidArgument). Where
// fuzz_state_file feeds hostile bytes to the reader, this one hunts for wrong answers on valid
// files: block boundaries, records spanning the block size, empty sections, single-record blocks.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/state_file_writer.h"

namespace {

using namespace ckpt::format;  // NOLINT: a fuzz driver

struct Written {
  uint32_t section = 0;
  uint64_t offset = 0;
  std::string bytes;
};

const std::string& FilePath() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (dir && *dir ? dir : "/tmp");
    return base + "/ckpt_fuzz_iterator_" + std::to_string(getpid());
  }();
  return path;
}

// Reads the input front to back; past the end every read yields 0.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::string Bytes(size_t n) {
    n = std::min(n, size_ - std::min(pos_, size_));
    std::string s(reinterpret_cast<const char*>(data_) + pos_, n);
    pos_ += n;
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

void Expect(bool ok) {
  if (!ok) std::abort();
}

// Drains `it` and compares with written[first, first + count).
void ExpectRange(RecordIterator& it, const std::vector<Written>& written, size_t first,
                 size_t count) {
  RecordRef r;
  for (size_t i = first; i < first + count; ++i) {
    auto more = it.Next(&r);
    Expect(more.ok() && *more);
    Expect(r.section_id == written[i].section && r.logical_offset == written[i].offset &&
           r.bytes == written[i].bytes);
  }
  auto end = it.Next(&r);
  Expect(end.ok() && !*end);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  StateFileWriterOptions options;
  options.kind = ckpt::pb::KEYED_STATE;
  const uint8_t mode = in.Byte();
  options.compression = (mode & 1) ? ckpt::pb::COMPRESSION_NONE : ckpt::pb::COMPRESSION_ZSTD;
  options.block_size_bytes = 1u + (static_cast<uint32_t>(in.Byte()) << (mode >> 5));
  ckpt::base::Fs& fs = ckpt::base::Fs::Default();
  unlink(FilePath().c_str());
  auto writer = StateFileWriter::Create(fs, FilePath(), options);
  Expect(writer.ok());
  std::vector<Written> written;
  uint32_t section = 0;
  bool began = false;
  while (!in.empty() && written.size() < 4096) {
    const uint8_t op = in.Byte();
    if (op >= 0xf0 || !began) {
      // A new section; gaps between ids are fine, an empty section is too.
      section += began ? 1u + (op & 0x0f) : (op & 0x0f);
      Expect((*writer)->BeginSection(section).ok());
      began = true;
      if (op >= 0xf0) continue;
    }
    std::string record = in.Bytes(op % 64);
    const uint64_t expected_offset = (*writer)->logical_offset();
    auto offset = (*writer)->Add(record);
    Expect(offset.ok() && *offset == expected_offset);
    written.push_back({section, *offset, std::move(record)});
  }
  auto summary = (*writer)->Finish();
  Expect(summary.ok() && summary->record_count == written.size());
  auto reader = StateFileReader::Open(fs, FilePath());
  unlink(FilePath().c_str());  // the reader keeps its descriptor
  Expect(reader.ok());
  const StateFileReader& r = **reader;
  Expect(r.VerifyChecksums().ok());
  Expect(r.index().logical_size == summary->logical_size);
  {
    auto it = r.NewIterator();
    Expect(it.ok());
    ExpectRange(**it, written, 0, written.size());
  }
  // Each section of the index, against the written records of that section.
  for (const SectionInfo& s : r.index().sections) {
    size_t first = 0;
    while (first < written.size() && written[first].section < s.section_id) ++first;
    size_t last = first;
    while (last < written.size() && written[last].section == s.section_id) ++last;
    Expect(s.record_count == last - first);
    auto it = r.NewSectionIterator(s.section_id);
    Expect(it.ok());
    ExpectRange(**it, written, first, last - first);
  }
  Expect(r.NewSectionIterator(section + 1).status().IsNotFound());
  // From every record (at most 64 of them, spread over the file), 1 and 3 records; to the end
  // (a count past it) from at most 4 of them. Draining the rest of the file from all 64 made an
  // input's cost grow with 64 x its records and held the target near 200 executions a second.
  const size_t step = written.size() / 64 + 1;
  const size_t drain_step = written.size() / 4 + 1;
  for (size_t i = 0; i < written.size(); i += step) {
    for (uint64_t count : {uint64_t{1}, uint64_t{3}, uint64_t{1} << 40}) {
      if (count > 3 && i % drain_step >= step) continue;
      auto it = r.NewIteratorAt(written[i].offset, count);
      Expect(it.ok());
      ExpectRange(**it, written, i, std::min<uint64_t>(count, written.size() - i));
    }
  }
  if (!written.empty()) {
    // Not a record's offset: inside the first record (its length prefix is at least 1 byte).
    const uint64_t inside = written[0].offset + 1;
    bool is_record = false;
    for (const auto& w : written) is_record |= w.offset == inside;
    if (!is_record && inside < r.index().logical_size) {
      Expect(!r.NewIteratorAt(inside, 1).ok());
    }
  }
  return 0;
}
