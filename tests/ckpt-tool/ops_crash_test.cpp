// Crash consistency of ops' multi-step writes (issue 8): prune, relocate and remap run under the
// fault-injecting Fs with a crash before every mutating operation in turn (each create, append,
// fsync, rename, unlink, rmdir, mkdir), then a power loss is simulated (DropUnsyncedData: data
// not fsynced and directory changes not followed by a directory fsync are undone). After each
// crash the directory is the old state or the new one, snapshot by snapshot: every snapshot
// with a _metadata validates --deep without an error, the retained ones are still there, and
// the input of a copy is untouched. The crash-free operation count is measured first, so every
// step of the real sequence is covered.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/base/posix_fs.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/relocate.h"
#include "ckpt/ops/remap.h"
#include "ckpt/ops/rescale.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ops_write_testutil.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;
namespace opsw = testing::opsw;

// Relative path -> XXH3 of every regular file below `root`.
std::map<std::string, uint64_t> Tree(const std::string& root) {
  std::map<std::string, uint64_t> out;
  if (!std::filesystem::exists(root)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    auto bytes = base::ReadFileToString(base::Fs::Default(), e.path().string());
    out[std::filesystem::relative(e.path(), root).string()] = bytes.ok() ? base::Xxh3(*bytes) : 0;
  }
  return out;
}

// validate --deep reports no error for the snapshot in `dir`.
void ExpectValid(const std::string& dir) {
  ValidateOptions deep;
  deep.deep = true;
  auto report = Validate(base::Fs::Default(), dir, deep);
  ASSERT_OK(report);
  for (const auto& f : report->findings) {
    EXPECT_NE(f.severity, Severity::kError) << dir << ": " << f.rule_id << " " << f.message;
  }
}

PruneOptions Options() {
  PruneOptions o;
  o.keep_last = 2;
  o.min_orphan_age_ms = 0;
  o.now_ms = int64_t{1} << 50;  // far in the future: every file is old enough
  return o;
}

// chk-1..chk-5 of the counter job sharing files in shared/, a leaked shared file and an
// incomplete chk-6.
void WriteCrashRoot(const std::string& root) {
  const std::string job = opsw::CounterJobDir(root);
  for (int64_t id = 1; id <= 5; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id, 12));
  testing::WriteTextFile(job + "/shared/leaked.state", "leak");
  ASSERT_OK(base::Fs::Default().CreateDirs(job + "/chk-6"));
  testing::WriteTextFile(job + "/chk-6/partial.state", "partial");
}

TEST(OpsCrashTest, PrunePowerLossAtEveryOperationKeepsEverySnapshotOldOrNew) {
  TempDir tmp;
  const std::string tmpl = tmp.Sub("template");
  WriteCrashRoot(tmpl);
  base::PosixFs posix;

  // The reference run: how many mutating operations, and the final tree.
  const std::string ref = tmp.Sub("reference");
  testing::CopyTree(tmpl, ref);
  int64_t ops = 0;
  {
    ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(posix, ref, Options()));
    base::FaultInjectionFs counting(posix);
    ASSERT_OK(ExecutePrune(counting, plan));
    ops = counting.operations();
  }
  ASSERT_GE(ops, 10);
  const auto want = Tree(ref);
  const std::string job_rel = opsw::CounterJobDir("");

  for (int64_t n = 0; n <= ops; ++n) {
    SCOPED_TRACE("power loss before operation " + std::to_string(n) + " of " +
                 std::to_string(ops));
    const std::string root = tmp.Sub("run-" + std::to_string(n));
    testing::CopyTree(tmpl, root);
    ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(posix, root, Options()));
    base::FaultInjectionFs faulty(posix);
    faulty.CrashAfter(n);
    const base::Status st = ExecutePrune(faulty, plan);
    EXPECT_EQ(st.ok(), n >= ops) << st.ToString();
    ASSERT_OK(faulty.DropUnsyncedData());

    const std::string job = opsw::CounterJobDir(root);
    for (int id = 1; id <= 5; ++id) {
      const std::string dir = job + "/chk-" + std::to_string(id);
      if (!testing::Exists(dir + "/_metadata")) {
        EXPECT_LE(id, 3) << "retained chk-" << id << " lost its _metadata";
        continue;
      }
      ExpectValid(dir);  // never a _metadata whose files are (partly) gone
    }
    // Planning and running again converges on exactly what an uninterrupted prune leaves.
    ASSERT_OK_AND_ASSIGN(PrunePlan again, PlanPrune(posix, root, Options()));
    ASSERT_OK(ExecutePrune(posix, again));
    EXPECT_EQ(Tree(root), want);
    std::filesystem::remove_all(root);
  }
}

