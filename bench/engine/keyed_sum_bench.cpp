// Throughput of the keyed-sum job (sequence-source -> HASH -> keyed-sum -> discard) on the heap
// backend at p=1 and p=2, with checkpoints every 1 s and with checkpointing off, beside a plain
// single-threaded loop doing the same keyed sum over the same records, in one run. Prints
// records/s, records per CPU-second ("per core") and the ratios after the Google Benchmark table.
// Targets: >= 1 M records/s per core; checkpoints every 1 s cost <= 5%.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>

#include <benchmark/benchmark.h>

#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"

namespace {

constexpr int64_t kRecords = 30'000'000;
constexpr int64_t kKeys = 1000;

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Measured {
  double records_per_s = 0;
  double records_per_cpu_s = 0;
  uint64_t checkpoints = 0;
};
std::map<std::string, Measured>& Results() {
  static std::map<std::string, Measured> r;
  return r;
}

// The same records the sequence source emits (value n, key n % keys), summed per key.
void BM_PlainLoop(benchmark::State& state) {
  for (auto _ : state) {
    const double cpu0 = CpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    std::unordered_map<int64_t, int64_t> sums;
    for (int64_t n = 1; n <= kRecords; ++n) {
      int64_t& s = sums[n % kKeys];
      s += n;
      benchmark::DoNotOptimize(s);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(secs);
    Measured& m = Results()["plain loop"];
    m.records_per_s = static_cast<double>(kRecords) / secs;
    m.records_per_cpu_s = static_cast<double>(kRecords) / (CpuSeconds() - cpu0);
  }
  state.counters["records_per_s"] = Results()["plain loop"].records_per_s;
}

std::string JobJson() {
  return "{\"name\": \"keyed-sum-bench\", \"operators\": ["
         "{\"id\": \"source\", \"kind\": \"sequence-source\", \"uid\": \"source\", \"params\": "
         "{\"from\": 1, \"to\": " + std::to_string(kRecords) + ", \"keys\": " +
         std::to_string(kKeys) + "}},"
         "{\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\"},"
         "{\"id\": \"sink\", \"kind\": \"discard\", \"uid\": \"sink\"}],"
         "\"edges\": [{\"from\": \"source\", \"to\": \"sum\", \"partitioning\": \"HASH\"},"
         "{\"from\": \"sum\", \"to\": \"sink\", \"partitioning\": \"FORWARD\"}]}";
}

void BM_Engine(benchmark::State& state) {
  const auto parallelism = static_cast<uint32_t>(state.range(0));
  const bool checkpoints = state.range(1) != 0;
  const std::string name = "engine p=" + std::to_string(parallelism) +
                           (checkpoints ? " checkpoint 1s" : " no checkpoints");
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("ckpt-bench-" + std::to_string(::getpid())))
          .string();
  for (auto _ : state) {
    std::filesystem::remove_all(dir);
    auto spec = ckpt::format::ParseJobSpec(JobJson(), "bench.json");
    if (!spec.ok()) {
      state.SkipWithError(spec.status().ToString().c_str());
      return;
    }
    ckpt::engine::JobRunnerOptions o;
    o.parallelism = parallelism;
    if (checkpoints) {
      o.checkpoint_dir = dir;
      o.interval_ms = 1000;
    }
    auto runner = ckpt::engine::JobRunner::Create(*spec, o);
    if (!runner.ok()) {
      state.SkipWithError(runner.status().ToString().c_str());
      return;
    }
    const double cpu0 = CpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    (void)(*runner)->Start();
    ckpt::engine::JobResult r = (*runner)->Wait();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(secs);
    if (r.outcome != ckpt::engine::JobOutcome::kFinished) {
      state.SkipWithError(r.status.ToString().c_str());
      return;
    }
    Measured& m = Results()[name];
    m.records_per_s = static_cast<double>(kRecords) / secs;
    m.records_per_cpu_s = static_cast<double>(kRecords) / (CpuSeconds() - cpu0);
    m.checkpoints = r.checkpoints.completed;
  }
  std::filesystem::remove_all(dir);
  state.counters["records_per_s"] = Results()[name].records_per_s;
  state.counters["checkpoints"] = static_cast<double>(Results()[name].checkpoints);
}

BENCHMARK(BM_PlainLoop)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Engine)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({2, 0})
    ->Args({2, 1})
    ->ArgNames({"p", "ckpt"})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void PrintRatios() {
  auto& r = Results();
  const double plain = r["plain loop"].records_per_s;
  std::printf("\nkeyed sum over %lld records, %lld keys (heap backend)\n",
              static_cast<long long>(kRecords), static_cast<long long>(kKeys));
  std::printf("%-28s %14s %18s %12s %12s\n", "run", "records/s", "records/CPU-s", "vs plain",
              "checkpoints");
  for (const auto& [name, m] : r) {
    std::printf("%-28s %14.0f %18.0f %11.2fx %12llu\n", name.c_str(), m.records_per_s,
                m.records_per_cpu_s, plain > 0 ? m.records_per_s / plain : 0.0,
                static_cast<unsigned long long>(m.checkpoints));
  }
  for (int p : {1, 2}) {
    const std::string base = "engine p=" + std::to_string(p);
    const double off = r[base + " no checkpoints"].records_per_s;
    const double on = r[base + " checkpoint 1s"].records_per_s;
    const double off_cpu = r[base + " no checkpoints"].records_per_cpu_s;
    const double on_cpu = r[base + " checkpoint 1s"].records_per_cpu_s;
    if (off > 0 && on > 0) {
      // Wall-clock throughput is noisy on a shared machine; CPU time per record is the steadier
      // measure of what checkpointing costs.
      std::printf("p=%d: checkpoints every 1 s cost %.1f%% of wall-clock throughput, %.1f%% of "
                  "records per CPU-second (target <= 5%%)\n",
                  p, 100.0 * (1.0 - on / off), 100.0 * (1.0 - on_cpu / off_cpu));
    }
  }
  const double per_core = r["engine p=1 no checkpoints"].records_per_cpu_s;
  std::printf("engine p=1: %.2f M records per CPU-second (target >= 1 M per core)\n",
              per_core / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PrintRatios();
  return 0;
}
