// diagnose: what a snapshot directory that does not open holds and lacks, with validate's
// findings for why (no checksum reads).
#include "ckpt/ops/diagnose.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;

bool DiagnosisHasRule(const SnapshotDiagnosis& d, const std::string& rule) {
  return std::any_of(d.findings.begin(), d.findings.end(),
                     [&](const Finding& f) { return f.rule_id == rule; });
}

TEST(DiagnoseTest, ADirectoryWithoutMetadataMissesIt) {
  TempDir tmp;
  const std::string dir = tmp.Sub("chk-9");
  ASSERT_OK(base::Fs::Default().CreateDirs(dir));
  testing::WriteTextFile(dir + "/partial-upload.state", "partial");
  ASSERT_OK_AND_ASSIGN(SnapshotDiagnosis d, DiagnoseSnapshot(base::Fs::Default(), dir));
  EXPECT_FALSE(d.has_metadata);
  EXPECT_FALSE(d.load_error.empty());
  EXPECT_TRUE(DiagnosisHasRule(d, "CKPT-M001"));
  EXPECT_EQ(d.missing, std::vector<std::string>{"_metadata"});
  ASSERT_EQ(d.present.size(), 1u);
  EXPECT_EQ(d.present[0].name, "partial-upload.state");
  EXPECT_EQ(d.present[0].size_bytes, 7u);
  EXPECT_FALSE(d.present[0].is_dir);
}

TEST(DiagnoseTest, AMissingReferencedFileIsListedAsMissing) {
  ASSERT_OK_AND_ASSIGN(SnapshotDiagnosis d,
                       DiagnoseSnapshot(base::Fs::Default(),
                                        testing::FixturePath("corrupt/missing-referenced-file")));
  EXPECT_TRUE(d.has_metadata);
  EXPECT_TRUE(DiagnosisHasRule(d, "CKPT-F001"));
  ASSERT_EQ(d.missing.size(), 1u);
  EXPECT_NE(d.missing[0], "_metadata");
  EXPECT_TRUE(std::none_of(d.present.begin(), d.present.end(),
                           [&](const DiagnosedEntry& e) { return e.name == d.missing[0]; }));
  EXPECT_TRUE(std::any_of(d.present.begin(), d.present.end(),
                          [](const DiagnosedEntry& e) { return e.name == "_metadata"; }));
  EXPECT_TRUE(std::is_sorted(d.present.begin(), d.present.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
}

TEST(DiagnoseTest, ACorruptMetadataFileSaysWhyThroughItsFile) {
  const std::string path = testing::FixturePath("corrupt/truncated-metadata/_metadata");
  ASSERT_OK_AND_ASSIGN(SnapshotDiagnosis d, DiagnoseSnapshot(base::Fs::Default(), path));
  EXPECT_EQ(d.dir, testing::FixturePath("corrupt/truncated-metadata"));
  EXPECT_TRUE(d.has_metadata);
  EXPECT_TRUE(d.missing.empty());
  EXPECT_NE(d.load_error.find("truncated"), std::string::npos) << d.load_error;
  EXPECT_TRUE(DiagnosisHasRule(d, "CKPT-M004"));
}

TEST(DiagnoseTest, AHealthySnapshotHasNothingMissing) {
  ASSERT_OK_AND_ASSIGN(SnapshotDiagnosis d,
                       DiagnoseSnapshot(base::Fs::Default(), testing::FixturePath("v1/savepoint")));
  EXPECT_TRUE(d.load_error.empty());
  EXPECT_TRUE(d.missing.empty());
  EXPECT_FALSE(DiagnosisHasRule(d, "CKPT-F001"));
}

TEST(DiagnoseTest, ANonexistentPathIsNotFound) {
  TempDir tmp;
  auto d = DiagnoseSnapshot(base::Fs::Default(), tmp.Sub("nothing-here"));
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(d.status().IsNotFound());
}

}  // namespace
}  // namespace ckpt::ops
