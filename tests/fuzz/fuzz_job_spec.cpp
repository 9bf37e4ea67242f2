// libFuzzer target for job-spec parsing (format/include/ckpt/format/job_spec.h): JSON syntax,
// unknown fields, graph validation (ids, edges, cycles, parallelism bounds, an explicit 0
// parallelism) and defaults. Checks: ParseJobSpec never crashes; a spec that parses builds a
// job graph; parsing is idempotent (the parsed spec printed as JSON parses to the same spec);
// every operator ends with 1 <= parallelism <= max parallelism <= 32768.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/key_groups.h"

namespace {

using namespace ckpt::format;  // NOLINT: a fuzz driver

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int,
                                     const std::string&) {});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  auto spec = ParseJobSpec(json, "fuzz.json");
  if (!spec.ok()) {
    if (spec.status().message().find("fuzz.json") == std::string::npos) std::abort();
    return 0;
  }
  for (const auto& op : spec->operators()) {
    if (op.parallelism() == 0 || op.parallelism() > op.max_parallelism() ||
        op.max_parallelism() > kUpperBoundMaxParallelism) {
      std::abort();
    }
  }
  // A spec that validated must build (ID collisions aside, which need a hash collision).
  if (!BuildJobGraph(*spec).ok()) std::abort();
  std::string printed;
  if (!google::protobuf::util::MessageToJsonString(*spec, &printed).ok()) std::abort();
  auto again = ParseJobSpec(printed, "fuzz.reprinted.json");
  if (!again.ok()) std::abort();
  if (!google::protobuf::util::MessageDifferencer::Equals(*spec, *again)) std::abort();
  return 0;
}
