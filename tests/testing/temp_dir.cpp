#include "ckpt/testing/temp_dir.h"

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

void CopyTree(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

}  // namespace ckpt::testing
