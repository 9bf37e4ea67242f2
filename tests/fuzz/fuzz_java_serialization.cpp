// libFuzzer target for ckpt::flink's Java Object Serialization Stream reader
// (java_serialization.h): ReadJavaStream over the input as is and behind a valid stream header
// (so the fuzzer spends its time past the magic), and ReadJavaObject inside a larger buffer.
// Checks: no crash, no sanitizer report, no allocation beyond what the input can justify
// (-rss_limit_mb); every error names the file and an offset inside the input; a decoded stream
// renders as text and JSON (shared nodes and cycles included) and its nodes stay within the
// limits it was read with.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/java_serialization.h"

namespace {

using namespace ckpt::flink;  // NOLINT: a fuzz driver

constexpr char kFuzzJavaFile[] = "fuzz/value.ser";

void CheckJavaError(const ckpt::base::Status& st, uint64_t size) {
  const std::string prefix = std::string(kFuzzJavaFile) + ": at byte ";
  if (st.message().rfind(prefix, 0) != 0) std::abort();
  const uint64_t at = std::strtoull(st.message().c_str() + prefix.size(), nullptr, 10);
  if (at > size) std::abort();  // an offset past the input
}

void CheckJavaStream(std::string_view bytes, const JavaStreamLimits& limits) {
  auto stream = ReadJavaStream(bytes, kFuzzJavaFile, 0, limits);
  if (!stream.ok()) {
    CheckJavaError(stream.status(), bytes.size());
    return;
  }
  if (stream->node_count() > limits.max_nodes) std::abort();
  JavaRenderOptions render;
  render.max_depth = 16;
  const std::string text = FormatJavaStream(*stream, render);
  const std::string json = JavaStreamToJson(*stream, render);
  if (json.rfind("{\"contents\":[", 0) != 0 || json.back() != '}') std::abort();
  if (!stream->contents().empty() && text.empty()) std::abort();
  for (const JavaValue* v : stream->contents()) {
    (void)v->class_name();
    (void)v->Field("value");
    (void)v->array_length();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  JavaStreamLimits tight;
  tight.max_depth = 12;
  tight.max_nodes = 512;
  tight.max_handles = 256;
  CheckJavaStream(bytes, JavaStreamLimits());
  std::string framed("\xAC\xED\x00\x05", 4);
  framed.append(bytes);
  CheckJavaStream(framed, JavaStreamLimits());
  CheckJavaStream(framed, tight);
  // One object inside a larger buffer: the cursor ends inside it, after the header.
  std::string embedded = "pre" + framed;
  DataInput in(embedded, kFuzzJavaFile, 0);
  if (!in.Skip(3).ok()) std::abort();
  auto one = ReadJavaObject(in);
  if (one.ok()) {
    if (in.offset() < 7 || in.offset() > embedded.size() || one->contents().empty()) std::abort();
  } else {
    CheckJavaError(one.status(), embedded.size());
  }
  return 0;
}
