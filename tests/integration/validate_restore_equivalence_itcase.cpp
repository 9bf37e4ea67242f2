// `ckpt-tool validate --deep --against JOB` never contradicts a restore: over snapshots of the
// engine's own making (a stop-with-savepoint and a retained checkpoint of a killed job) and 20+
// damaged variants of them (truncated, bit-flipped, appended, missing state files and _metadata,
// resized, missing and uncommitted sink part files, changed uids, changed max parallelism in the
// job and in the snapshot, rescaling), validate exits 0 exactly when `ckpt-engine run -s`
// restores. Both binaries run as a user runs them; the test fails (never skips) without them.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "damage_matrix.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

namespace fs = std::filesystem;

std::string JobFile(const testing::TempDir& tmp, const std::string& name, const KeyedSumJob& job,
                    const std::function<std::string(std::string&)>& edit = {}) {
  // Parallelism in the spec (not -p), so validate --against sees the job the engine runs.
  std::string json = "{\"parallelism\": 2, " + KeyedSumJobJson(job).substr(1);
  if (edit) {
    const std::string why = edit(json);
    EXPECT_EQ(why, "") << name;
  }
  const std::string path = tmp.Sub(name);
  std::ofstream(path) << json;
  return path;
}

struct Snapshot {
  std::string dir;       // pristine copy, never damaged
  std::string sink_dir;  // the job's sink directory
  std::string sink_pristine;
  KeyedSumJob job;       // the job that wrote it (rate 0 for restores)
  pb::CheckpointMetadata metadata;
};

struct Variant {
  std::string name;
  const Snapshot* base = nullptr;
  // Damages the copy of the snapshot (`dir`) and/or the sink directory.
  std::function<std::string(const std::string& dir, const pb::CheckpointMetadata& md)> damage;
  // Changes the restoring job's spec JSON.
  std::function<std::string(std::string& json)> job_edit;
  bool allow_non_restored = false;
  bool restore_succeeds = false;  // what the engine must do (so each variant tests something)
};

class ValidateRestoreEquivalenceITCase : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::string(kEngine).size() > 0 && fs::exists(kEngine))
        << "ckpt-engine binary missing (CKPT_ENGINE_BINARY): this test must not be skipped";
    ASSERT_TRUE(std::string(kTool).size() > 0 && fs::exists(kTool))
        << "ckpt-tool binary missing (CKPT_TOOL_BINARY): this test must not be skipped";
  }

  // A stop-with-savepoint of the keyed-sum job.
  void MakeSavepoint(Snapshot* s) {
    s->job.to = 400000;
    s->job.keys = 16;
    s->job.rate_per_second = 100000;
    s->job.sink_dir = tmp_.Sub("out-sp");
    const std::string spec = JobFile(tmp_, "write-sp.json", s->job);
    const std::string log = tmp_.Sub("write-sp.log");
    ASSERT_EQ(WaitExit(Spawn({kEngine, "run", spec, "--checkpoint-dir", tmp_.Sub("chk-sp"),
                              "--interval", "100", "--savepoint-dir",
                              tmp_.Sub("savepoints"), "--stop-with-savepoint-after", "1"},
                             log)),
              0)
        << ReadFile(log);
    const std::string out = ReadFile(log);
    const size_t at = out.find("Savepoint completed. Path: ");
    ASSERT_NE(at, std::string::npos) << out;
    const size_t from = at + 27;
    Finish(out.substr(from, out.find('\n', from) - from), s);
  }

  // The newest retained checkpoint of the job killed (SIGKILL) after two completed checkpoints:
  // its newest part files may still be pending.
  void MakeCheckpoint(Snapshot* s) {
    s->job.to = 400000;
    s->job.keys = 16;
    s->job.rate_per_second = 100000;
    s->job.job_id = "0123456789abcdef0123456789abcdef";
    s->job.sink_dir = tmp_.Sub("out-chk");
    const std::string spec = JobFile(tmp_, "write-chk.json", s->job);
    const std::string root = tmp_.Sub("checkpoints");
    const std::string log = tmp_.Sub("write-chk.log");
    pid_t pid = Spawn({kEngine, "run", spec, "--checkpoint-dir", root, "--interval", "100",
                       "--num-retained", "2"},
                      log);
    const std::string job_dir = root + "/" + s->job.job_id;
    std::string newest;
    // Two complete checkpoints retained, then kill -9 (condition wait with a deadline).
    ckpt::testing::WaitUntil([&] {
      int complete = 0;
      int64_t best = -1;
      if (fs::exists(job_dir)) {
        for (const auto& e : fs::directory_iterator(job_dir)) {
          const std::string name = e.path().filename().string();
          if (name.rfind("chk-", 0) != 0 || !fs::exists(e.path() / "_metadata")) continue;
          ++complete;
          const int64_t n = std::stoll(name.substr(4));
          if (n > best) {
            best = n;
            newest = e.path().string();
          }
        }
      }
      return complete >= 2;
    }, std::chrono::seconds(60), std::chrono::milliseconds(20));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    WaitExit(pid);
    ASSERT_FALSE(newest.empty()) << ReadFile(log);
    Finish(newest, s);
  }

  void Finish(const std::string& path, Snapshot* s) {
    s->dir = tmp_.Sub("pristine-" + fs::path(path).filename().string());
    CopyTree(path, s->dir);
    s->sink_pristine = s->job.sink_dir + ".pristine";
    CopyTree(s->job.sink_dir, s->sink_pristine);
    s->job.rate_per_second = 0;  // restores run to the end at full speed
    ASSERT_OK_AND_ASSIGN(s->metadata,
                         format::ReadMetadataFile(base::Fs::Default(), s->dir + "/_metadata"));
  }

  testing::TempDir tmp_;
};

