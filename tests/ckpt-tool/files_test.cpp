// Tests of ops::ListFiles (ops/src/read/files.cpp).
#include "ckpt/ops/files.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

TEST(FilesTest, ListsOwnersLocationsAndReferences) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(),
                                                FixturePath("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2")));
  ASSERT_OK_AND_ASSIGN(auto rows, ListFiles(base::Fs::Default(), s));
  ASSERT_EQ(rows.size(), s.files.size());
  bool saw_shared = false, saw_taskowned = false;
  for (const auto& r : rows) {
    EXPECT_TRUE(r.exists) << r.path;
    EXPECT_EQ(static_cast<uint64_t>(r.actual_size), r.size_bytes);
    EXPECT_FALSE(r.referenced_by.empty()) << r.path;
    if (r.scope == FileScope::kShared) {
      saw_shared = true;
      EXPECT_EQ(r.owner, "shared (chk-1)");
      EXPECT_EQ(r.location, "../shared/" + r.path);
    }
    if (r.scope == FileScope::kTaskOwned) {
      saw_taskowned = true;
      EXPECT_EQ(r.location, "../taskowned/" + r.path);
    }
  }
  EXPECT_TRUE(saw_shared);
  EXPECT_TRUE(saw_taskowned);
}

TEST(FilesTest, MissingFileIsReportedNotAnError) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(),
                                                FixturePath("corrupt/missing-referenced-file")));
  ASSERT_OK_AND_ASSIGN(auto rows, ListFiles(base::Fs::Default(), s));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].exists);
  EXPECT_EQ(rows[0].actual_size, -1);
  EXPECT_EQ(rows[0].referenced_by, std::vector<std::string>{"tiny-count/0"});
}

TEST(FilesTest, CoordinatorStateFileIsAttributed) {
  testing::TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  // Point the coordinator at an existing file (kind checks are validate's job).
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    m.mutable_operators(0)->mutable_coordinator_state()->set_file_index(5);
  }));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), tmp.Sub("sp")));
  ASSERT_OK_AND_ASSIGN(auto rows, ListFiles(base::Fs::Default(), s));
  EXPECT_EQ(rows[5].referenced_by,
            (std::vector<std::string>{"orders-source/coordinator", "watermark-tracker/1"}));
}

}  // namespace
}  // namespace ckpt::ops
