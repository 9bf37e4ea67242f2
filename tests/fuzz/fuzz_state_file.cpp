// libFuzzer target for the state-file reader. The input is a mode byte and a container file.
// Mode odd: the file is used as is. Mode even: the harness first re-seals it — recomputes every
// block checksum and the index checksum the way the documented grammar says — so mutations get
// past the checksums into the index validation, zstd and the record parser. Then it opens the
// file, verifies checksums, iterates everything (whole file, each section, a few logical
// offsets) and decodes every record as each record layout and as a typed value. Must never
// crash, hang or leak, whatever the bytes.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/base/fs.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/format/value_json.h"

namespace {

using namespace ckpt::format;  // NOLINT: a fuzz driver

const std::string& InputPath() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (dir && *dir ? dir : "/tmp");
    return base + "/ckpt_fuzz_state_file_" + std::to_string(getpid());
  }();
  return path;
}

// Best effort: walks the blocks by their headers and the index by the documented grammar,
// rewriting checksums; stops quietly where the bytes do not parse.
void Reseal(std::string* file) {
  std::string& f = *file;
  if (f.size() < kStateFileHeaderSize + kStateFileTrailerSize) return;
  const uint64_t index_offset = ckpt::base::DecodeFixed64(f.data() + f.size() - 32);
  const uint64_t index_end = f.size() - kStateFileTrailerSize;
  if (index_offset < kStateFileHeaderSize || index_offset > index_end) return;
  std::vector<uint64_t> checksums;
  for (uint64_t pos = kStateFileHeaderSize; pos + kBlockHeaderSize <= index_offset;) {
    const uint64_t stored = ckpt::base::DecodeFixed32(f.data() + pos);
    if (stored > index_offset - pos - kBlockHeaderSize) break;
    const uint64_t sum = ckpt::base::Xxh3(f.substr(pos, 16) + f.substr(pos + 24, stored));
    std::string field;
    ckpt::base::PutFixed64(&field, sum);
    f.replace(pos + 16, 8, field);
    checksums.push_back(sum);
    pos += kBlockHeaderSize + stored;
  }
  std::string_view in(f.data() + index_offset, index_end - index_offset);
  uint64_t v = 0, blocks = 0;
  if (ckpt::base::GetVarint64(&in, &v) && ckpt::base::GetVarint64(&in, &v) &&
      ckpt::base::GetVarint64(&in, &blocks)) {
    for (uint64_t b = 0; b < blocks && b < checksums.size(); ++b) {
      bool ok = true;
      for (int i = 0; i < 5 && ok; ++i) ok = ckpt::base::GetVarint64(&in, &v);
      if (!ok || in.size() < 8) break;
      std::string field;
      ckpt::base::PutFixed64(&field, checksums[b]);
      f.replace(static_cast<size_t>(in.data() - f.data()), 8, field);
      in.remove_prefix(8);
    }
  }
  std::string sum;
  ckpt::base::PutFixed64(&sum, ckpt::base::Xxh3(f.substr(index_offset, index_end - index_offset)));
  f.replace(f.size() - 16, 8, sum);
}

const ckpt::pb::TypeDescriptor& ValueType() {
  static const ckpt::pb::TypeDescriptor type =
      types::Map(types::String(), types::List(types::Tuple({types::Int64(), types::Double(),
                                                            types::Bool(), types::Bytes()})));
  return type;
}

void Consume(std::string_view bytes) {
  KeyedRecord keyed;
  if (DecodeKeyedRecord(bytes, &keyed)) {
    ValueBytesToJson(ValueType(), keyed.value).status().IgnoreError();
    DecodeValueExact(types::Int64(), keyed.key).status().IgnoreError();
  }
  OperatorRecord op;
  if (DecodeOperatorRecord(bytes, &op)) {
    DecodeValueExact(ValueType(), op.value).status().IgnoreError();
  }
  ChangelogRecord change;
  DecodeChangelogRecord(bytes, &change);
}

// Drains an iterator, stopping at the first error.
void Drain(ckpt::base::Result<std::unique_ptr<RecordIterator>> it) {
  if (!it.ok()) return;
  RecordRef r;
  while (true) {
    auto next = (*it)->Next(&r);
    if (!next.ok() || !*next) return;
    Consume(r.bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) Reseal(&bytes);
  ckpt::base::Fs& fs = ckpt::base::Fs::Default();
  {
    auto file = fs.OpenWrite(InputPath());
    if (!file.ok()) std::abort();  // the harness itself is broken
    if (!(*file)->Append(bytes).ok()) std::abort();
    if (!(*file)->Close().ok()) std::abort();
  }
  auto reader = StateFileReader::Open(fs, InputPath());
  // The reader keeps its descriptor; unlinking now leaves nothing behind when libFuzzer exits.
  unlink(InputPath().c_str());
  if (!reader.ok()) return 0;
  const StateFileReader& r = **reader;
  r.VerifyChecksums().IgnoreError();
  Drain(r.NewIterator());
  const StateFileIndex& index = r.index();
  for (size_t i = 0; i < index.sections.size() && i < 8; ++i) {
    Drain(r.NewSectionIterator(index.sections[i].section_id));
  }
  Drain(r.NewSectionIterator(0xfffffff0u));
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, index.logical_size / 2, index.logical_size}) {
    Drain(r.NewIteratorAt(offset, 3));
  }
  return 0;
}
