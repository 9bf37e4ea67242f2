// State-file container throughput against raw baselines measured in the same run, on the same
// bytes: writing; full read (decompress + parse every record) vs raw ZSTD_decompress of the same
// blocks; checksum-only verification vs raw XXH3 over the file read with the same chunked pread
// loop (what xxhsum does) and over the bytes in memory. Prints the target ratios at the end.
//   bench_format [--benchmark_filter=StateFile] ; env CKPT_BENCH_MB (default 128), TMPDIR
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <xxh_x86dispatch.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/value_codec.h"

namespace {

using namespace ckpt;  // NOLINT: a benchmark driver

constexpr size_t kVerifyChunkBytes = 4u << 20;  // the reader's VerifyChecksums chunk
constexpr uint32_t kKeyGroups = 1024;

// ~128 MB of keyed-state records as an engine would write them: sorted by key group, three
// states (value, list, map), int64 keys, tuple values with repetitive text (compressible).
struct Workload {
  std::string records;           // all records back to back
  std::vector<uint32_t> ends;    // end offset of each record in `records`
  std::vector<size_t> group_start;  // first record index of each key group (+ one past the end)
  std::string dir;
  std::string path;              // the container written once for the read benchmarks
  uint64_t file_size = 0;
  uint64_t logical_size = 0;
  std::vector<std::string> stored_blocks;  // zstd frames of `path`, for the raw baseline
  std::vector<uint32_t> raw_lengths;
  std::string file_bytes;        // `path` in memory, for the in-memory XXH3 baseline
};

Workload* Build() {
  auto* w = new Workload;
  const char* mb_env = std::getenv("CKPT_BENCH_MB");
  const size_t target = static_cast<size_t>(mb_env ? std::atoi(mb_env) : 128) << 20;
  std::mt19937_64 rng(2024);
  static const char* kPages[] = {"/products/", "/cart", "/checkout/step-", "/search?q=",
                                 "/account/orders/", "/help/article-"};
  static const char* kEvents[] = {"click", "view", "add_to_cart", "purchase", "scroll"};
  const auto value_type = format::types::Tuple(
      {format::types::String(), format::types::Int64(), format::types::Double()});
  w->records.reserve(target + (1 << 20));
  std::string value, key, rec;
  for (uint32_t g = 0; g < kKeyGroups; ++g) {
    w->group_start.push_back(w->ends.size());
    // Key groups of equal size, together `target` bytes.
    while (w->records.size() < target / kKeyGroups * (g + 1)) {
      const int64_t user = static_cast<int64_t>(g + kKeyGroups * (rng() % 50000));
      std::string text = std::string("event=") + kEvents[rng() % 5] + ";page=" +
                         kPages[rng() % 6] + std::to_string(rng() % 2000) +
                         ";session=s" + std::to_string(user % 977);
      value.clear();
      key.clear();
      format::EncodeValue(value_type,
                          format::Tuple{{text, static_cast<int64_t>(rng() % 100000),
                                         static_cast<double>(rng() % 10000) / 100.0}},
                          &value).IgnoreError();
      format::EncodeValue(format::types::Int64(), user, &key).IgnoreError();
      const uint32_t state = static_cast<uint32_t>(rng() % 3);
      const std::string user_key = state == 2 ? "attr-" + std::to_string(rng() % 40) : "";
      rec.clear();
      format::EncodeKeyedRecord({state, key, "", user_key, value}, &rec);
      w->records += rec;
      w->ends.push_back(static_cast<uint32_t>(w->records.size()));
    }
  }
  w->group_start.push_back(w->ends.size());
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/ckpt-bench-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) std::abort();
  w->dir = tmpl;
  w->path = w->dir + "/keyed.state";
  return w;
}

Workload* g_data = nullptr;

Workload& Data() {
  if (g_data == nullptr) g_data = Build();
  return *g_data;
}

