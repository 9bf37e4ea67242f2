// bench_topkeys_gen DIR RECORDS [VALUE_BYTES]: writes a canonical savepoint of RECORDS keys (one
// keyed operator, parallelism 16, max parallelism 128, BYTES values of VALUE_BYTES, default 32)
// with bench_data's generator, for bench/ckpt-tool/topkeys_vs_dump.sh. Prints what it wrote.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../bench_data.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DIR RECORDS [VALUE_BYTES]\n", argv[0]);
    return 2;
  }
  ckpt::bench::SavepointSpec spec;
  spec.records = std::strtoull(argv[2], nullptr, 10);
  spec.value_bytes = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 32;
  if (spec.records == 0 || spec.value_bytes == 0) {
    std::fprintf(stderr, "RECORDS and VALUE_BYTES must be positive numbers\n");
    return 2;
  }
  ckpt::bench::SavepointData data;
  const ckpt::base::Status st = ckpt::bench::WriteBigSavepoint(spec, argv[1], "", &data);
  if (!st.ok()) {
    std::fprintf(stderr, "bench_topkeys_gen: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("records %llu, state files %llu bytes on disk, %llu logical bytes\n",
              static_cast<unsigned long long>(data.records),
              static_cast<unsigned long long>(data.disk_bytes),
              static_cast<unsigned long long>(data.logical_bytes));
  return 0;
}