TEST_F(ValidateRestoreEquivalenceITCase, ValidateExitsZeroExactlyWhenTheEngineRestores) {
  Snapshot sp, chk;
  MakeSavepoint(&sp);
  if (HasFatalFailure()) return;
  MakeCheckpoint(&chk);
  if (HasFatalFailure()) return;
  ASSERT_NE(FirstCommittable(sp.metadata), nullptr) << "the savepoint has no sink committables";
  ASSERT_NE(FirstCommittable(chk.metadata), nullptr) << "the checkpoint has no sink committables";

  const std::vector<SnapshotDamage> matrix = DamageMatrix();
  std::vector<Variant> variants;
  for (const Snapshot* snap : {&sp, &chk}) {
    const std::string k = snap == &sp ? "savepoint/" : "checkpoint/";
    for (const SnapshotDamage& d : matrix) {
      if (d.savepoint_only && snap != &sp) continue;
      variants.push_back(
          {k + d.name, snap, d.damage, d.job_edit, d.allow_non_restored, d.restore_succeeds});
    }
  }
  ASSERT_GE(variants.size(), 20u);

  int index = 0;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    const std::string dir = tmp_.Sub("variant-" + std::to_string(index));
    CopyTree(v.base->dir, dir);
    CopyTree(v.base->sink_pristine, v.base->job.sink_dir);
    if (v.damage) {
      const std::string why = v.damage(dir, v.base->metadata);
      ASSERT_EQ(why, "") << "the damage does not apply";
    }
    const std::string spec =
        JobFile(tmp_, "restore-" + std::to_string(index) + ".json", v.base->job, v.job_edit);
    if (HasFatalFailure()) return;

    std::vector<std::string> validate = {kTool, "validate", "--deep", "--against", spec};
    if (v.allow_non_restored) validate.push_back("-n");
    validate.push_back(dir);
    const std::string vlog = tmp_.Sub("validate-" + std::to_string(index) + ".log");
    const int validate_exit = WaitExit(Spawn(validate, vlog));
    ASSERT_NE(validate_exit, 2) << ReadFile(vlog);

    std::vector<std::string> restore = {kEngine, "run", spec, "-s", dir, "--max-restarts", "0"};
    if (v.allow_non_restored) restore.push_back("-n");
    const std::string rlog = tmp_.Sub("restore-" + std::to_string(index) + ".log");
    const int restore_exit = WaitExit(Spawn(restore, rlog));

    EXPECT_EQ(restore_exit == 0, v.restore_succeeds)
        << "the engine's restore did not do what this variant expects:\n"
        << ReadFile(rlog);
    EXPECT_EQ(validate_exit == 0, restore_exit == 0)
        << "validate exit " << validate_exit << ", restore exit " << restore_exit
        << "\n--- validate:\n"
        << ReadFile(vlog) << "\n--- restore:\n"
        << ReadFile(rlog);
    ++index;
  }
}

}  // namespace
}  // namespace ckpt::itcase
