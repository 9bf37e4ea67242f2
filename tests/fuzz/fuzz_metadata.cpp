// libFuzzer target for the readers of user-supplied bytes in ckpt::format's metadata side:
// DecodeMetadata (envelope, checksum, payload, structural checks) and ParseJobSpec (JSON, graph
// validation, defaults) plus BuildJobGraph on every spec that parses. Any crash, sanitizer report,
// or a decoded snapshot that does not survive re-encoding is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace {

using namespace ckpt::format;  // NOLINT: a fuzz driver

void CheckDecoded(std::string_view bytes) {
  auto m = DecodeMetadata(bytes, "fuzz/_metadata");
  if (!m.ok()) return;
  // What decodes must re-encode to something that decodes to the same message.
  const std::string again = EncodeMetadata(*m);
  auto back = DecodeMetadata(again, "fuzz/_metadata.reencoded");
  // (Compared through EncodeMetadata: plain SerializeAsString orders map entries arbitrarily.)
  if (!back.ok() || EncodeMetadata(*back) != again) std::abort();
  // Every file entry that passed the structural checks resolves without escaping.
  for (const auto& f : m->files()) {
    auto path = ResolveFile("/snap/job/chk-1", f);
    if (path.ok() && path->find("/../") != std::string::npos) std::abort();
  }
}

}  // namespace

// protobuf logs every invalid-UTF-8 string it refuses; the refusal itself is what we test.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int,
                                     const std::string&) {});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The raw bytes as a whole `_metadata` file.
  CheckDecoded(bytes);
  // The bytes as a payload inside a valid envelope, so the fuzzer reaches the protobuf parser and
  // the structural checks instead of stopping at the checksum.
  {
    std::string image(kMetadataMagic);
    ckpt::base::PutFixed32(&image, kFormatVersion);
    ckpt::base::PutFixed32(&image, 0);
    ckpt::base::PutFixed64(&image, size);
    image.append(bytes);
    ckpt::base::PutFixed64(&image, ckpt::base::Xxh3(image));
    CheckDecoded(image);
  }
  // The bytes as a job spec.
  auto spec = ParseJobSpec(bytes, "fuzz.json");
  if (spec.ok()) {
    // A spec that validated must build (ID collisions aside, which need a hash collision).
    auto graph = BuildJobGraph(*spec);
    if (!graph.ok()) std::abort();
  }
  return 0;
}
