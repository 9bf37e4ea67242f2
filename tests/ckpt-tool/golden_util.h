// Runs the built ckpt-tool binary and compares its output with golden files in
// tests/ckpt-tool/golden/ (CKPT_UPDATE_GOLDEN=1 rewrites them instead). Not thread-safe.
#pragma once

#include <string>
#include <vector>

namespace ckpt::testing {

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs ckpt-tool with `args` in working directory `cwd` (stdin closed). Pass relative paths so
// the output is the same on every machine.
ToolRun RunTool(const std::vector<std::string>& args, const std::string& cwd);

// Compares `actual` with golden/<name>; on mismatch the test fails with the first differing
// line. With CKPT_UPDATE_GOLDEN=1 the file is (re)written and the test passes.
void ExpectGolden(const std::string& name, const std::string& actual);

}  // namespace ckpt::testing
