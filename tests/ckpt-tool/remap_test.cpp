// remap: operator IDs rewritten with every kind of state moved (coordinator state included:
// the lost-coordinator-state regression), refusal of ambiguous/chained/conflicting mappings, unmatched
// mappings reported, input never modified, output self-contained; plus the CLI plan output.
#include "ckpt/ops/remap.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "ckpt/base/checksum.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/forwarding_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "ops_write_testutil.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using format::OperatorId;
using testing::TempDir;
namespace opsw = testing::opsw;

constexpr char kCoordinatorBytes[] = "split-enumerator: pending=[orders-7, orders-8]";

// The sample savepoint, with the watermark tracker's coordinator state moved into a
// COORDINATOR_STATE file (the source keeps its inline coordinator state).
void WriteSavepoint(const std::string& dir) {
  ASSERT_OK(testing::WriteSampleSavepoint(dir));
  testing::WriteTextFile(dir + "/watermark-coordinator.bin", kCoordinatorBytes);
  ASSERT_OK(testing::RewriteMetadata(dir, [](pb::CheckpointMetadata& m) {
    pb::FileEntry* f = m.add_files();
    f->set_path("watermark-coordinator.bin");
    f->set_scope(pb::EXCLUSIVE);
    f->set_kind(pb::COORDINATOR_STATE);
    f->set_size_bytes(sizeof(kCoordinatorBytes) - 1);
    f->set_checksum_xxh3(base::Xxh3(kCoordinatorBytes));
    f->set_compression(pb::COMPRESSION_NONE);
    f->set_created_by_checkpoint_id(m.checkpoint_id());
    const std::string id = OperatorId::FromUid("watermark-tracker").ToBytes();
    for (auto& op : *m.mutable_operators()) {
      if (op.operator_id() != id) continue;
      op.mutable_coordinator_state()->set_file_index(static_cast<uint32_t>(m.files_size() - 1));
      op.mutable_coordinator_state()->set_size_bytes(sizeof(kCoordinatorBytes) - 1);
    }
  }));
}

const pb::OperatorState* StateOf(const pb::CheckpointMetadata& m, const std::string& uid) {
  const std::string id = OperatorId::FromUid(uid).ToBytes();
  for (const auto& op : m.operators()) {
    if (op.operator_id() == id) return &op;
  }
  return nullptr;
}

RemapOptions Maps(std::vector<OperatorMapping> m) {
  RemapOptions o;
  o.mappings = std::move(m);
  return o;
}

