// bench_ckpt_tool: ckpt-tool's verbs side by side with the standard tools over the same data,
// in one run. Over a >= 2 GiB savepoint it generates itself (CKPT_BENCH_MB sizes it down for a
// quick run; deleted afterwards unless CKPT_BENCH_KEEP is set):
//   validate (checksums)  vs  `xxhsum -H3` over the same state files   (target >= 1.6x)
//   validate --deep       vs  `zstd -d -c > /dev/null` of the same records as one .zst
//                                                                        (target >= 1.6x)
// both in-process (ops::Validate) and through the ckpt-tool binary, and ls / show of a metadata
// with 10 000 subtasks (target < 100 ms). The baselines are single processes, as users run them;
// validate uses every core. Page cache: every command is run once untimed before the timed runs
// (the generated files are in the page cache, as are the baselines' inputs: both sides read
// warm files). The repetitions of all benchmarks are interleaved (random order, so machine load
// hits both sides alike); the ratios printed at the end are of the medians: baseline time / our
// time (>= 1 means we are faster). The load average is printed before and after.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <unistd.h>
#include <vector>

#include "bench_data.h"
#include "ckpt/base/fs.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/show.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"

namespace ckpt::bench {
namespace {

// Wall and CPU time of in-process work.
class Stopwatch {
 public:
  Timing Elapsed() const {
    return {std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                .count(),
            CpuMs(false) - cpu_start_};
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double cpu_start_ = CpuMs(false);
};

void RunValidate(benchmark::State& state, bool deep, const char* name) {
  ops::ValidateOptions options;
  options.deep = deep;
  for (auto _ : state) {
    Stopwatch sw;
    auto report = ops::Validate(base::Fs::Default(), Env().savepoint.dir, options);
    Timing t = sw.Elapsed();
    if (!report.ok() || ops::HasErrors(report->findings)) {
      state.SkipWithError(report.ok() ? "validate reported errors" : "validate failed");
      return;
    }
    state.SetIterationTime(t.wall_ms / 1000.0);
    RecordTiming(name, t);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Env().savepoint.disk_bytes));
}

void BM_ValidateChecksums(benchmark::State& state) { RunValidate(state, false, "validate"); }
void BM_ValidateDeep(benchmark::State& state) { RunValidate(state, true, "validate --deep"); }

void RunShell(benchmark::State& state, const std::string& command, const char* name,
              uint64_t bytes) {
  for (auto _ : state) {
    Timing t = TimeShell(command);
    if (t.wall_ms < 0) {
      state.SkipWithError(("failed: " + command).c_str());
      return;
    }
    state.SetIterationTime(t.wall_ms / 1000.0);
    RecordTiming(name, t);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_Xxhsum(benchmark::State& state) {
  std::string cmd = "xxhsum -H3";
  for (const auto& f : Env().savepoint.files) cmd += " '" + f + "'";
  RunShell(state, cmd + " > /dev/null", "xxhsum -H3", Env().savepoint.disk_bytes);
}

void BM_ZstdDecompress(benchmark::State& state) {
  RunShell(state, "zstd -q -d -c '" + Env().savepoint.zst_path + "' > /dev/null", "zstd -d",
           Env().savepoint.zst_bytes);
}

void BM_LsWide(benchmark::State& state) {
  for (auto _ : state) {
    Stopwatch sw;
    auto snapshot = ops::LoadSnapshot(base::Fs::Default(), Env().wide_snapshot);
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.status().ToString().c_str());
      return;
    }
    auto rows = ops::OperatorTable(*snapshot);
    benchmark::DoNotOptimize(rows);
    Timing t = sw.Elapsed();
    state.SetIterationTime(t.wall_ms / 1000.0);
    RecordTiming("ls (library)", t);
  }
}

void BM_ShowWide(benchmark::State& state) {
  for (auto _ : state) {
    Stopwatch sw;
    auto snapshot = ops::LoadSnapshot(base::Fs::Default(), Env().wide_snapshot);
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.status().ToString().c_str());
      return;
    }
    auto json = ops::MetadataJson(*snapshot);
    benchmark::DoNotOptimize(json);
    Timing t = sw.Elapsed();
    state.SetIterationTime(t.wall_ms / 1000.0);
    RecordTiming("show --format json (library)", t);
  }
}

void RunCli(benchmark::State& state, const std::string& args, const char* name) {
  if (Env().ckpt_tool.empty()) {
    state.SkipWithError("ckpt-tool binary not found next to the benchmark");
    return;
  }
  RunShell(state, "'" + Env().ckpt_tool + "' " + args + " '" + Env().wide_snapshot + "' > /dev/null",
           name, 0);
}

