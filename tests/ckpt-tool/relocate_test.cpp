// relocate: a savepoint copy and a retained checkpoint turned into a self-contained savepoint
// (shared and task-owned files copied in, every FileEntry EXCLUSIVE), checksums verified on the
// way, _metadata last, input untouched; plus the CLI.
#include "ckpt/ops/relocate.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "ops_write_testutil.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;
namespace opsw = testing::opsw;

TEST(RelocateTest, CopiesASavepointByteForByte) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), tmp.Sub("sp"),
                                                  tmp.Sub("copy")));
  EXPECT_FALSE(r.converted_checkpoint);
  EXPECT_EQ(r.bytes_copied, r.total_bytes);
  const pb::CheckpointMetadata in = opsw::ReadMetadata(tmp.Sub("sp"));
  const pb::CheckpointMetadata out = opsw::ReadMetadata(tmp.Sub("copy"));
  ASSERT_EQ(in.files_size(), out.files_size());
  for (int i = 0; i < in.files_size(); ++i) {
    EXPECT_EQ(out.files(i).path(), in.files(i).path());
    EXPECT_EQ(out.files(i).checksum_xxh3(), in.files(i).checksum_xxh3());
  }
  EXPECT_EQ(out.operators_size(), in.operators_size());
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("copy")));
}

TEST(RelocateTest, TurnsAnIncrementalCheckpointIntoASelfContainedSavepoint) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 3; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  const pb::CheckpointMetadata in = opsw::ReadMetadata(job + "/chk-3");
  ASSERT_EQ(in.checkpoint_type(), pb::INCREMENTAL);

  ASSERT_OK_AND_ASSIGN(RelocateResult r,
                       Relocate(base::Fs::Default(), job + "/chk-3", tmp.Sub("sp")));
  EXPECT_TRUE(r.converted_checkpoint);
  size_t shared = 0;
  for (const auto& f : r.files) shared += f.original_scope == "shared";
  EXPECT_EQ(shared, 2u);  // count-1-0 (from chk-1) and count-3-1

  // The checkpoint storage can go away entirely: the savepoint stands alone.
  ASSERT_OK(base::RemoveAll(base::Fs::Default(), tmp.Sub("root")));
  const pb::CheckpointMetadata out = opsw::ReadMetadata(tmp.Sub("sp"));
  EXPECT_EQ(out.kind(), pb::SAVEPOINT);
  EXPECT_EQ(out.checkpoint_type(), pb::FULL);
  EXPECT_EQ(out.savepoint_format(), pb::CANONICAL);
  EXPECT_EQ(out.checkpoint_id(), 3);
  for (const auto& f : out.files()) {
    EXPECT_EQ(f.scope(), pb::EXCLUSIVE) << f.path();
    EXPECT_EQ(f.created_by_checkpoint_id(), 3);
  }
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("sp")));
  ValidateOptions deep;
  deep.deep = true;
  ASSERT_OK_AND_ASSIGN(ValidateReport report, Validate(base::Fs::Default(), tmp.Sub("sp"), deep));
  for (const auto& f : report.findings) {
    EXPECT_NE(f.severity, Severity::kError) << f.rule_id << " " << f.message;
  }
}

TEST(RelocateTest, CopiesTaskOwnedChangelogFilesOfTheFixture) {
  TempDir tmp;
  const std::string chk =
      testing::FixturePath("v1/checkpoints/" + testing::SampleJobIdHex() + "/chk-2");
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), chk, tmp.Sub("sp")));
  bool task_owned = false;
  for (const auto& f : r.files) task_owned |= f.original_scope == "task-owned";
  EXPECT_TRUE(task_owned);
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("sp")));
}

// Defect 4 of issue 9: relocating a changelog checkpoint copies its handles, so the output is a
// NATIVE savepoint (backend-bound), never "savepoint (canonical, ...)" claiming a backend change.
TEST(RelocateTest, ChangelogCheckpointKeepsItsTrueKind) {
  TempDir tmp;
  const std::string chk =
      testing::FixturePath("v1/checkpoints/" + testing::SampleJobIdHex() + "/chk-2");
  RelocateOptions options;
  options.verify_output = true;
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), chk, tmp.Sub("sp"), options));
  EXPECT_EQ(r.output_type.rfind("savepoint (native", 0), 0u) << r.output_type;
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_EQ(r.verification->snapshot_type, r.output_type);
  for (const auto& c : r.verification->capabilities) {
    if (c.operation == "change state backend") {
      EXPECT_FALSE(c.supported) << c.note;
    }
  }
  // A canonical (key-groups only) checkpoint stays canonical.
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  ASSERT_OK_AND_ASSIGN(RelocateResult canonical,
                       Relocate(base::Fs::Default(), job + "/chk-2", tmp.Sub("sp2")));
  EXPECT_EQ(canonical.output_type.rfind("savepoint (canonical", 0), 0u) << canonical.output_type;
}

TEST(RelocateTest, ChecksumMismatchFailsNamingTheFileAndLeavesNoOutput) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  testing::FlipByte(job + "/shared/count-1-0.state", 20);
  ASSERT_STATUS(Relocate(base::Fs::Default(), job + "/chk-2", tmp.Sub("sp")), kCorruption,
                "count-1-0.state");
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("sp")).ok());
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("sp.tmp")).ok());  // built in OUT.tmp, removed
  testing::TruncateFile(job + "/chk-2/source-0.state", 10);
  ASSERT_STATUS(Relocate(base::Fs::Default(), job + "/chk-2", tmp.Sub("sp")), kCorruption,
                "source-0.state");
}

