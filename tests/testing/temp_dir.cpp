#include "ckpt/testing/temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "ckpt/base/fs.h"

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

std::string ReadBytes(const std::string& path) {
  base::Result<std::string> bytes = base::ReadFileToString(base::Fs::Default(), path);
  if (!bytes.ok()) {
    ADD_FAILURE() << bytes.status().ToString();
    return "";
  }
  return std::move(bytes).value();
}

bool Exists(const std::string& path) { return base::Fs::Default().Stat(path).ok(); }

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
