// custom_operator_example: runs a job that mixes the built-in catalog with the custom
// "keyed-max" operator, then checks the committed output against the closed form.
//   custom_operator_example [OUTPUT_DIR]   (default: out/examples/keyed-max, relative to the working directory)
// Exit code 0 when every key's final maximum is right, 1 otherwise.
#include <cstdio>
#include <map>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/format/job_spec.h"
#include "keyed_max_operator.h"

namespace {

constexpr int64_t kTo = 100000;
constexpr int64_t kKeys = 10;

std::string JobJson(const std::string& out_dir) {
  return R"({
    "name": "keyed-max-example",
    "parallelism": 2,
    "operators": [
      {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
       "params": {"from": 1, "to": )" + std::to_string(kTo) + R"(, "keys": )" +
         std::to_string(kKeys) + R"(}},
      {"id": "max", "kind": "keyed-max", "uid": "max"},
      {"id": "sink", "kind": "file-sink", "uid": "max-out", "params": {"path": ")" + out_dir +
         R"("}}
    ],
    "edges": [
      {"from": "numbers", "to": "max", "partitioning": "HASH"},
      {"from": "max", "to": "sink", "partitioning": "FORWARD"}
    ]
  })";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out_dir = argc > 1 ? argv[1] : "out/examples/keyed-max";
  ckpt::base::Fs& fs = ckpt::base::Fs::Default();
  if (!ckpt::base::RemoveAll(fs, out_dir).ok()) return 1;

  // 1. A registry with the built-in catalog plus our kind.
  ckpt::engine::OperatorRegistry registry;
  ckpt::engine::RegisterBuiltinOperators(registry);
  if (ckpt::base::Status st = example::RegisterKeyedMax(registry); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }

  // 2. The job spec (the same JSON ckpt-engine reads) and a runner using our registry.
  auto spec = ckpt::format::ParseJobSpec(JobJson(out_dir), "keyed-max-example.json");
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
    return 1;
  }
  ckpt::engine::JobRunnerOptions options;
  options.registry = &registry;
  auto runner = ckpt::engine::JobRunner::Create(*spec, options);
  if (!runner.ok()) {
    std::fprintf(stderr, "%s\n", runner.status().ToString().c_str());
    return 1;
  }

  // 3. Run to the end of the bounded source.
  if (ckpt::base::Status st = (*runner)->Start(); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  ckpt::engine::JobResult result = (*runner)->Wait();
  if (result.outcome != ckpt::engine::JobOutcome::kFinished) {
    std::fprintf(stderr, "job did not finish: %s\n", result.status.ToString().c_str());
    return 1;
  }

  // 4. Read the committed files: the largest emitted maximum per key must be the largest
  //    number with that key.
  std::map<int64_t, int64_t> max_per_key;
  auto entries = fs.ListDir(out_dir);
  if (!entries.ok()) return 1;
  for (const auto& e : *entries) {
    if (e.name[0] == '.') continue;  // in-progress files are not output
    auto text = ckpt::base::ReadFileToString(fs, out_dir + "/" + e.name);
    if (!text.ok()) return 1;
    size_t start = 0;
    for (size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string line = text->substr(start, nl - start);
      const size_t comma = line.find(',');
      const int64_t key = std::stoll(line.substr(0, comma));
      const int64_t max = std::stoll(line.substr(comma + 1));
      if (max > max_per_key[key]) max_per_key[key] = max;
    }
  }
  bool ok = max_per_key.size() == static_cast<size_t>(kKeys);
  for (int64_t key = 0; key < kKeys; ++key) {
    const int64_t expected = kTo - ((kTo - key) % kKeys);  // largest n <= kTo with n % kKeys == key
    std::printf("key %lld: max %lld (expected %lld)\n", static_cast<long long>(key),
                static_cast<long long>(max_per_key[key]), static_cast<long long>(expected));
    ok = ok && max_per_key[key] == expected;
  }
  std::printf("%s\n", ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
