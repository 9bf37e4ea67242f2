// RunTool (fork/exec with pipes) and golden-file comparison.
#include "golden_util.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ckpt/testing/temp_dir.h"

namespace ckpt::testing {

ToolRun RunTool(const std::vector<std::string>& args, const std::string& cwd,
                uint64_t address_space_bytes) {
  ToolRun run;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) {
    ADD_FAILURE() << "pipe failed";
    return run;
  }
  std::vector<std::string> argv_store = {CKPT_TOOL_PATH};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Under an address-space limit, glibc's per-thread malloc arenas (64 MiB of address space
  // each) of a tool that starts threads (RocksDB's) would exhaust the limit on a busy machine
  // and fail thread creation: two arenas keep the bound about hostile values, not about threads.
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) env_store.emplace_back(*e);
  if (address_space_bytes > 0) env_store.emplace_back("MALLOC_ARENA_MAX=2");
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(127);
    if (address_space_bytes > 0) {
      const rlimit limit{address_space_bytes, address_space_bytes};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(126);
    }
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]);
    close(err_pipe[0]);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(CKPT_GOLDEN_DIR) + "/" + name;
  const char* update = std::getenv("CKPT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run with CKPT_UPDATE_GOLDEN=1 to create it)";
  const std::string expected((std::istreambuf_iterator<char>(in)), {});
  if (expected == actual) return;
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  while (true) {
    const bool he = static_cast<bool>(std::getline(e, el));
    const bool ha = static_cast<bool>(std::getline(a, al));
    if (!he && !ha) break;
    if (!he || !ha || el != al) {
      ADD_FAILURE() << name << " differs at line " << line << "\n  expected: "
                    << (he ? el : "<eof>") << "\n  actual:   " << (ha ? al : "<eof>");
      return;
    }
    ++line;
  }
  ADD_FAILURE() << name << " differs (line endings or trailing bytes)";
}

namespace {
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif
}  // namespace

ToolRun RunToolBounded(const std::vector<std::string>& args) {
  constexpr uint64_t kAddressSpaceLimit = uint64_t{1} << 30;
  return RunTool(args, ".", kAddressSanitizer ? 0 : kAddressSpaceLimit);
}

void ExpectToolGolden(const std::string& name, const std::vector<std::string>& args, int exit_code) {
  SCOPED_TRACE(name);
  ToolRun run = RunTool(args, FixturePath(""));
  EXPECT_EQ(run.exit_code, exit_code) << "stderr: " << run.err;
  ExpectGolden(name, run.out);
}

}  // namespace ckpt::testing