TEST(RemapTest, MovesCoordinatorStateWithTheOperatorFlink40837) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  const std::string before = testing::ReadBytes(in + "/_metadata");
  const pb::CheckpointMetadata old = opsw::ReadMetadata(in);
  const std::string inline_coordinator = StateOf(old, "orders-source")->coordinator_state().inline_data();
  ASSERT_FALSE(inline_coordinator.empty());

  ASSERT_OK_AND_ASSIGN(RemapResult r,
                       Remap(base::Fs::Default(), in, tmp.Sub("out"),
                             Maps({{"orders-source", "orders-source-v2"},
                                   {"uid:watermark-tracker", "watermarks-v2"}})));
  EXPECT_TRUE(r.unmatched.empty());
  EXPECT_EQ(r.files_linked, r.files);  // input and output on one filesystem: all hard links
  const pb::CheckpointMetadata out = opsw::ReadMetadata(tmp.Sub("out"));
  EXPECT_EQ(StateOf(out, "orders-source"), nullptr);
  EXPECT_EQ(StateOf(out, "watermark-tracker"), nullptr);
  const pb::OperatorState* src = StateOf(out, "orders-source-v2");
  const pb::OperatorState* wm = StateOf(out, "watermarks-v2");
  ASSERT_NE(src, nullptr);
  ASSERT_NE(wm, nullptr);
  // Inline coordinator state moved byte for byte (Flink's changeOperatorIdentifier drops it).
  ASSERT_TRUE(src->has_coordinator_state());
  EXPECT_EQ(src->coordinator_state().inline_data(), inline_coordinator);
  // File-backed coordinator state moved too, and its file was copied into the new savepoint.
  ASSERT_TRUE(wm->has_coordinator_state());
  ASSERT_EQ(wm->coordinator_state().location_case(), pb::CoordinatorState::kFileIndex);
  const pb::FileEntry& f = out.files(static_cast<int>(wm->coordinator_state().file_index()));
  EXPECT_EQ(f.kind(), pb::COORDINATOR_STATE);
  EXPECT_EQ(f.scope(), pb::EXCLUSIVE);
  EXPECT_EQ(testing::ReadBytes(tmp.Sub("out") + "/" + f.path()), kCoordinatorBytes);
  // Every other kind of state moved as well: same handles count, same subtasks.
  EXPECT_EQ(src->subtasks_size(), StateOf(old, "orders-source")->subtasks_size());
  EXPECT_EQ(wm->subtasks_size(), StateOf(old, "watermark-tracker")->subtasks_size());
  // The job graph and its edges follow the new IDs and uids.
  bool found = false;
  for (const auto& info : out.job_graph().operators()) {
    if (info.operator_id() == OperatorId::FromUid("orders-source-v2").ToBytes()) {
      EXPECT_EQ(info.uid(), "orders-source-v2");
      found = true;
    }
    EXPECT_NE(info.uid(), "orders-source");
  }
  EXPECT_TRUE(found);
  for (const auto& e : out.job_graph().edges()) {
    EXPECT_NE(e.source_operator_id(), OperatorId::FromUid("orders-source").ToBytes());
  }
  EXPECT_EQ(out.kind(), pb::SAVEPOINT);
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("out")));
  // The input is untouched.
  EXPECT_EQ(testing::ReadBytes(in + "/_metadata"), before);
}

TEST(RemapTest, AgainstNewJobMatchesBySpecIdOrName) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  std::string spec = testing::SampleSavepointJobSpec();
  for (const char* uid : {"orders-source", "per-user-aggregate", "watermark-tracker"}) {
    const std::string quoted = std::string("\"uid\": \"") + uid + "\"";
    size_t at = spec.find(quoted);
    ASSERT_NE(at, std::string::npos) << uid;
    spec.replace(at, quoted.size(), std::string("\"uid\": \"") + uid + "-v2\"");
  }
  testing::WriteTextFile(tmp.Sub("job-v2.json"), spec);
  RemapOptions options;
  options.against_job_path = tmp.Sub("job-v2.json");
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  size_t renamed = 0;
  for (const auto& e : r.operators) {
    if (e.action == RemapAction::kRename) {
      ++renamed;
      EXPECT_EQ(e.new_uid, e.old_uid + "-v2");
      EXPECT_NE(e.reason.find("same spec id"), std::string::npos) << e.reason;
    } else {
      EXPECT_EQ(e.old_uid, "file-sink");
      EXPECT_NE(e.reason.find("same ID"), std::string::npos) << e.reason;
    }
  }
  EXPECT_EQ(renamed, 3u);
  const pb::CheckpointMetadata out = opsw::ReadMetadata(tmp.Sub("out"));
  EXPECT_NE(StateOf(out, "per-user-aggregate-v2"), nullptr);
  EXPECT_NE(StateOf(out, "file-sink"), nullptr);
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("out")));
  // The acceptance criterion: the output validates clean (deep) against the new job, while the
  // input does not.
  ValidateOptions against;
  against.deep = true;
  against.against_job = tmp.Sub("job-v2.json");
  ASSERT_OK_AND_ASSIGN(ValidateReport after, Validate(base::Fs::Default(), tmp.Sub("out"), against));
  for (const auto& f : after.findings) {
    EXPECT_NE(f.severity, Severity::kError) << f.rule_id << " " << f.message;
  }
  ASSERT_OK_AND_ASSIGN(ValidateReport before, Validate(base::Fs::Default(), in, against));
  EXPECT_TRUE(HasErrors(before.findings));

  // --by-name pairs by display name; a job without a counterpart leaves a warning.
  options.by_name = true;
  ASSERT_OK_AND_ASSIGN(RemapResult by_name,
                       Remap(base::Fs::Default(), in, tmp.Sub("out-by-name"), options));
  EXPECT_TRUE(by_name.warnings.empty());
  EXPECT_NE(by_name.operators[0].reason.find("same name"), std::string::npos);
}

