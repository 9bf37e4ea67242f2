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
#include "golden_util.h"
#include "test_snapshots.h"

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

// A Flink checkpoint in its job directory: the output may not be the checkpoint, inside it, or
// in the job's chk-<n>/, shared/ or taskowned/ (prune deletes there what no _metadata
// references). Nothing is written, the input unchanged.
TEST(FlinkRelocateTest, RefusesAnOutputInsideItsInputOrCheckpointStorage) {
  TempDir tmp;
  const std::string job = tmp.Sub("a1b2c3d4e5f60718293a4b5c6d7e8f90");
  const std::string chk = job + "/chk-5";
  testing::CopyTree(
      testing::FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint"),
      chk);
  ASSERT_OK(base::Fs::Default().CreateDirs(job + "/shared"));
  ASSERT_OK(base::Fs::Default().CreateDirs(job + "/taskowned"));
  const auto before = testing::FileTree(tmp.path());
  for (const std::string& out : {chk, chk + "/copy", job + "/shared/copy", job + "/taskowned/copy",
                                 job + "/chk-4/copy", job}) {
    SCOPED_TRACE(out);
    ASSERT_STATUS(Relocate(base::Fs::Default(), chk, out), kInvalidArgument,
                  "refusing to write the output " + out);
  }
  auto cli = testing::RunTool({"relocate", chk, "--to", job + "/shared/sp"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("checkpoint storage"), std::string::npos) << cli.err;
  EXPECT_EQ(testing::FileTree(tmp.path()), before);
}

// An operator listing one subtask twice (CKPT-T002): the copy would not validate, so it is not
// published (exit 1, the reason naming the finding).
TEST(FlinkRelocateTest, PublishesNothingWhenTheCopyWouldNotValidate) {
  TempDir tmp;
  const std::string sp = tmp.Sub("sp");
  testing::CopyTree(
      testing::FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint"),
      sp);
  ASSERT_OK_AND_ASSIGN(flink::Metadata md,
                       flink::ReadFlinkMetadata(base::Fs::Default(), sp + "/_metadata"));
  ASSERT_FALSE(md.operators.empty());
  flink::OperatorState& op = md.operators.back();
  ASSERT_FALSE(op.subtasks.empty());
  op.subtasks.push_back(op.subtasks.front());
  op.entry_order.clear();
  ASSERT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), md, sp + "/_metadata"));
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), sp, tmp.Sub("out")));
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.refused.find("nothing written: the output would not pass"), std::string::npos)
      << r.refused;
  EXPECT_NE(r.refused.find("CKPT-T002"), std::string::npos) << r.refused;
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_TRUE(HasErrors(r.verification->findings));
  EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
  EXPECT_FALSE(testing::Exists(tmp.Sub("out.tmp")));
  auto cli = testing::RunTool({"relocate", "sp", "--to", "out"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 1) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("not relocated"), std::string::npos) << cli.out;
  EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
}

}  // namespace
}  // namespace ckpt::ops
