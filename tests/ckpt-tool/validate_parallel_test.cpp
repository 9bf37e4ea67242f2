// Tests of validate's checks on several threads (ops/src/validate/parallel_checks.h): the answer
// is the same as one thread's, whatever the order the threads finish in.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::TempDir;

std::string FindingsText(const ValidateReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule_id + " " + f.location.file + ": " + f.message + "\n";
  return s;
}

ValidateReport ValidateOk(const std::string& path, const ValidateOptions& options) {
  auto r = Validate(base::Fs::Default(), path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ValidateReport{};
}

// The files are checked on several workers at once: damage in several files is each reported,
// with the same report every run (the workers' reports are joined in file-table order).
TEST(ValidateTest, DamageInSeveralFilesIsReportedAlikeEveryRun) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  std::vector<std::string> states;
  for (const auto& e : std::filesystem::directory_iterator(tmp.Sub("sp"))) {
    if (e.path().extension() == ".state") states.push_back(e.path().filename().string());
  }
  std::sort(states.begin(), states.end());
  ASSERT_GE(states.size(), 4u);
  ValidateOptions deep;
  deep.deep = true;
  const uint64_t clean_files = ValidateOk(tmp.Sub("sp"), deep).files_checked;
  testing::FlipByte(tmp.Sub("sp/" + states[0]), 40);
  testing::TruncateFile(tmp.Sub("sp/" + states[1]),
                        std::filesystem::file_size(tmp.Sub("sp/" + states[1])) / 2);
  std::filesystem::remove(tmp.Sub("sp/" + states[2]));
  const ValidateReport first = ValidateOk(tmp.Sub("sp"), deep);
  const auto reported = [&](const std::string& rule, const std::string& file) {
    return std::any_of(first.findings.begin(), first.findings.end(), [&](const Finding& f) {
      return f.rule_id == rule && f.location.file == file;
    });
  };
  EXPECT_TRUE(reported("CKPT-F003", states[0])) << FindingsText(first);
  EXPECT_TRUE(reported("CKPT-F002", states[1])) << FindingsText(first);
  EXPECT_TRUE(reported("CKPT-F001", states[2])) << FindingsText(first);
  for (const auto& f : first.findings) {
    EXPECT_NE(f.location.file, states[3]) << "an undamaged file was reported: " << FindingsText(first);
  }
  EXPECT_EQ(first.files_checked, clean_files - 1);
  for (int run = 0; run < 5; ++run) {
    const ValidateReport again = ValidateOk(tmp.Sub("sp"), deep);
    EXPECT_EQ(FindingsText(again), FindingsText(first));
    EXPECT_EQ(again.records_checked, first.records_checked);
    EXPECT_EQ(again.bytes_checked, first.bytes_checked);
  }
}

}  // namespace
}  // namespace ckpt::ops
