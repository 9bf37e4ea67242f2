// What the REST API tells about the engine process (the one task manager and job manager of a
// ckpt-engine run): host, CPU cores, memory, threads and CPU time from /proc, the command line,
// and the files its standard output and error go to. Linux; plain functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::engine::rest {

struct ProcessInfo {
  std::string hostname;
  int64_t pid = 0;
  uint32_t cpu_cores = 0;
  // /proc/meminfo MemTotal and MemAvailable (0 if unreadable).
  uint64_t physical_memory_bytes = 0;
  uint64_t available_memory_bytes = 0;
  // /proc/self/status VmRSS and Threads.
  uint64_t rss_bytes = 0;
  uint32_t threads = 0;
  // malloc's heap: bytes in use and bytes obtained from the system (mallinfo2).
  uint64_t heap_used_bytes = 0;
  uint64_t heap_committed_bytes = 0;
  // User + system CPU time of the process (/proc/self/stat), nanoseconds.
  uint64_t cpu_time_ns = 0;
  // /proc/self/cmdline.
  std::vector<std::string> argv;
  // uname: machine and kernel.
  std::string arch;
  std::string os;
};

ProcessInfo ReadProcessInfo();

// The task manager id the REST API gives the engine process ("ckpt-engine-<pid>").
std::string TaskManagerId();

// Where file descriptor `fd` (1: stdout, 2: stderr) points when it is a regular file.
std::optional<std::string> RegularFileOfFd(int fd);

// The last `max_bytes` of regular file `path`, or nullopt if it cannot be read.
std::optional<std::string> TailOfFile(const std::string& path, uint64_t max_bytes);

}  // namespace ckpt::engine::rest