TEST(RemapTest, RefusesChainedAmbiguousAndConflictingMappings) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  base::Fs& fs = base::Fs::Default();
  ASSERT_STATUS(Remap(fs, in, tmp.Sub("o1"),
                      Maps({{"orders-source", "per-user-aggregate"},
                            {"per-user-aggregate", "aggregate-v2"}})),
                kInvalidArgument, "chained mapping");
  ASSERT_STATUS(Remap(fs, in, tmp.Sub("o2"),
                      Maps({{"orders-source", "same-new"}, {"file-sink", "same-new"}})),
                kInvalidArgument, "two operators map to");
  ASSERT_STATUS(Remap(fs, in, tmp.Sub("o3"),
                      Maps({{"orders-source", "new-a"}, {"orders-source", "new-b"}})),
                kInvalidArgument, "ambiguous mapping");
  ASSERT_STATUS(Remap(fs, in, tmp.Sub("o4"), Maps({{"orders-source", "file-sink"}})),
                kInvalidArgument, "keeps its state");
  ASSERT_STATUS(Remap(fs, in, tmp.Sub("o5"), Maps({{"orders-source", "name:x"}})),
                kInvalidArgument, "must be a 32-hex ID or a uid");
  ASSERT_STATUS(Remap(fs, in, tmp.Sub("o6"), RemapOptions{}), kInvalidArgument, "nothing to remap");
  // Nothing was written by any refused remap.
  for (const char* o : {"o1", "o2", "o3", "o4", "o5", "o6"}) {
    EXPECT_FALSE(fs.Stat(tmp.Sub(o)).ok()) << o;
  }
  // A mapping that is a swap through a dropped operator is fine: its state is gone.
  RemapOptions swap = Maps({{"orders-source", "file-sink"}});
  swap.drop = {"file-sink"};
  EXPECT_OK(Remap(fs, in, tmp.Sub("o7"), swap));
}

TEST(RemapTest, ReportsMappingsThatMatchedNothing) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  RemapOptions options = Maps({{"no-such-operator", "x"}, {"file-sink", "file-sink-v2"}});
  options.uid_prefix_rewrites = {{"legacy-", "v2-"}};
  options.drop = {"ghost"};
  // Defect 5 of issue 9: the full plan, and nothing written, so the corrected retry works.
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  EXPECT_EQ(r.unmatched, (std::vector<std::string>{"--drop ghost", "--map no-such-operator=x",
                                                   "--uid-prefix legacy-=v2-"}));
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.refused.find("nothing written"), std::string::npos) << r.refused;
  bool planned_rename = false;
  for (const auto& e : r.operators) planned_rename |= e.new_uid == "file-sink-v2";
  EXPECT_TRUE(planned_rename);
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out.tmp")).ok());
  ASSERT_OK_AND_ASSIGN(RemapResult retry, Remap(base::Fs::Default(), in, tmp.Sub("out"),
                                                Maps({{"file-sink", "file-sink-v2"}})));
  EXPECT_TRUE(retry.written);
  EXPECT_NE(StateOf(opsw::ReadMetadata(tmp.Sub("out")), "file-sink-v2"), nullptr);
}

