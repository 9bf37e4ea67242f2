// bench_s3: ckpt-tool against an S3-compatible server, each number against a baseline measured
// in the same run (bench/s3/run_s3_bench.sh starts s3proxy on a disk blobstore and runs this).
//   1. upload: `ckpt-tool relocate LOCAL --to s3://…` of a >= 1 GiB savepoint (reported);
//   2. `ckpt-tool validate --deep s3://…` vs downloading the same objects with curl one after
//      another (target >= 1.5x), on the local link and behind an emulated wide-area link (a
//      round trip per request, a bandwidth cap per connection: CKPT_BENCH_WAN_RTT_MS, default
//      20, and CKPT_BENCH_WAN_MIBPS, default 25);
//   3. a root of 10,000 objects: `ckpt-tool ls` and `ckpt-tool prune --dry-run` (which lists every
//      object) vs the bare ListObjectsV2 pages of the root (S3Client::ListAll, in process).
// Measurements are taken in turns (ours, baseline, ours, ...) and the median of the runs is
// compared. Configuration: the S3 environment variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_REGION); CKPT_BENCH_MB (default 1100) sizes the savepoint;
// CKPT_BENCH_RUNS (default 3) the runs; CKPT_BENCH_BUCKET (default ckpt-bench) the bucket.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../ckpt-tool/bench_data.h"
#include "ckpt/base/fs.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_config.h"
#include "fault_proxy.h"

namespace ckpt::bench {
namespace {

struct Run {
  double wall_s = 0;
  double cpu_s = 0;  // user + sys of the child processes
};

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double ChildrenCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto s = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// Runs argv with stdout to /dev/null; exit status (-1 when it could not start or was killed).
int Spawn(const std::vector<std::string>& argv, bool quiet_stderr = false) {
  std::fflush(stdout);  // else the child's freopen flushes our buffered lines a second time
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(127);
    if (quiet_stderr && std::freopen("/dev/null", "w", stderr) == nullptr) _exit(127);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// Times `work` (which spawns processes): wall and the children's CPU.
template <typename F>
Run Measure(F&& work) {
  const double cpu0 = ChildrenCpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  work();
  return {Seconds(std::chrono::steady_clock::now() - t0), ChildrenCpuSeconds() - cpu0};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Series {
  std::string name;
  std::vector<Run> runs;
  double wall() const {
    std::vector<double> w;
    for (const Run& r : runs) w.push_back(r.wall_s);
    return Median(w);
  }
  double cpu() const {
    std::vector<double> c;
    for (const Run& r : runs) c.push_back(r.cpu_s);
    return Median(c);
  }
};

void PrintSeries(const Series& s, uint64_t bytes) {
  std::printf("  %-44s median wall %8.3f s  cpu %8.3f s", s.name.c_str(), s.wall(), s.cpu());
  if (bytes > 0) std::printf("  %7.1f MiB/s", static_cast<double>(bytes) / (1 << 20) / s.wall());
  std::printf("  (runs:");
  for (const Run& r : s.runs) std::printf(" %.3f", r.wall_s);
  std::printf(")\n");
}

void PrintRatio(const Series& ours, const Series& baseline, double target) {
  const double ratio = baseline.wall() / ours.wall();
  std::printf("  ratio %s vs %s: %.2fx faster (wall; target >= %.1fx: %s)\n", ours.name.c_str(),
              baseline.name.c_str(), ratio, target, ratio >= target ? "met" : "NOT met");
}

std::string FindCkptTool() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return {};
  // <build>/bench/bench_s3 -> <build>/ckpt-tool/ckpt-tool
  const std::string exe(self, static_cast<size_t>(n));
  const std::string tool = base::DirName(base::DirName(exe)) + "/ckpt-tool/ckpt-tool";
  return access(tool.c_str(), X_OK) == 0 ? tool : std::string();
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

int Fail(const std::string& what) {
  std::cerr << "bench_s3: " << what << "\n";
  return 2;
}

constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// The URL of an object, path-style (the bench runs against a local server).
std::string ObjectUrl(const s3::S3Config& c, const std::string& bucket, const std::string& key) {
  return c.endpoint + "/" + bucket + "/" + key;
}

// Puts one object of `bytes` bytes under each of `keys`, 16 requests at a time.
base::Status PutObjects(s3::S3Client& client, const std::string& bucket,
                        const std::vector<std::string>& keys, size_t bytes) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  base::Status first;
  std::mutex mu;
  const std::string body(bytes, 'x');
  std::vector<std::thread> pool;
  for (int t = 0; t < 16; ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < keys.size() && !failed; i = next++) {
        base::Status st = client.Put(bucket, keys[i], body);
        if (!st.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          if (!failed.exchange(true)) first = st;
        }
      }
    });
  }
  for (std::thread& t : pool) t.join();
  return first;
}

}  // namespace
}  // namespace ckpt::bench

