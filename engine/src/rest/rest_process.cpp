// Process facts from /proc, uname and malloc for the cluster endpoints.
#include "rest/rest_process.h"

#include <malloc.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace ckpt::engine::rest {
namespace {

// "Key:   123 kB" lines of /proc files: the value in bytes (kB scaled), 0 if absent.
uint64_t KbField(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    uint64_t value = 0;
    std::string unit;
    fields >> value >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return 0;
}

uint64_t CpuTimeNs() {
  std::ifstream in("/proc/self/stat");
  std::string stat;
  std::getline(in, stat);
  // The command name (field 2) may hold spaces: fields are counted after its closing ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return 0;
  return (utime + stime) * (1000000000ULL / static_cast<uint64_t>(ticks));
}

}  // namespace

ProcessInfo ReadProcessInfo() {
  ProcessInfo p;
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0) p.hostname = host;
  p.pid = static_cast<int64_t>(getpid());
  p.cpu_cores = std::thread::hardware_concurrency();
  p.physical_memory_bytes = KbField("/proc/meminfo", "MemTotal");
  p.available_memory_bytes = KbField("/proc/meminfo", "MemAvailable");
  p.rss_bytes = KbField("/proc/self/status", "VmRSS");
  p.threads = static_cast<uint32_t>(KbField("/proc/self/status", "Threads"));
  const struct mallinfo2 mi = mallinfo2();
  p.heap_used_bytes = mi.uordblks + mi.hblkhd;
  p.heap_committed_bytes = mi.arena + mi.hblkhd;
  p.cpu_time_ns = CpuTimeNs();
  std::ifstream cmd("/proc/self/cmdline");
  std::string arg;
  while (std::getline(cmd, arg, '\0')) p.argv.push_back(arg);
  struct utsname u;
  if (uname(&u) == 0) {
    p.arch = u.machine;
    p.os = std::string(u.sysname) + " " + u.release;
  }
  return p;
}

std::string TaskManagerId() { return "ckpt-engine-" + std::to_string(getpid()); }

std::optional<std::string> RegularFileOfFd(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  char target[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return std::nullopt;
  return std::string(target, static_cast<size_t>(n));
}

std::optional<std::string> TailOfFile(const std::string& path, uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  if (size < 0) return std::nullopt;
  const std::streamoff from =
      static_cast<uint64_t>(size) > max_bytes ? size - static_cast<std::streamoff>(max_bytes) : 0;
  in.seekg(from);
  std::string out(static_cast<size_t>(size - from), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

}  // namespace ckpt::engine::rest