// Writes the whole workload to `path`; returns the summary.
format::StateFileSummary WriteAll(const Workload& w, const std::string& path) {
  auto writer = format::StateFileWriter::Create(base::Fs::Default(), path,
                                                {pb::KEYED_STATE, pb::COMPRESSION_ZSTD});
  if (!writer.ok()) std::abort();
  size_t begin = 0;
  for (uint32_t g = 0; g + 1 < w.group_start.size(); ++g) {
    if (!(*writer)->BeginSection(g).ok()) std::abort();
    for (size_t r = w.group_start[g]; r < w.group_start[g + 1]; ++r) {
      if (!(*writer)->Add(std::string_view(w.records).substr(begin, w.ends[r] - begin)).ok()) {
        std::abort();
      }
      begin = w.ends[r];
    }
  }
  auto summary = (*writer)->Finish();
  if (!summary.ok()) std::abort();
  return *summary;
}

// The container the read benchmarks use, written once, plus its blocks for the baselines.
Workload& Written() {
  static Workload* w = [] {
    Workload* d = &Data();
    auto summary = WriteAll(*d, d->path);
    d->file_size = summary.size_bytes;
    d->logical_size = summary.logical_size;
    auto bytes = base::ReadFileToString(base::Fs::Default(), d->path);
    if (!bytes.ok()) std::abort();
    d->file_bytes = std::move(*bytes);
    auto reader = format::StateFileReader::Open(base::Fs::Default(), d->path);
    if (!reader.ok()) std::abort();
    for (const format::BlockInfo& b : (*reader)->index().blocks) {
      d->stored_blocks.push_back(
          d->file_bytes.substr(b.file_offset + format::kBlockHeaderSize, b.stored_length));
      d->raw_lengths.push_back(b.raw_length);
    }
    std::fprintf(stderr, "workload: %zu records, %.1f MB logical, %.1f MB file, %zu blocks\n",
                 d->ends.size(), d->logical_size / 1e6, d->file_size / 1e6,
                 d->stored_blocks.size());
    return d;
  }();
  return *w;
}

void BM_StateFileWrite(benchmark::State& state) {
  Workload& w = Data();
  const std::string path = w.dir + "/write.state";
  for (auto _ : state) {
    auto summary = WriteAll(w, path);
    benchmark::DoNotOptimize(summary.checksum_xxh3);
    state.PauseTiming();
    base::Fs::Default().RemoveFile(path).IgnoreError();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.records.size()));
}

void BM_StateFileFullRead(benchmark::State& state) {
  Workload& w = Written();
  for (auto _ : state) {
    auto reader = format::StateFileReader::Open(base::Fs::Default(), w.path);
    auto it = (*reader)->NewIterator();
    format::RecordRef r;
    uint64_t bytes = 0;
    while (true) {
      auto next = (*it)->Next(&r);
      if (!next.ok()) state.SkipWithError(next.status().ToString().c_str());
      if (!next.ok() || !*next) break;
      bytes += r.bytes.size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.logical_size));
}

void BM_RawZstdDecompress(benchmark::State& state) {
  Workload& w = Written();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::string out(format::kMaxBlockRawBytes / 1024, '\0');
  for (auto _ : state) {
    for (size_t i = 0; i < w.stored_blocks.size(); ++i) {
      if (w.raw_lengths[i] > out.size()) out.resize(w.raw_lengths[i]);
      const std::string& s = w.stored_blocks[i];
      size_t n = ZSTD_decompressDCtx(dctx, out.data(), out.size(), s.data(), s.size());
      benchmark::DoNotOptimize(n);
    }
  }
  ZSTD_freeDCtx(dctx);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.logical_size));
}

void BM_StateFileVerifyChecksums(benchmark::State& state) {
  Workload& w = Written();
  for (auto _ : state) {
    auto reader = format::StateFileReader::Open(base::Fs::Default(), w.path);
    auto s = (*reader)->VerifyChecksums();
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.file_size));
}

