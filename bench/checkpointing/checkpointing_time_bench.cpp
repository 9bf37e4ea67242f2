// Checkpointing time under backpressure, modelled on flink-benchmarks' CheckpointingTimeBenchmark:
// sequence source -> map (to-string, chained) -> REBALANCE -> slow sink (1 ms and 10 ms per
// record) at parallelism 1 and 4, 4 KiB network buffers. For each of aligned, unaligned,
// aligned-with-timeout (100 ms) and aligned with buffer debloating (target 200 ms, period 50 ms)
// the job runs under full backpressure, completes its checkpoints after a warm-up (two aligned
// ones, five of each other mode), and the median end-to-end duration recorded in their
// _metadata is printed side by side with the ratio against aligned (the baseline measured in
// the same run). Debloating runs twice: with a 64-byte minimum buffer, as flink-benchmarks
// sizes its minimum segment to hold about three records so that the target, not the floor,
// bounds the in-flight data, and with the default 256-byte minimum, where at 10 ms/record the
// floor does (5 buffers x 256 B per channel hold about 55 of this job's records). Then the throughput of the same
// pipeline without the slow sink, checkpoints every 100 ms aligned vs unaligned (30 M records,
// median of seven runs each).
// Targets: unaligned >= 300x faster than aligned at 10 ms/record; debloated aligned
// <= 2 x debloat target per exchange; aligned-with-timeout <= timeout + 2 x unaligned;
// unaligned costs <= 5% throughput without backpressure.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace {

namespace fs = std::filesystem;
using ckpt::engine::JobRunner;
using ckpt::engine::JobRunnerOptions;

constexpr int64_t kTimeoutMs = 100;
constexpr int64_t kDebloatTargetMs = 200;
constexpr size_t kDebloatMinBufferBytes = 64;

std::string JobJson(int64_t delay_us, uint32_t parallelism, int64_t to) {
  std::string sink =
      delay_us > 0
          ? "{\"id\": \"sink\", \"kind\": \"slow\", \"uid\": \"sink\", \"params\": {\"delay_us\": " +
                std::to_string(delay_us) + "}},"
                "{\"id\": \"end\", \"kind\": \"discard\", \"uid\": \"end\"}"
          : "{\"id\": \"sink\", \"kind\": \"discard\", \"uid\": \"sink\"}";
  std::string edges = delay_us > 0 ? ",{\"from\": \"sink\", \"to\": \"end\", \"partitioning\": "
                                     "\"FORWARD\"}"
                                   : "";
  return "{\"name\": \"checkpointing-time-bench\", \"parallelism\": " + std::to_string(parallelism) +
         ", \"operators\": ["
         "{\"id\": \"source\", \"kind\": \"sequence-source\", \"uid\": \"source\", \"params\": "
         "{\"from\": 1, \"to\": " + std::to_string(to) + ", \"keys\": 100}},"
         "{\"id\": \"map\", \"kind\": \"map\", \"uid\": \"map\", \"params\": {\"function\": "
         "\"to-string\"}}," + sink + "],"
         "\"edges\": [{\"from\": \"source\", \"to\": \"map\", \"partitioning\": \"FORWARD\"},"
         "{\"from\": \"map\", \"to\": \"sink\", \"partitioning\": \"REBALANCE\"}" + edges + "]}";
}

enum class Mode {
  kAligned,
  kUnaligned,
  kAlignedWithTimeout,
  kAlignedDebloat,            // minimum buffer kDebloatMinBufferBytes
  kAlignedDebloatDefaultMin,  // minimum buffer: the engine's default
};
const char* Name(Mode m) {
  switch (m) {
    case Mode::kAligned: return "aligned";
    case Mode::kUnaligned: return "unaligned";
    case Mode::kAlignedWithTimeout: return "aligned-with-timeout";
    case Mode::kAlignedDebloat: return "aligned+debloat";
    case Mode::kAlignedDebloatDefaultMin: return "aligned+debloat(256B)";
  }
  return "";
}

JobRunnerOptions Options(Mode m, const std::string& dir, uint64_t interval_ms) {
  JobRunnerOptions o;
  o.checkpoint_dir = dir;
  o.interval_ms = interval_ms;
  o.num_retained = 100;
  o.retention = ckpt::pb::RETAIN_ON_CANCELLATION;
  o.network.buffer_bytes = 4096;
  o.mode = m == Mode::kUnaligned            ? ckpt::pb::UNALIGNED
           : m == Mode::kAlignedWithTimeout ? ckpt::pb::ALIGNED_WITH_TIMEOUT
                                            : ckpt::pb::ALIGNED_EXACTLY_ONCE;
  o.network.aligned_checkpoint_timeout_ms = kTimeoutMs;
  if (m == Mode::kAlignedDebloat || m == Mode::kAlignedDebloatDefaultMin) {
    o.network.debloat_enabled = true;
    o.network.debloat_target_ms = kDebloatTargetMs;
    o.network.debloat_period_ms = 50;
    if (m == Mode::kAlignedDebloat) o.network.min_buffer_bytes = kDebloatMinBufferBytes;
  }
  return o;
}

