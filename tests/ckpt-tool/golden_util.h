// Runs the built ckpt-tool binary and compares its output with golden files in
// tests/ckpt-tool/golden/ (CKPT_UPDATE_GOLDEN=1 rewrites them instead). Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::testing {

struct ToolRun {
  int exit_code = -1;  // 128 + signal number when a signal ended it
  std::string out;
  std::string err;
};

// Runs ckpt-tool with `args` in working directory `cwd` (stdin closed). Pass relative paths so
// the output is the same on every machine. `address_space_bytes` > 0 runs it under RLIMIT_AS of
// that size, so an allocation sized by a hostile value fails (std::bad_alloc: SIGABRT, exit
// 134) instead of swapping the machine; a limit that cannot be set exits 126.
ToolRun RunTool(const std::vector<std::string>& args, const std::string& cwd,
                uint64_t address_space_bytes = 0);

// RunTool in "." under the address-space bound every hostile-input test holds a verb to (1 GiB:
// far above what a few-KiB snapshot needs, far below what a hostile count would ask for); no
// bound under AddressSanitizer, which reserves terabytes of shadow memory up front.
ToolRun RunToolBounded(const std::vector<std::string>& args);

// Compares `actual` with golden/<name>; on mismatch the test fails with the first differing
// line. With CKPT_UPDATE_GOLDEN=1 the file is (re)written and the test passes.
void ExpectGolden(const std::string& name, const std::string& actual);

// Runs ckpt-tool `args` in fixtures/, checks its exit code and compares its stdout with
// golden/<name> (as ExpectGolden).
void ExpectToolGolden(const std::string& name, const std::vector<std::string>& args, int exit_code);

}  // namespace ckpt::testing