TEST(RemapTest, BuildsInDotTmpAndRefusesALeftoverOne) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("out.tmp")));
  ASSERT_STATUS(Remap(base::Fs::Default(), in, tmp.Sub("out"), Maps({{"file-sink", "file-sink-v2"}})),
                kAlreadyExists, "out.tmp");
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
  EXPECT_TRUE(base::Fs::Default().Stat(tmp.Sub("out.tmp")).ok());  // someone's: kept
  // A failed copy leaves neither OUT nor OUT.tmp.
  testing::FlipByte(in + "/watermark-coordinator.bin", 3);
  ASSERT_STATUS(Remap(base::Fs::Default(), in, tmp.Sub("out2"), Maps({{"file-sink", "file-sink-v2"}})),
                kCorruption, "watermark-coordinator.bin");
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out2")).ok());
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out2.tmp")).ok());
}

// The input is never modified: an output at the input, inside it, or in the checkpoint storage
// around a retained checkpoint is refused before anything is planned to disk (dry run too).
TEST(RemapTest, RefusesAnOutputInsideItsInputOrCheckpointStorage) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  const auto before = testing::FileTree(tmp.path());
  const RemapOptions sink = Maps({{"file-sink", "file-sink-v2"}});
  RemapOptions dry = sink;
  dry.dry_run = true;
  for (const RemapOptions& o : {sink, dry}) {
    for (const std::string& out : {in + "/remapped", in, tmp.Sub("sp/../sp/x")}) {
      SCOPED_TRACE(out);
      ASSERT_STATUS(Remap(base::Fs::Default(), in, out, o), kInvalidArgument,
                    "refusing to write the output");
    }
    for (const std::string& out : {job + "/shared/remapped", job + "/chk-1/remapped"}) {
      SCOPED_TRACE(out);
      ASSERT_STATUS(
          Remap(base::Fs::Default(), job + "/chk-2", out, Maps({{"counter", "counter-v2"}})),
          kInvalidArgument, "(checkpoint storage");
    }
  }
  auto cli = testing::RunTool({"remap", "sp", "--to", "sp/remapped", "--map", "file-sink=v2"},
                              tmp.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("inside the input"), std::string::npos) << cli.err;
  EXPECT_EQ(testing::FileTree(tmp.path()), before);
}

// An output that would not validate (the aggregate records max parallelism 2^31: CKPT-T003) is
// removed, never published; the reason names the finding; exit 1.
TEST(RemapTest, PublishesNothingWhenTheOutputWouldNotValidate) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  ASSERT_OK(testing::RewriteMetadata(in, [](pb::CheckpointMetadata& m) {
    for (auto& op : *m.mutable_operators()) {
      if (op.subtasks_size() > 0 && op.subtasks(0).keyed_state_size() > 0) {
        op.set_max_parallelism(1u << 31);
      }
    }
  }));
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"),
                                            Maps({{"file-sink", "file-sink-v2"}})));
  EXPECT_FALSE(r.written);
  EXPECT_NE(r.refused.find("CKPT-T003"), std::string::npos) << r.refused;
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_TRUE(HasErrors(r.verification->findings));
  EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
  EXPECT_FALSE(testing::Exists(tmp.Sub("out.tmp")));
  auto cli = testing::RunTool({"remap", "sp", "--to", "out", "--map", "file-sink=v2"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 1) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("not remapped"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("nothing written: the output would not pass"), std::string::npos)
      << cli.out;
  EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
}

TEST(RemapTest, VerifiesTheOutputWhenAsked) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  RemapOptions options = Maps({{"file-sink", "file-sink-v2"}});
  options.verify_output = true;
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_EQ(r.verification->snapshot, tmp.Sub("out"));
  EXPECT_FALSE(HasErrors(r.verification->findings));
  EXPECT_GT(r.verification->files_checked, 0u);
  ASSERT_OK_AND_ASSIGN(RemapResult plain, Remap(base::Fs::Default(), in, tmp.Sub("out3"),
                                                Maps({{"file-sink", "file-sink-v2"}})));
  EXPECT_FALSE(plain.verification.has_value());
}

