// libFuzzer target for ckpt::flink: ParseFlinkMetadata (the Apache Flink `_metadata` reader,
// including the Java-serialized CheckpointProperties trailer) over arbitrary bytes, both raw and
// behind a valid Flink header so the fuzzer reaches the body. Any crash, sanitizer report, or
// an accepted relative handle that escapes the snapshot directory is a bug. The changelog (DSTL)
// change-set and METADATA readers run over the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ckpt/flink/changelog.h"
#include "ckpt/flink/metadata_reader.h"

namespace {

using namespace ckpt::flink;  // NOLINT: a fuzz driver

void CheckHandle(const Metadata& md, const StreamHandle& h) {
  if (h.type != StreamHandle::Type::kRelativeFile) return;
  auto local = LocalPath(md, h);
  if (!local.ok() || local->find("/../") != std::string::npos) {
    std::abort();  // the reader accepted a relative path that escapes
  }
}

void Check(std::string_view bytes) {
  auto md = ParseFlinkMetadata(bytes, "fuzz/_metadata");
  if (!md.ok()) {
    // Every error names the file.
    if (md.status().message().find("fuzz/_metadata") == std::string::npos) std::abort();
    return;
  }
  md->dir = "/snap/job/chk-1";
  for (const auto& op : md->operators) {
    for (const auto& st : op.subtasks) {
      if (st.managed_keyed.key_groups) CheckHandle(*md, st.managed_keyed.key_groups->delegate);
      for (const auto& f : st.managed_keyed.private_files) CheckHandle(*md, f.handle);
      for (const auto& f : st.managed_keyed.shared_files) CheckHandle(*md, f.handle);
      if (st.managed_operator) CheckHandle(*md, st.managed_operator->delegate);
    }
  }
}

// The changelog (DSTL) readers: a change set at an offset chosen by the first byte, and the
// bytes as a METADATA change. Errors must name the file.
void CheckChangelog(std::string_view bytes) {
  const int64_t offset = bytes.empty() ? 0 : static_cast<uint8_t>(bytes[0]) % 16;
  auto set = ReadChangeSet(bytes, offset, "fuzz/dstl");
  if (!set.ok() && set.status().message().find("fuzz/dstl") == std::string::npos) std::abort();
  std::string meta("\x08", 1);
  meta.append(bytes.substr(bytes.empty() ? 0 : 1));
  auto m = ReadChangelogMetadata(meta, "fuzz/dstl");
  if (!m.ok() && m.status().message().find("fuzz/dstl") == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Check(bytes);
  CheckChangelog(bytes);
  // Behind a valid header: magic, a version chosen by the first input byte (2..7).
  if (size > 0) {
    std::string image("\x49\x60\x67\x2D\x00\x00\x00", 7);
    image.push_back(static_cast<char>(2 + data[0] % 6));
    image.append(bytes.substr(1));
    Check(image);
  }
  return 0;
}
