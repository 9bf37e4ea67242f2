// TempDir: a fresh directory under $TMPDIR (or /tmp), removed with everything in it on
// destruction. Plus paths of the source tree's fixtures.
#pragma once

#include <string>
#include <vector>

namespace ckpt::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // path()/name
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// <source dir>/fixtures/<rel>
std::string FixturePath(const std::string& rel);

// The real Apache Flink snapshots of fixtures/flink (each directory's name), sorted: every test
// that runs over all of them takes its list from here, so a new fixture joins each one.
std::vector<std::string> FlinkFixtureNames();

// The whole file at `path`; a test failure and "" when it cannot be read.
std::string ReadBytes(const std::string& path);

// Whether `path` exists (any kind of file).
bool Exists(const std::string& path);

// The job id of fixtures/v1's checkpoints.
inline const std::string kFixtureV1Job = "1a2b3c4d5e6f708192a3b4c5d6e7f801";

// Copies a directory tree (files and subdirectories) from `from` to `to` (created).
void CopyTree(const std::string& from, const std::string& to);

}  // namespace ckpt::testing
