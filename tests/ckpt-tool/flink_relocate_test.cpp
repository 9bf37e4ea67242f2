// relocate on Apache Flink snapshots: a snapshot whose handles name files by absolute path (as
// Flink's retained checkpoints do) becomes self-contained — every file copied in unchanged, every
// file handle relative, nothing else in `_metadata` changed — and survives a move; a moved
// snapshot whose absolute references dangle is refused naming the missing file, writing nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/ops/relocate.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::ops {
namespace {

using flink::StreamHandle;
using testing::TempDir;

const char kRelocateFixture[] =
    "new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint-native";

// Every stream handle of the snapshot that names a file.
void ForEachFileHandle(flink::Metadata* md, const std::function<void(StreamHandle*)>& fn) {
  std::function<void(flink::KeyedHandle*)> keyed = [&](flink::KeyedHandle* h) {
    if (h->key_groups) {
      auto kg = std::make_shared<flink::KeyGroupsHandle>(*h->key_groups);
      fn(&kg->delegate);
      h->key_groups = kg;
    }
    fn(&h->meta);
    for (auto* l : {&h->shared_files, &h->private_files}) {
      for (auto& f : *l) fn(&f.handle);
    }
    for (auto* l : {&h->materialized, &h->non_materialized}) {
      for (auto& k : *l) keyed(&k);
    }
  };
  for (auto& op : md->operators) {
    for (auto& st : op.subtasks) {
      for (auto* oh : {&st.managed_operator, &st.raw_operator}) {
        if (oh->has_value()) fn(&(*oh)->delegate);
      }
      keyed(&st.managed_keyed);
      keyed(&st.raw_keyed);
    }
  }
}

// A copy of the native RocksDB savepoint under `dir`/chk-7 whose handles are absolute paths
// (tag 2): the shape of a Flink retained checkpoint. Returns the number of file handles.
size_t WriteAbsoluteCopy(const std::string& dir) {
  const std::string chk = dir + "/chk-7";
  testing::CopyTree(testing::FixturePath(std::string("flink/") + kRelocateFixture), chk);
  auto md = flink::ReadFlinkMetadata(base::Fs::Default(), chk + "/_metadata");
  EXPECT_OK(md);
  size_t n = 0;
  ForEachFileHandle(&*md, [&](StreamHandle* h) {
    if (h->type != StreamHandle::Type::kRelativeFile) return;
    h->type = StreamHandle::Type::kFile;
    h->path = "file:" + chk + "/" + h->path;
    ++n;
  });
  EXPECT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), *md, chk + "/_metadata"));
  return n;
}

TEST(FlinkRelocateTest, AbsoluteHandlesBecomeRelativeAndTheCopySurvivesAMove) {
  TempDir tmp;
  const size_t handles = WriteAbsoluteCopy(tmp.Sub("job"));
  ASSERT_GT(handles, 0u);
  const std::string src = tmp.Sub("job/chk-7");
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), src, tmp.Sub("out")));
  EXPECT_FALSE(r.files.empty());
  EXPECT_EQ(r.bytes_copied, r.total_bytes);
  for (const auto& f : r.files) {
    EXPECT_EQ(testing::ReadBytes(tmp.Sub("out/" + f.output_path)),
              testing::ReadBytes(f.source_path))
        << f.output_path;
  }
  // Move the copy, remove the source: the copy alone must hold everything.
  std::filesystem::rename(tmp.Sub("out"), tmp.Sub("moved"));
  std::filesystem::remove_all(tmp.Sub("job"));
  ASSERT_OK_AND_ASSIGN(flink::Metadata out,
                       flink::ReadFlinkMetadata(base::Fs::Default(), tmp.Sub("moved/_metadata")));
  size_t relative = 0;
  ForEachFileHandle(&out, [&](StreamHandle* h) {
    EXPECT_NE(h->type, StreamHandle::Type::kFile) << h->path;
    if (h->type == StreamHandle::Type::kRelativeFile) {
      ++relative;
      EXPECT_TRUE(std::filesystem::exists(tmp.Sub("moved/" + h->path))) << h->path;
    }
  });
  EXPECT_EQ(relative, handles);
  // Only the handles changed: the copy is byte-identical to the fixture Flink wrote.
  EXPECT_EQ(testing::ReadBytes(tmp.Sub("moved/_metadata")),
            testing::ReadBytes(
                testing::FixturePath(std::string("flink/") + kRelocateFixture + "/_metadata")));
  ASSERT_OK_AND_ASSIGN(ValidateReport v, Validate(base::Fs::Default(), tmp.Sub("moved"), {}));
  for (const auto& f : v.findings) EXPECT_NE(f.severity, Severity::kError) << f.rule_id << ": " << f.message;
}

TEST(FlinkRelocateTest, AMovedSnapshotWithDanglingAbsoluteReferencesIsRefused) {
  TempDir tmp;
  WriteAbsoluteCopy(tmp.Sub("job"));
  std::filesystem::rename(tmp.Sub("job"), tmp.Sub("job-moved"));
  auto r = Relocate(base::Fs::Default(), tmp.Sub("job-moved/chk-7"), tmp.Sub("out"));
  ASSERT_STATUS(r.status(), kCorruption, "does not exist");
  ASSERT_STATUS(r.status(), kCorruption, tmp.Sub("job/chk-7"));
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out")));
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out.tmp")));
  RelocateOptions dry;
  dry.dry_run = true;
  ASSERT_STATUS(
      Relocate(base::Fs::Default(), tmp.Sub("job-moved/chk-7"), tmp.Sub("out"), dry).status(),
      kCorruption, "moved");
}

TEST(FlinkRelocateTest, ASelfContainedSavepointIsCopiedByteForByte) {
  TempDir tmp;
  const std::string src = testing::FixturePath(std::string("flink/") + kRelocateFixture);
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), src, tmp.Sub("out")));
  EXPECT_EQ(r.output_type, "savepoint (native, self-contained)");
  EXPECT_EQ(testing::ReadBytes(tmp.Sub("out/_metadata")), testing::ReadBytes(src + "/_metadata"));
  for (const auto& f : r.files) EXPECT_EQ(f.original_scope, "exclusive");
}

}  // namespace
}  // namespace ckpt::ops