// The contract of relocate and remap: OUT appears complete or not at all; the input is never
// changed.
// With `flink_fixture`, the input is a copy of that Apache Flink snapshot (fixtures/) instead of
// the counter job's checkpoint.
template <typename Write>
void ExpectCopyIsAllOrNothing(const std::string& what, Write write, const std::string& flink_fixture = "") {
  TempDir tmp;
  base::PosixFs posix;
  const std::string src_root = tmp.Sub("src");
  std::string snapshot;
  if (flink_fixture.empty()) {
    const std::string job = opsw::CounterJobDir(src_root);
    for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id, 12));
    snapshot = job + "/chk-2";
  } else {
    snapshot = src_root + "/savepoint";
    testing::CopyTree(testing::FixturePath(flink_fixture), snapshot);
  }
  const auto input = Tree(src_root);

  int64_t ops = 0;
  {
    base::FaultInjectionFs counting(posix);
    ASSERT_OK(write(counting, snapshot, tmp.Sub("reference")));
    ops = counting.operations();
    ExpectValid(tmp.Sub("reference"));
  }
  ASSERT_GE(ops, 5);
  for (int64_t n = 0; n <= ops; ++n) {
    SCOPED_TRACE(what + ": power loss before operation " + std::to_string(n) + " of " +
                 std::to_string(ops));
    const std::string out = tmp.Sub("out-" + std::to_string(n));
    base::FaultInjectionFs faulty(posix);
    faulty.CrashAfter(n);
    const base::Status st = write(faulty, snapshot, out);
    EXPECT_EQ(st.ok(), n >= ops) << st.ToString();
    ASSERT_OK(faulty.DropUnsyncedData());
    EXPECT_EQ(Tree(src_root), input) << "the input changed";
    // A copy that reported success is durable: it survives the power loss.
    if (st.ok()) {
      EXPECT_TRUE(testing::Exists(out + "/_metadata")) << "a completed copy vanished";
    }
    if (testing::Exists(out)) {
      EXPECT_TRUE(testing::Exists(out + "/_metadata"))
          << out << " exists but is not a complete snapshot";
      ExpectValid(out);
    }
  }
}

TEST(OpsCrashTest, RelocatePowerLossAtEveryOperationLeavesOutputCompleteOrAbsent) {
  ExpectCopyIsAllOrNothing("relocate", [](base::Fs& fs, const std::string& snapshot,
                                          const std::string& out) {
    return Relocate(fs, snapshot, out).status();
  });
}

TEST(OpsCrashTest, RemapPowerLossAtEveryOperationLeavesOutputCompleteOrAbsent) {
  ExpectCopyIsAllOrNothing("remap", [](base::Fs& fs, const std::string& snapshot,
                                       const std::string& out) {
    RemapOptions o;
    o.mappings.push_back({"counter", "counter-v2"});
    return Remap(fs, snapshot, out, o).status();
  });
}

constexpr char kFlinkCanonical[] = "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint";

TEST(OpsCrashTest, FlinkRescalePowerLossAtEveryOperationLeavesOutputCompleteOrAbsent) {
  ExpectCopyIsAllOrNothing(
      "rescale-max-parallelism",
      [](base::Fs& fs, const std::string& snapshot, const std::string& out) {
        RescaleOptions o;
        o.new_max_parallelism = 256;
        return RescaleMaxParallelism(fs, snapshot, out, o).status();
      },
      kFlinkCanonical);
}

TEST(OpsCrashTest, FlinkRemapPowerLossAtEveryOperationLeavesOutputCompleteOrAbsent) {
  ExpectCopyIsAllOrNothing(
      "flink remap",
      [](base::Fs& fs, const std::string& snapshot, const std::string& out) {
        RemapOptions o;
        o.mappings.push_back({"CheckpointingSource1", "CheckpointingSource1-v2"});
        return Remap(fs, snapshot, out, o).status();
      },
      kFlinkCanonical);
}

TEST(OpsCrashTest, FlinkRelocatePowerLossAtEveryOperationLeavesOutputCompleteOrAbsent) {
  ExpectCopyIsAllOrNothing(
      "flink relocate",
      [](base::Fs& fs, const std::string& snapshot, const std::string& out) {
        return Relocate(fs, snapshot, out).status();
      },
      kFlinkCanonical);
}

}  // namespace
}  // namespace ckpt::ops