// Defect 12: 31 hex digits are silently a uid; warn.
TEST(RemapTest, WarnsWhenAMappingSideLooksLikeAMistypedHash) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  const std::string typo = OperatorId::FromUid("orders-v2").ToHex().substr(1);  // 31 digits
  RemapOptions options = Maps({{"orders-source", typo}});
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("31 hex digits"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("mistyped operator ID"), std::string::npos) << r.warnings[0];
  // Forced as a uid: no warning.
  options = Maps({{"orders-source", "uid:" + typo}});
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(RemapResult forced, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  EXPECT_TRUE(forced.warnings.empty());
}

TEST(RemapTest, UidRewritesAndDropLeaveOutTheDroppedFiles) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  const pb::CheckpointMetadata old = opsw::ReadMetadata(in);
  RemapOptions options;
  options.uid_prefix_rewrites = {{"orders-", "shop-orders-"}};
  options.uid_suffix_rewrites = {{"-tracker", "-tracker-v2"}};
  options.drop = {"Per-user aggregate"};  // by name
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  const pb::CheckpointMetadata out = opsw::ReadMetadata(tmp.Sub("out"));
  EXPECT_NE(StateOf(out, "shop-orders-source"), nullptr);
  EXPECT_NE(StateOf(out, "watermark-tracker-v2"), nullptr);
  EXPECT_EQ(StateOf(out, "per-user-aggregate"), nullptr);
  EXPECT_EQ(out.operators_size(), old.operators_size() - 1);
  EXPECT_LT(out.files_size(), old.files_size());
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("out")));
  bool dropped = false;
  for (const auto& e : r.operators) dropped |= e.action == RemapAction::kDrop;
  EXPECT_TRUE(dropped);
}

TEST(RemapTest, RemapsARetainedIncrementalCheckpointIntoASelfContainedSavepoint) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 3; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), job + "/chk-3", tmp.Sub("out"),
                                            Maps({{"counter", "counter-v2"}})));
  EXPECT_EQ(r.files, 4u);
  ASSERT_OK(base::RemoveAll(base::Fs::Default(), tmp.Sub("root")));
  const pb::CheckpointMetadata out = opsw::ReadMetadata(tmp.Sub("out"));
  EXPECT_EQ(out.kind(), pb::SAVEPOINT);
  EXPECT_EQ(out.checkpoint_type(), pb::FULL);
  EXPECT_NE(StateOf(out, "counter-v2"), nullptr);
  for (const auto& f : out.files()) EXPECT_EQ(f.scope(), pb::EXCLUSIVE) << f.path();
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("out")));
}

TEST(RemapTest, DryRunWritesNothingAndExistingOutputIsRefused) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  RemapOptions options = Maps({{"file-sink", "file-sink-v2"}});
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), in, tmp.Sub("out"), options));
  EXPECT_TRUE(r.dry_run);
  EXPECT_GT(r.files, 0u);
  EXPECT_EQ(r.bytes_copied, 0u);
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("exists")));
  ASSERT_STATUS(Remap(base::Fs::Default(), in, tmp.Sub("exists"), options), kAlreadyExists,
                "exists");
}

TEST(RemapTest, CorruptInputFileFailsAndLeavesNoOutput) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  testing::FlipByte(in + "/watermark-coordinator.bin", 3);
  ASSERT_STATUS(Remap(base::Fs::Default(), in, tmp.Sub("out"),
                      Maps({{"file-sink", "file-sink-v2"}})),
                kCorruption, "watermark-coordinator.bin");
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
}

// Fs::Default() without hard links (as across filesystems, or on an object store).
class NoHardLinkFs final : public testing::ForwardingFs {
 public:
  base::Status HardLink(const std::string& existing, const std::string& link) override {
    return base::Fs::HardLink(existing, link);  // Unimplemented
  }
};

ino_t Inode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

