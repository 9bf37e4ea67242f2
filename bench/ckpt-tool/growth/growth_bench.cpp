// bench_growth: ops::ComputeGrowth and `ckpt-tool growth` over a job directory of 500
// incremental checkpoints generated here (format/tools/incremental_chain.h: two operators, one
// referencing a sliding window of 8 shared files, one every file it ever uploaded: 500
// `_metadata` files, 1000 shared files, about 129 000 file-table entries), against the baseline of
// reading and decoding the same 500 `_metadata` files in one loop (format::ReadMetadataFile).
// Target: growth < 1 s. Prints the medians and the ratio growth / baseline. The root is
// deleted afterwards unless CKPT_BENCH_KEEP is set.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/ops/growth.h"
#include "tools/incremental_chain.h"

namespace {

constexpr int kCheckpoints = 500;

std::string& Root() {
  static std::string root;
  return root;
}

double ElapsedMs(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void BM_ReadAllMetadata(benchmark::State& state) {
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    size_t files = 0;
    for (int id = 1; id <= kCheckpoints; ++id) {
      auto md = ckpt::format::ReadMetadataFile(
          ckpt::base::Fs::Default(), Root() + "/chk-" + std::to_string(id) + "/_metadata");
      if (!md.ok()) {
        state.SkipWithError(md.status().ToString().c_str());
        return;
      }
      files += static_cast<size_t>(md->files_size());
    }
    benchmark::DoNotOptimize(files);
    state.SetIterationTime(ElapsedMs(start) / 1000);
  }
}

void BM_Growth(benchmark::State& state) {
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto report = ckpt::ops::ComputeGrowth(ckpt::base::Fs::Default(), Root());
    const double ms = ElapsedMs(start);
    if (!report.ok() || report->jobs.size() != 1 ||
        report->jobs[0].checkpoints.size() != static_cast<size_t>(kCheckpoints)) {
      state.SkipWithError(report.ok() ? "unexpected report" : report.status().ToString().c_str());
      return;
    }
    state.SetIterationTime(ms / 1000);
  }
}

// User + system CPU time of the finished children, ms.
double ChildrenCpuMs() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(ru.ru_utime) + ms(ru.ru_stime);
}

void BM_CliGrowth(benchmark::State& state) {
  const std::string cmd = std::string("'") + CKPT_TOOL_PATH + "' growth '" + Root() +
                          "' --format json > /dev/null";
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ChildrenCpuMs();
    const int rc = std::system(cmd.c_str());
    const double ms = ElapsedMs(start);
    state.counters["child_cpu_ms"] = ChildrenCpuMs() - cpu_start;
    if (rc != 0) {
      state.SkipWithError("ckpt-tool growth failed");
      return;
    }
    state.SetIterationTime(ms / 1000);
  }
}

// CPU time: the whole process's (growth resolves file tables on several threads).
BENCHMARK(BM_ReadAllMetadata)
    ->Iterations(1)
    ->Repetitions(5)
    ->UseManualTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Growth)
    ->Iterations(1)
    ->Repetitions(5)
    ->UseManualTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CliGrowth)->Iterations(1)->Repetitions(5)->UseManualTime()->Unit(
    benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  char tmpl[] = "/tmp/bench_growth.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("mkdtemp");
    return 2;
  }
  Root() = std::string(tmpl) + "/job";
  ckpt::format::sample::IncrementalChainOptions options;
  options.checkpoints = kCheckpoints;
  options.window = 8;
  const auto start = std::chrono::steady_clock::now();
  ckpt::base::Status st =
      ckpt::format::sample::WriteIncrementalChain(ckpt::base::Fs::Default(), Root(), options);
  if (!st.ok()) {
    std::fprintf(stderr, "generating the root failed: %s\n", st.ToString().c_str());
    return 2;
  }
  std::fprintf(stderr, "generated %d checkpoints in %s (%.0f ms)\n", kCheckpoints, Root().c_str(),
               ElapsedMs(start));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (std::getenv("CKPT_BENCH_KEEP") == nullptr) std::filesystem::remove_all(tmpl);
  return 0;
}