int main() {
  using namespace ckpt;         // NOLINT
  using namespace ckpt::bench;  // NOLINT
  const std::string tool = FindCkptTool();
  if (tool.empty()) return Fail("ckpt-tool is not built next to this benchmark");
  auto config = s3::LoadS3Config(s3::ProcessEnvironment());
  if (!config.ok()) return Fail("S3 configuration: " + config.status().ToString());
  auto client = s3::S3Client::Create(*config);
  if (!client.ok()) return Fail(client.status().ToString());
  const std::string bucket =
      std::getenv("CKPT_BENCH_BUCKET") != nullptr ? std::getenv("CKPT_BENCH_BUCKET") : "ckpt-bench";
  const int runs = std::max(1, EnvInt("CKPT_BENCH_RUNS", 3));
  base::Status st = (*client)->CreateBucket(bucket);
  if (!st.ok() && st.code() != base::StatusCode::kAlreadyExists) return Fail(st.ToString());

  char tmpl[] = "/tmp/bench_s3.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return Fail("mkdtemp failed");
  const std::string scratch = tmpl;
  std::printf("bench_s3: %s; %d runs in turns; ckpt-tool %s\n", config->Describe().c_str(),
              runs, tool.c_str());

  // 1. A >= 1 GiB savepoint, uploaded by relocate.
  SavepointSpec spec;
  spec.target_disk_bytes = static_cast<uint64_t>(EnvInt("CKPT_BENCH_MB", 1100)) << 20;
  SavepointData data;
  st = WriteBigSavepoint(spec, scratch + "/savepoint", scratch + "/records.zst", &data);
  if (!st.ok()) return Fail("generating the savepoint: " + st.ToString());
  std::printf("savepoint: %zu state files, %.1f MiB on disk, %llu records\n", data.files.size(),
              static_cast<double>(data.disk_bytes) / (1 << 20),
              static_cast<unsigned long long>(data.records));
  const std::string remote = "s3://" + bucket + "/savepoint-big";
  Spawn({tool, "prune", "--help"}, true);  // warm the binary's pages
  Series upload{"ckpt-tool relocate LOCAL --to s3:// (upload)", {}};
  upload.runs.push_back(Measure([&] {
    if (Spawn({tool, "relocate", data.dir, "--to", remote}) != 0) {
      std::exit(Fail("relocate to " + remote + " failed"));
    }
  }));

  auto listed = (*client)->ListAll(bucket, "savepoint-big/", "");
  if (!listed.ok()) return Fail(listed.status().ToString());
  uint64_t remote_bytes = 0;
  for (const auto& o : listed->objects) remote_bytes += o.size_bytes;
  std::printf("on S3: %zu objects, %.1f MiB\n", listed->objects.size(),
              static_cast<double>(remote_bytes) / (1 << 20));

  // 2. validate --deep vs curl one object after another.
  const s3::S3Config& c = *config;
  const std::string sigv4 = "aws:amz:" + c.region + ":s3";
  const std::string user = c.credentials.access_key_id + ":" + c.credentials.secret_access_key;
  Series deep{"ckpt-tool validate --deep s3://", {}};
  Series curl{"curl, each object in turn", {}};
  for (int r = 0; r < runs; ++r) {
    deep.runs.push_back(Measure([&] {
      if (Spawn({tool, "validate", "--deep", remote}) != 0) {
        std::exit(Fail("validate --deep " + remote + " did not say ok"));
      }
    }));
    curl.runs.push_back(Measure([&] {
      for (const auto& o : listed->objects) {
        // curl signs the header it is given; the server wants the empty body's SHA-256 named.
        if (Spawn({"curl", "-s", "-f", "--aws-sigv4", sigv4, "--user", user, "-H",
                   "x-amz-content-sha256: " + std::string(kEmptySha256), "-o", "/dev/null",
                   ObjectUrl(c, bucket, o.key)}) != 0) {
          std::exit(Fail("curl GET " + o.key + " failed"));
        }
      }
    }));
  }

  // 2b. The same behind an emulated wide-area link (the test FaultProxy with SetLink): every
  // request waits a round trip, and each connection streams at most CKPT_BENCH_WAN_MIBPS MiB/s,
  // as a distant store serves one stream. Parallel ranged GETs overlap what one download after
  // another waits for; on the local link above, nothing is waited for.
  const int wan_rtt_ms = EnvInt("CKPT_BENCH_WAN_RTT_MS", 20);
  const int wan_mibps = EnvInt("CKPT_BENCH_WAN_MIBPS", 25);
  auto proxy = s3::testing::FaultProxy::Start(c.endpoint);
  if (!proxy.ok()) return Fail("starting the link-emulating proxy: " + proxy.status().ToString());
  (*proxy)->SetLink(wan_rtt_ms, int64_t{wan_mibps} << 20);
  const std::string wan = "behind a " + std::to_string(wan_rtt_ms) + " ms, " +
                          std::to_string(wan_mibps) + " MiB/s-per-connection link";
  Series wan_deep{"ckpt-tool validate --deep s3:// (" + wan + ")", {}};
  Series wan_curl{"curl, each object in turn (" + wan + ")", {}};
  s3::S3Config proxied = c;
  proxied.endpoint = (*proxy)->endpoint();
  const std::string local_endpoint = c.endpoint;
  for (int r = 0; r < runs; ++r) {
    setenv("AWS_ENDPOINT_URL", proxied.endpoint.c_str(), 1);
    wan_deep.runs.push_back(Measure([&] {
      if (Spawn({tool, "validate", "--deep", remote}) != 0) {
        std::exit(Fail("validate --deep " + remote + " through the proxy did not say ok"));
      }
    }));
    setenv("AWS_ENDPOINT_URL", local_endpoint.c_str(), 1);
    wan_curl.runs.push_back(Measure([&] {
      for (const auto& o : listed->objects) {
        if (Spawn({"curl", "-s", "-f", "--aws-sigv4", sigv4, "--user", user, "-H",
                   "x-amz-content-sha256: " + std::string(kEmptySha256), "-o", "/dev/null",
                   ObjectUrl(proxied, bucket, o.key)}) != 0) {
          std::exit(Fail("curl GET " + o.key + " through the proxy failed"));
        }
      }
    }));
  }
  proxy->reset();

  // 3. A root of 10,000 objects: 100 checkpoints of 16 state files and a _metadata each (the
  // savepoint's metadata, so ls reads real snapshots), and shared/ files up to 10,000.
  const std::string root_prefix = "root-10k/";
  auto metadata = base::ReadFileToString(base::Fs::Default(), data.dir + "/_metadata");
  if (!metadata.ok()) return Fail(metadata.status().ToString());
  std::vector<std::string> keys;
  for (int chk = 1; chk <= 100; ++chk) {
    for (int f = 0; f < 16; ++f) {
      keys.push_back(root_prefix + "chk-" + std::to_string(chk) + "/state-" + std::to_string(f));
    }
  }
  for (size_t i = keys.size() + 100; i < 10'000; ++i) {
    keys.push_back(root_prefix + "shared/" + std::to_string(i));
  }
  st = PutObjects(**client, bucket, keys, 64);
  for (int chk = 1; chk <= 100 && st.ok(); ++chk) {
    st = (*client)->Put(bucket, root_prefix + "chk-" + std::to_string(chk) + "/_metadata",
                        *metadata);
  }
  if (!st.ok()) return Fail("filling the 10,000-object root: " + st.ToString());
  const std::string root = "s3://" + bucket + "/" + root_prefix;
  Series ls{"ckpt-tool ls (10,000 objects)", {}};
  Series prune{"ckpt-tool prune --dry-run (10,000 objects)", {}};
  Series list{"ListObjectsV2 pages of the root (in process)", {}};
  size_t listed_root = 0;
  for (int r = 0; r < runs; ++r) {
    // ls exits 1 when some snapshot is not restorable (their state files are filler): the time
    // counts, the verdict does not.
    ls.runs.push_back(Measure([&] { Spawn({tool, "ls", root}, true); }));
    prune.runs.push_back(Measure([&] { Spawn({tool, "prune", "--dry-run", root}, true); }));
    const auto t0 = std::chrono::steady_clock::now();
    auto all = (*client)->ListAll(bucket, root_prefix, "");
    if (!all.ok()) return Fail(all.status().ToString());
    listed_root = all->objects.size();
    list.runs.push_back({Seconds(std::chrono::steady_clock::now() - t0), 0});
  }

  std::printf("\n== results (median of %d runs taken in turns) ==\n", runs);
  PrintSeries(upload, remote_bytes);
  PrintSeries(deep, remote_bytes);
  PrintSeries(curl, remote_bytes);
  PrintRatio(deep, curl, 1.5);
  PrintSeries(wan_deep, remote_bytes);
  PrintSeries(wan_curl, remote_bytes);
  PrintRatio(wan_deep, wan_curl, 1.5);
  std::printf("  root: %zu objects listed\n", listed_root);
  PrintSeries(ls, 0);
  PrintSeries(prune, 0);
  PrintSeries(list, 0);
  std::printf("  ls / bare listing: %.2fx the time; prune --dry-run / bare listing: %.2fx\n",
              ls.wall() / list.wall(), prune.wall() / list.wall());
  base::RemoveAll(base::Fs::Default(), scratch).IgnoreError();
  return 0;
}