// The verbs as a user runs them: a process, like the baselines.
void RunCliValidate(benchmark::State& state, const std::string& flags, const char* name) {
  if (Env().ckpt_tool.empty()) {
    state.SkipWithError("ckpt-tool binary not found next to the benchmark");
    return;
  }
  RunShell(state,
           "'" + Env().ckpt_tool + "' -q validate " + flags + " '" + Env().savepoint.dir +
               "' > /dev/null",
           name, Env().savepoint.disk_bytes);
}
void BM_CliValidate(benchmark::State& state) {
  RunCliValidate(state, "", "ckpt-tool validate");
}
void BM_CliValidateDeep(benchmark::State& state) {
  RunCliValidate(state, "--deep", "ckpt-tool validate --deep");
}

void BM_CliLsWide(benchmark::State& state) { RunCli(state, "ls", "ckpt-tool ls (process)"); }
void BM_CliShowWide(benchmark::State& state) {
  RunCli(state, "show", "ckpt-tool show (process)");
}
void BM_CliShowJsonWide(benchmark::State& state) {
  RunCli(state, "--format json show", "ckpt-tool show --format json (process)");
}

// The repetitions run interleaved (main turns on random interleaving) so page-cache state and
// machine load affect both sides alike.
constexpr int kHeavyRepetitions = 5;
BENCHMARK(BM_Xxhsum)->Iterations(1)->Repetitions(kHeavyRepetitions)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ValidateChecksums)->Iterations(1)->Repetitions(kHeavyRepetitions)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CliValidate)->Iterations(1)->Repetitions(kHeavyRepetitions)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ZstdDecompress)->Iterations(1)->Repetitions(kHeavyRepetitions)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ValidateDeep)->Iterations(1)->Repetitions(kHeavyRepetitions)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CliValidateDeep)->Iterations(1)->Repetitions(kHeavyRepetitions)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LsWide)->Iterations(1)->Repetitions(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ShowWide)->Iterations(1)->Repetitions(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CliLsWide)->Iterations(1)->Repetitions(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CliShowWide)->Iterations(1)->Repetitions(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CliShowJsonWide)->Iterations(1)->Repetitions(5)->UseManualTime()->Unit(benchmark::kMillisecond);

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median wall and CPU time over the repetitions of `name` (and how many); negative if not
// measured.
Timing MedianOf(const std::string& name, size_t* runs_out = nullptr) {
  const auto& runs = Timings()[name];
  if (runs_out != nullptr) *runs_out = runs.size();
  if (runs.empty()) return {-1, -1};
  std::vector<double> wall, cpu;
  for (const Timing& t : runs) {
    wall.push_back(t.wall_ms);
    cpu.push_back(t.cpu_ms);
  }
  return {Median(wall), Median(cpu)};
}

void PrintRatio(const std::string& ours, const std::string& baseline, double target) {
  size_t n_ours = 0, n_base = 0;
  Timing a = MedianOf(ours, &n_ours), b = MedianOf(baseline, &n_base);
  if (a.wall_ms <= 0 || b.wall_ms <= 0) {
    std::printf("%-26s vs %-12s: not measured\n", ours.c_str(), baseline.c_str());
    return;
  }
  const double wall = b.wall_ms / a.wall_ms;
  std::printf("%-26s wall %8.1f ms cpu %8.1f ms (%zu runs) | %-10s wall %8.1f ms cpu %8.1f ms "
              "(%zu runs) | speed ratio (wall) %.2fx, target >= %.1fx: %s\n",
              ours.c_str(), a.wall_ms, a.cpu_ms, n_ours, baseline.c_str(), b.wall_ms, b.cpu_ms,
              n_base, wall, target, wall >= target ? "met" : "NOT met");
}

void PrintUnder(const std::string& name, double limit_ms) {
  Timing a = MedianOf(name);
  if (a.wall_ms <= 0) {
    std::printf("%-40s not measured\n", name.c_str());
    return;
  }
  std::printf("%-40s wall %7.1f ms, cpu %7.1f ms (target < %.0f ms: wall %s, cpu %s)\n",
              name.c_str(), a.wall_ms, a.cpu_ms, limit_ms, a.wall_ms < limit_ms ? "met" : "MISSED",
              a.cpu_ms < limit_ms ? "met" : "MISSED");
}

// The speed-up over the single-process baselines that validate must reach on 2 cores.
constexpr double kTarget = 1.6;

std::string LoadAverage() {
  // /proc files report size 0: read with a stream, not Fs.
  std::ifstream in("/proc/loadavg");
  std::string s;
  std::getline(in, s);
  return s.empty() ? "unknown" : s;
}