struct Durations {
  std::vector<int64_t> ms;  // end-to-end, per completed checkpoint after the warm-up
  // Per checkpoint, the largest over its subtasks: start delay (trigger to first barrier),
  // alignment, async phase, and the last ack (trigger to ack): where the time goes.
  std::vector<int64_t> start_delay, alignment, async, last_ack;
  uint64_t persisted = 0;
  bool unaligned_any = false;
  std::string error;
};

// Runs the backpressured job until `want` checkpoints completed (the first one triggers after
// a 1.5 s warm-up, so backpressure and debloating have settled), cancels it and reads the
// checkpoints' metrics from their _metadata.
Durations Measure(Mode m, int64_t delay_us, uint32_t p, int want) {
  Durations d;
  const std::string dir = (fs::temp_directory_path() /
                           ("ckpt-cpt-bench-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  auto spec = ckpt::format::ParseJobSpec(JobJson(delay_us, p, INT64_C(1) << 40), "bench.json");
  if (!spec.ok()) {
    d.error = spec.status().ToString();
    return d;
  }
  auto runner = JobRunner::Create(*spec, Options(m, dir, 1500));
  if (!runner.ok()) {
    d.error = runner.status().ToString();
    return d;
  }
  if (auto st = (*runner)->Start(); !st.ok()) {
    d.error = st.ToString();
    return d;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while ((*runner)->checkpoint_counts().completed < static_cast<uint64_t>(want) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string job_dir = (*runner)->job_dir();
  (*runner)->Cancel();
  (*runner)->Wait();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(job_dir, ec)) {
    const fs::path md = e.path() / "_metadata";
    if (!fs::exists(md)) continue;
    auto bytes = ckpt::base::ReadFileToString(ckpt::base::Fs::Default(), md.string());
    if (!bytes.ok()) continue;
    auto meta = ckpt::format::DecodeMetadata(*bytes, md.string());
    if (!meta.ok()) continue;
    d.ms.push_back(meta->metrics().end_to_end_duration());
    int64_t start = 0, align = 0, async = 0, ack = 0;
    for (const auto& op : meta->operators()) {
      for (const auto& st : op.subtasks()) {
        const auto& sm = st.metrics();
        start = std::max(start, sm.start_delay());
        align = std::max(align, sm.alignment_duration());
        async = std::max(async, sm.async_duration());
        ack = std::max(ack, sm.ack_timestamp() - meta->metrics().trigger_timestamp());
      }
    }
    d.start_delay.push_back(start);
    d.alignment.push_back(align);
    d.async.push_back(async);
    d.last_ack.push_back(ack);
    d.persisted += meta->metrics().persisted_data();
    d.unaligned_any = d.unaligned_any || meta->metrics().is_unaligned();
  }
  if (d.ms.empty()) d.error = "no checkpoint completed within 3 minutes";
  fs::remove_all(dir);
  return d;
}

double Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? static_cast<double>(v[v.size() / 2])
                      : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2.0;
}

// Records per second of the pipeline without the slow sink, kThroughputRecords records,
// checkpoints every 100 ms.
constexpr int64_t kThroughputRecords = 30'000'000;
constexpr int kThroughputRuns = 7;

double CpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Rates {
  double per_second = 0;      // records per wall-clock second
  double per_cpu_second = 0;  // records per CPU second of the process (all its threads)
};

Rates Throughput(Mode m, uint32_t p) {
  const int64_t records = kThroughputRecords;
  const std::string dir = (fs::temp_directory_path() /
                           ("ckpt-cpt-bench-tp-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  auto spec = ckpt::format::ParseJobSpec(JobJson(0, p, records), "bench.json");
  if (!spec.ok()) return {};
  JobRunnerOptions o = Options(m, dir, 100);
  o.network.buffer_bytes = 32 * 1024;
  o.retention = ckpt::pb::NO_EXTERNALIZED;
  o.num_retained = 1;
  auto runner = JobRunner::Create(*spec, o);
  if (!runner.ok()) return {};
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = CpuSeconds();
  if (!(*runner)->Start().ok()) return {};
  ckpt::engine::JobResult r = (*runner)->Wait();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = CpuSeconds() - cpu0;
  fs::remove_all(dir);
  if (r.outcome != ckpt::engine::JobOutcome::kFinished) return {};
  return {static_cast<double>(records) / secs, static_cast<double>(records) / cpu};
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured
  // --quick: 1 ms per record only (a smoke run); --throughput: the throughput part alone.
  const std::string arg = argc > 1 ? argv[1] : "";
  const bool quick = arg == "--quick";
  const bool throughput_only = arg == "--throughput";
  std::printf("checkpoint end-to-end duration under backpressure (median of the checkpoints "
              "after a 1.5 s warm-up; 4 KiB buffers; timeout %lld ms; debloat target %lld ms)\n",
              static_cast<long long>(kTimeoutMs), static_cast<long long>(kDebloatTargetMs));
  std::printf("%-10s %-3s %-22s %10s %12s %14s %10s   %s\n", "sink", "p", "mode", "median ms",
              "checkpoints", "persisted B", "vs aligned",
              "median of per-checkpoint max: start delay / alignment / async / last ack (ms)");
  std::vector<int64_t> delays = throughput_only ? std::vector<int64_t>{}
                                : quick         ? std::vector<int64_t>{1000}
                                                : std::vector<int64_t>{1000, 10000};
  for (int64_t delay : delays) {
    for (uint32_t p : {1u, 4u}) {
      std::map<Mode, double> med;
      for (Mode m : {Mode::kAligned, Mode::kUnaligned, Mode::kAlignedWithTimeout,
                     Mode::kAlignedDebloat, Mode::kAlignedDebloatDefaultMin}) {
        Durations d = Measure(m, delay, p, m == Mode::kAligned ? 2 : 5);
        if (!d.error.empty()) {
          std::printf("%-10s %-3u %-22s error: %s\n", (std::to_string(delay / 1000) + " ms").c_str(),
                      p, Name(m), d.error.c_str());
          continue;
        }
        med[m] = Median(d.ms);
        const double base = med.count(Mode::kAligned) ? med[Mode::kAligned] : 0;
        std::printf("%-10s %-3u %-22s %10.1f %12zu %14llu %9.1fx   %.0f / %.0f / %.0f / %.0f\n",
                    (std::to_string(delay / 1000) + " ms/rec").c_str(), p, Name(m), med[m],
                    d.ms.size(), static_cast<unsigned long long>(d.persisted),
                    med[m] > 0 && base > 0 ? base / med[m] : 0.0, Median(d.start_delay),
                    Median(d.alignment), Median(d.async), Median(d.last_ack));
      }
      if (med.count(Mode::kAligned) && med.count(Mode::kUnaligned) && med[Mode::kUnaligned] > 0) {
        std::printf("  -> unaligned %.0fx faster than aligned (target >= 300x at 10 ms/record)\n",
                    med[Mode::kAligned] / med[Mode::kUnaligned]);
      }
      if (med.count(Mode::kAlignedWithTimeout) && med.count(Mode::kUnaligned)) {
        std::printf("  -> aligned-with-timeout %.1f ms vs timeout + 2 x unaligned = %.1f ms\n",
                    med[Mode::kAlignedWithTimeout],
                    static_cast<double>(kTimeoutMs) + 2 * med[Mode::kUnaligned]);
      }
      if (med.count(Mode::kAlignedDebloat)) {
        std::printf("  -> aligned+debloat (%zu B minimum buffer) %.1f ms vs 2 x target (1 "
                    "exchange) = %lld ms\n",
                    kDebloatMinBufferBytes, med[Mode::kAlignedDebloat],
                    static_cast<long long>(2 * kDebloatTargetMs));
      }
    }
  }
  std::printf("\nthroughput without backpressure (%lld M records, checkpoints every 100 ms; "
              "median of %d runs each, aligned and unaligned taking turns)\n",
              static_cast<long long>(kThroughputRecords / 1'000'000), kThroughputRuns);
  for (uint32_t p : {1u, 4u}) {
    std::vector<int64_t> a, u, a_cpu, u_cpu;
    for (int i = 0; i < kThroughputRuns; ++i) {
      const Rates ra = Throughput(Mode::kAligned, p);
      const Rates ru = Throughput(Mode::kUnaligned, p);
      a.push_back(static_cast<int64_t>(ra.per_second));
      u.push_back(static_cast<int64_t>(ru.per_second));
      a_cpu.push_back(static_cast<int64_t>(ra.per_cpu_second));
      u_cpu.push_back(static_cast<int64_t>(ru.per_cpu_second));
    }
    const double aligned = Median(a);
    const double unaligned = Median(u);
    // Per CPU second: what the checkpoints cost in work, whatever else runs on the machine.
    std::printf("p=%u: aligned %.0f records per CPU-second, unaligned %.0f: unaligned costs "
                "%.1f%% of the CPU\n",
                p, Median(a_cpu), Median(u_cpu),
                Median(a_cpu) > 0 ? 100.0 * (1.0 - Median(u_cpu) / Median(a_cpu)) : 0.0);
    std::printf("p=%u: aligned %.0f records/s, unaligned %.0f records/s: unaligned costs %.1f%% "
                "(target <= 5%%)\n",
                p, aligned, unaligned, aligned > 0 ? 100.0 * (1.0 - unaligned / aligned) : 0.0);
  }
  return 0;
}