void BM_RawXxh3File(benchmark::State& state) {
  Workload& w = Written();
  std::unique_ptr<char[]> buf(new char[kVerifyChunkBytes]);
  XXH3_state_t* st = XXH3_createState();
  for (auto _ : state) {
    auto file = base::Fs::Default().OpenRead(w.path);
    XXH3_64bits_reset(st);
    for (uint64_t off = 0; off < w.file_size;) {
      auto n = (*file)->ReadAt(off, kVerifyChunkBytes, buf.get());
      if (!n.ok() || *n == 0) break;
      XXH3_64bits_update_dispatch(st, buf.get(), *n);
      off += *n;
    }
    benchmark::DoNotOptimize(XXH3_64bits_digest(st));
  }
  XXH3_freeState(st);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.file_size));
}

void BM_RawXxh3Memory(benchmark::State& state) {
  Workload& w = Written();
  for (auto _ : state) {
    benchmark::DoNotOptimize(XXH3_64bits_dispatch(w.file_bytes.data(), w.file_bytes.size()));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.file_size));
}

// Interleaved with their baselines so a noisy neighbour hurts both sides alike.
BENCHMARK(BM_StateFileWrite)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_RawZstdDecompress)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_StateFileFullRead)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_RawXxh3File)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_StateFileVerifyChecksums)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_RawXxh3Memory)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// Console output plus the best MB/s of each benchmark (over repetitions) for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
      auto it = r.counters.find("bytes_per_second");
      if (it == r.counters.end()) continue;
      double& best = mbps_[r.run_name.function_name];
      best = std::max(best, it->second.value / 1e6);
      // The same rate per CPU second (user + system): steadier on a loaded machine.
      if (r.cpu_accumulated_time > 0) {
        double& best_cpu = cpu_mbps_[r.run_name.function_name];
        best_cpu = std::max(best_cpu, it->second.value / 1e6 * r.real_accumulated_time /
                                          r.cpu_accumulated_time);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void PrintSummary() const {
    std::printf("\nState-file container, MB/s (best run; logical bytes for write/read/zstd, "
                "file bytes for checksums):\n");
    std::printf("  %-30s %10s %14s\n", "", "wall-clock", "per CPU second");
    for (const auto& [name, mbps] : mbps_) {
      auto cpu = cpu_mbps_.find(name);
      std::printf("  %-30s %10.1f %14.1f\n", name.c_str(), mbps,
                  cpu == cpu_mbps_.end() ? 0.0 : cpu->second);
    }
    for (const auto* rates : {&mbps_, &cpu_mbps_}) {
      std::printf("Ratios (%s):\n", rates == &mbps_ ? "wall-clock" : "per CPU second");
      Ratio(*rates, "checksum-only / raw XXH3 (chunked pread)", "BM_StateFileVerifyChecksums",
            "BM_RawXxh3File", 0.70);
      Ratio(*rates, "checksum-only / raw XXH3 (in memory)", "BM_StateFileVerifyChecksums",
            "BM_RawXxh3Memory", 0);
      Ratio(*rates, "full read / raw zstd decompression", "BM_StateFileFullRead",
            "BM_RawZstdDecompress", 0.70);
    }
  }

 private:
  static void Ratio(const std::map<std::string, double>& rates, const char* label,
                    const char* num, const char* den, double target) {
    auto n = rates.find(num), d = rates.find(den);
    if (n == rates.end() || d == rates.end() || d->second <= 0) return;
    const double ratio = n->second / d->second;
    if (target > 0) {
      std::printf("  %-44s %.2fx  (target >= %.2fx: %s)\n", label, ratio, target,
                  ratio >= target ? "met" : "NOT MET");
    } else {
      std::printf("  %-44s %.2fx\n", label, ratio);
    }
  }

  std::map<std::string, double> mbps_;
  std::map<std::string, double> cpu_mbps_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSummary();
  benchmark::Shutdown();
  if (g_data != nullptr) base::RemoveAll(base::Fs::Default(), g_data->dir).IgnoreError();
  return 0;
}