// Runs every measured command once, untimed, so that all of them start from a warm page cache
// and warm code: the state files, the .zst and the binaries. False if one fails.
bool WarmUp() {
  const BenchEnv& env = Env();
  std::string xxhsum = "xxhsum -H3";
  for (const auto& f : env.savepoint.files) xxhsum += " '" + f + "'";
  std::vector<std::string> commands = {
      xxhsum + " > /dev/null", "zstd -q -d -c '" + env.savepoint.zst_path + "' > /dev/null"};
  if (!env.ckpt_tool.empty()) {
    commands.push_back("'" + env.ckpt_tool + "' -q validate --deep '" + env.savepoint.dir +
                       "' > /dev/null");
  }
  for (const auto& c : commands) {
    if (TimeShell(c).wall_ms < 0) {
      std::fprintf(stderr, "warm-up failed: %s\n", c.c_str());
      return false;
    }
  }
  ops::ValidateOptions options;
  options.deep = true;
  auto report = ops::Validate(base::Fs::Default(), env.savepoint.dir, options);
  return report.ok() && !ops::HasErrors(report->findings);
}

std::string FindCkptTool(const char* argv0) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string exe = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string(argv0);
  // <build>/bench/bench_ckpt_tool -> <build>/ckpt-tool/ckpt-tool
  std::string candidate = base::DirName(base::DirName(exe)) + "/ckpt-tool/ckpt-tool";
  return access(candidate.c_str(), X_OK) == 0 ? candidate : std::string();
}

}  // namespace
}  // namespace ckpt::bench

int main(int argc, char** argv) {
  using namespace ckpt::bench;  // NOLINT
  // Repetitions of all benchmarks in random interleaved order unless the command line says
  // otherwise (a later flag wins).
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  auto args = std::make_unique<char*[]>(static_cast<size_t>(argc) + 2);
  args[0] = argv[0];
  args[1] = interleave.data();
  for (int i = 1; i < argc; ++i) args[i + 1] = argv[i];
  int args_n = argc + 1;
  benchmark::Initialize(&args_n, args.get());
  char tmpl[] = "/tmp/bench_ckpt_tool.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("mkdtemp");
    return 2;
  }
  BenchEnv& env = Env();
  env.scratch = tmpl;
  env.ckpt_tool = FindCkptTool(argv[0]);
  SavepointSpec spec;
  spec.target_disk_bytes = uint64_t{2} << 30;
  if (const char* mb = std::getenv("CKPT_BENCH_MB")) spec.target_disk_bytes = std::stoull(mb) << 20;
  std::fprintf(stderr, "generating a %.0f MiB savepoint in %s ...\n",
               static_cast<double>(spec.target_disk_bytes) / (1 << 20), tmpl);
  ckpt::base::Status st = WriteBigSavepoint(spec, env.scratch + "/savepoint",
                                            env.scratch + "/records.zst", &env.savepoint);
  if (st.ok()) {
    env.wide_snapshot = env.scratch + "/wide-savepoint";
    st = WriteWideMetadata(env.wide_snapshot, 10, 1000);
  }
  if (!st.ok()) {
    std::cerr << "generating data failed: " << st.ToString() << "\n";
    ckpt::base::RemoveAll(ckpt::base::Fs::Default(), env.scratch).IgnoreError();
    return 2;
  }
  std::printf("savepoint: %zu state files, %.1f MiB on disk, %.1f MiB of records (%llu records, "
              "%u-byte values), .zst of the same records %.1f MiB\n",
              env.savepoint.files.size(), static_cast<double>(env.savepoint.disk_bytes) / (1 << 20),
              static_cast<double>(env.savepoint.logical_bytes) / (1 << 20),
              static_cast<unsigned long long>(env.savepoint.records), spec.value_bytes,
              static_cast<double>(env.savepoint.zst_bytes) / (1 << 20));
  std::printf("machine: %u cores; load average before: %s\n", std::thread::hardware_concurrency(),
              LoadAverage().c_str());
  std::fflush(stdout);
  if (!WarmUp()) {
    ckpt::base::RemoveAll(ckpt::base::Fs::Default(), env.scratch).IgnoreError();
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  std::printf("load average after: %s\n", LoadAverage().c_str());
  std::printf("\n== ratios (medians of the repetitions; speed ratio = baseline wall time / ours,\n"
              "   >= 1 means faster; cpu = user+sys of the work: ours runs on all %u cores, the\n"
              "   baselines on one) ==\n",
              std::thread::hardware_concurrency());
  PrintRatio("validate", "xxhsum -H3", kTarget);
  PrintRatio("validate --deep", "zstd -d", kTarget);
  PrintRatio("ckpt-tool validate", "xxhsum -H3", kTarget);
  PrintRatio("ckpt-tool validate --deep", "zstd -d", kTarget);
  PrintUnder("ls (library)", 100);
  PrintUnder("show --format json (library)", 100);
  PrintUnder("ckpt-tool ls (process)", 100);
  PrintUnder("ckpt-tool show (process)", 100);
  PrintUnder("ckpt-tool show --format json (process)", 100);
  if (std::getenv("CKPT_BENCH_KEEP") != nullptr) {
    std::printf("kept the data in %s (CKPT_BENCH_KEEP)\n", env.scratch.c_str());
  } else {
    ckpt::base::RemoveAll(ckpt::base::Fs::Default(), env.scratch).IgnoreError();
  }
  return 0;
}