TEST(RelocateTest, RefusesAnExistingOutputAndDryRunWritesNothing) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("taken")));
  ASSERT_STATUS(Relocate(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("taken")), kAlreadyExists,
                "taken");
  RelocateOptions dry;
  dry.dry_run = true;
  ASSERT_OK_AND_ASSIGN(RelocateResult r,
                       Relocate(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("new"), dry));
  EXPECT_FALSE(r.files.empty());
  EXPECT_EQ(r.bytes_copied, 0u);
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("new")).ok());
  ASSERT_STATUS(Relocate(base::Fs::Default(), tmp.Sub("nothing"), tmp.Sub("x")), kNotFound,
                "nothing");
}

// The input is never modified and checkpoint storage is the engine's and prune's: an output at
// the input, inside it, around it (however spelled: `..`, a symbolic link), in a job
// directory's chk-<n>/, shared/ or taskowned/, or inside another snapshot is refused before
// anything is written. Beside the checkpoints, in the job directory itself, is a user's choice.
TEST(RelocateTest, RefusesAnOutputInsideItsInputOrCheckpointStorage) {
  TempDir tmp;
  const std::string root = tmp.Sub("root");
  const std::string job = opsw::CounterJobDir(root);
  for (int64_t id = 1; id <= 3; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  ASSERT_OK(base::Fs::Default().CreateDirs(job + "/taskowned"));
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("other-savepoint")));
  const std::string chk = job + "/chk-3";
  std::filesystem::create_directory_symlink(chk, tmp.Sub("alias"));
  const auto before = testing::FileTree(tmp.path());
  for (const std::string& out :
       {chk, chk + "/", chk + "/copy", chk + "/deeper/copy", tmp.Sub("alias") + "/copy",
        job + "/chk-1/../chk-3/copy", job + "/shared/sp", job + "/taskowned/sp",
        job + "/chk-1/sp", job + "/chk-4/sp", job, root, tmp.Sub("other-savepoint") + "/sp"}) {
    SCOPED_TRACE(out);
    ASSERT_STATUS(Relocate(base::Fs::Default(), chk, out), kInvalidArgument,
                  "refusing to write the output " + out);
    auto cli = testing::RunTool({"relocate", chk, "--to", out}, tmp.path());
    EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
    EXPECT_NE(cli.err.find("refusing to write the output"), std::string::npos) << cli.err;
  }
  EXPECT_EQ(testing::FileTree(tmp.path()), before) << "nothing may be written anywhere";
  ASSERT_OK_AND_ASSIGN(RelocateResult beside,
                       Relocate(base::Fs::Default(), chk, job + "/savepoint-of-chk-3"));
  EXPECT_TRUE(beside.written);

  // A savepoint's own directory is refused the same way.
  ASSERT_STATUS(Relocate(base::Fs::Default(), tmp.Sub("other-savepoint"),
                         tmp.Sub("other-savepoint") + "/copy"),
                kInvalidArgument, "inside the input");
}

// A copy that would not validate (the input's metadata lists subtask 0 twice: CKPT-T002) is
// removed, never published: written is false, the reason names the findings, exit 1.
TEST(RelocateTest, PublishesNothingWhenTheCopyWouldNotValidate) {
  TempDir tmp;
  const std::string sp = tmp.Sub("sp");
  ASSERT_OK(testing::WriteSampleSavepoint(sp));
  ASSERT_OK(testing::RewriteMetadata(sp, [](pb::CheckpointMetadata& m) {
    *m.mutable_operators(1)->add_subtasks() = m.operators(1).subtasks(0);
  }));
  ASSERT_OK_AND_ASSIGN(RelocateResult r, Relocate(base::Fs::Default(), sp, tmp.Sub("copy")));
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.refused.find("nothing written"), std::string::npos) << r.refused;
  EXPECT_NE(r.refused.find("CKPT-T002"), std::string::npos) << r.refused;
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_TRUE(HasErrors(r.verification->findings));
  EXPECT_EQ(r.verification->snapshot, tmp.Sub("copy"));
  EXPECT_FALSE(testing::Exists(tmp.Sub("copy")));
  EXPECT_FALSE(testing::Exists(tmp.Sub("copy.tmp")));

  auto cli = testing::RunTool({"relocate", "sp", "--to", "copy"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 1) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("not relocated"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("CKPT-T002"), std::string::npos) << cli.out;
  EXPECT_FALSE(testing::Exists(tmp.Sub("copy")));
}

TEST(RelocateCliTest, PrintsTheCopyPlan) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  const std::string chk = "root/" + testing::SampleJobIdHex() + "/chk-2";
  auto dry = testing::RunTool({"relocate", chk, "--to", "sp", "--dry-run"}, tmp.path());
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  testing::ExpectGolden("relocate-checkpoint.text", dry.out);
  auto json = testing::RunTool({"relocate", chk, "--to", "sp", "--format", "json", "-q"},
                               tmp.path());
  EXPECT_EQ(json.exit_code, 0) << json.err;
  testing::ExpectGolden("relocate-checkpoint.json", json.out);
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("sp")));
  auto again = testing::RunTool({"relocate", chk, "--to", "sp"}, tmp.path());
  EXPECT_EQ(again.exit_code, 2);
}

}  // namespace
}  // namespace ckpt::ops