TEST(RemapTest, StateFilesAreHardLinksUnlessCopiesAreAsked) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  const std::string state = "/watermark-coordinator.bin";
  ASSERT_OK_AND_ASSIGN(RemapResult linked, Remap(base::Fs::Default(), in, tmp.Sub("linked"),
                                                 Maps({{"file-sink", "file-sink-v2"}})));
  EXPECT_EQ(linked.files_linked, linked.files);
  EXPECT_EQ(linked.bytes_copied, 0u);
  EXPECT_EQ(Inode(in + state), Inode(tmp.Sub("linked") + state));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("linked")));

  RemapOptions copy = Maps({{"file-sink", "file-sink-v2"}});
  copy.copy_files = true;
  ASSERT_OK_AND_ASSIGN(RemapResult copied,
                       Remap(base::Fs::Default(), in, tmp.Sub("copied"), copy));
  EXPECT_EQ(copied.files_linked, 0u);
  EXPECT_EQ(copied.bytes_copied, copied.total_bytes);
  EXPECT_NE(Inode(in + state), Inode(tmp.Sub("copied") + state));
  EXPECT_EQ(testing::ReadBytes(in + state), testing::ReadBytes(tmp.Sub("copied") + state));

  // Deleting the input leaves the linked output whole.
  ASSERT_OK(base::RemoveAll(base::Fs::Default(), in));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("linked")));
}

TEST(RemapTest, CopiesWhereTheFilesystemCannotLink) {
  TempDir tmp;
  const std::string in = tmp.Sub("sp");
  WriteSavepoint(in);
  NoHardLinkFs fs;
  ASSERT_OK_AND_ASSIGN(RemapResult r,
                       Remap(fs, in, tmp.Sub("out"), Maps({{"file-sink", "file-sink-v2"}})));
  EXPECT_EQ(r.files_linked, 0u);
  EXPECT_EQ(r.bytes_copied, r.total_bytes);
  EXPECT_NE(Inode(in + "/watermark-coordinator.bin"),
            Inode(tmp.Sub("out") + "/watermark-coordinator.bin"));
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("out")));
}

TEST(RemapCliTest, DryRunPlanAndExitCodes) {
  TempDir tmp;
  WriteSavepoint(tmp.Sub("sp"));
  auto plan = testing::RunTool({"remap", "sp", "--to", "out", "--map", "orders-source=orders-v2",
                                "--map", "nothing=here", "--dry-run"},
                               tmp.path());
  EXPECT_EQ(plan.exit_code, 1) << plan.err;  // a mapping matched nothing
  testing::ExpectGolden("remap-dry-run.text", plan.out);
  // stderr names the request that matched nothing, in one line.
  EXPECT_EQ(plan.err, "ckpt-tool: remap: --map nothing=here matched no operator of sp\n");
  auto refused = testing::RunTool(
      {"remap", "sp", "--to", "out", "--map", "nothing=here", "--uid-prefix", "zz-=yy-"},
      tmp.path());
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("nothing written: "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--map nothing=here"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("zz-=yy-"), std::string::npos) << refused.err;
  EXPECT_NE(refused.out.find("\nnothing written (the output would have "), std::string::npos)
      << refused.out;
  EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
  auto json = testing::RunTool({"remap", "sp", "--to", "out", "--map", "orders-source=orders-v2",
                                "--dry-run", "--format", "json"},
                               tmp.path());
  EXPECT_EQ(json.exit_code, 0) << json.err;
  testing::ExpectGolden("remap-dry-run.json", json.out);
  auto chained = testing::RunTool({"remap", "sp", "--to", "out", "--map", "a=b", "--map",
                                   "orders-source=file-sink"},
                                  tmp.path());
  EXPECT_EQ(chained.exit_code, 2);
  EXPECT_NE(chained.err.find("keeps its state"), std::string::npos) << chained.err;
  auto real = testing::RunTool({"remap", "sp", "--to", "out", "--map", "orders-source=orders-v2",
                                "-q"},
                               tmp.path());
  EXPECT_EQ(real.exit_code, 0) << real.err;
  EXPECT_OK(opsw::VerifySnapshot(base::Fs::Default(), tmp.Sub("out")));
  auto again = testing::RunTool({"remap", "sp", "--to", "out", "--map", "orders-source=x"},
                                tmp.path());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("AlreadyExists"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace ckpt::ops
