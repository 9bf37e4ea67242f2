// Every ckpt-tool verb finds the filesystem of a location it is given through base::ResolveFs:
// a file: URI names the same snapshot as its bare path; an unknown scheme is a usage error
// (exit 2) naming the scheme and the built-in ones, and nothing is read or written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

std::string CliFsResolveAbs(const std::string& rel) {
  return std::filesystem::absolute(FixturePath(rel)).lexically_normal().string();
}

void ExpectUnknownScheme(const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : args) line += a + " ";
  SCOPED_TRACE(line);
  ToolRun run = RunTool(args, FixturePath(""));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("'s3x:'"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("file:"), std::string::npos) << run.err;
}

TEST(CliFsResolveTest, AnUnknownSchemeExitsTwoNamingIt) {
  ExpectUnknownScheme({"ls", "s3x://b/k"});
  ExpectUnknownScheme({"show", "s3x://b/k"});
  ExpectUnknownScheme({"files", "s3x://b/k"});
  ExpectUnknownScheme({"dump", "s3x://b/k"});
  ExpectUnknownScheme({"stats", "s3x://b/k"});
  ExpectUnknownScheme({"validate", "s3x://b/k"});
  ExpectUnknownScheme({"prune", "s3x://b/k"});
  ExpectUnknownScheme({"history", "s3x://b/k"});
  ExpectUnknownScheme({"growth", "s3x://b/k"});
  ExpectUnknownScheme({"diagnose", "s3x://b/k"});
  ExpectUnknownScheme({"diff", "v1/savepoint", "s3x://b/k"});
}

TEST(CliFsResolveTest, AnUnknownSchemeForTheOutputWritesNothing) {
  TempDir tmp;
  for (const char* verb : {"relocate", "remap", "rescale-max-parallelism"}) {
    std::vector<std::string> args = {verb, "v1/savepoint", "--to", "s3x://b/out"};
    if (std::string(verb) == "remap") args.insert(args.end(), {"--map", "a=b"});
    if (std::string(verb) == "rescale-max-parallelism") {
      args.insert(args.end(), {"--max-parallelism", "256"});
    }
    ExpectUnknownScheme(args);
  }
  EXPECT_FALSE(std::filesystem::exists(FixturePath("s3x:")));
}

TEST(CliFsResolveTest, AFileUriNamesTheSameSnapshotAsItsPath) {
  const std::string abs = CliFsResolveAbs("v1/savepoint");
  ToolRun bare = RunTool({"show", abs, "--format", "json"}, FixturePath(""));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  for (const std::string& uri : {"file://" + abs, "file:" + abs, "file://localhost" + abs}) {
    ToolRun run = RunTool({"show", uri, "--format", "json"}, FixturePath(""));
    EXPECT_EQ(run.exit_code, 0) << uri << ": " << run.err;
    EXPECT_EQ(run.out, bare.out) << uri;
  }
}

TEST(CliFsResolveTest, AFileUriOfAnotherHostIsRefused) {
  ToolRun run = RunTool({"ls", "file://elsewhere/tmp"}, FixturePath(""));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("elsewhere"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace ckpt::testing
