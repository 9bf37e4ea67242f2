#include "ckpt/testing/temp_dir.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace ckpt::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ckpt-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string FixturePath(const std::string& rel) {
  return std::string(CKPT_SOURCE_DIR) + "/fixtures/" + rel;
}

std::vector<std::string> FlinkFixtureNames() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(FixturePath("flink"))) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) throw std::runtime_error("no snapshot in " + FixturePath("flink"));
  return names;
}

void CopyTree(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

}  // namespace ckpt::testing
