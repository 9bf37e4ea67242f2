// Crash-consistency of the engine's multi-step writes, as LevelDB's FaultInjectionTestEnv and
// ALICE test them: each write runs under base::FaultInjectionFs with a crash injected after the
// n-th mutating operation (every write, fsync, rename, unlink fails from then on, as if the
// process died there), for every n in turn. After each crash the directory is read back on the
// real filesystem ("after the reboot") and must hold the old state or the new one:
//   - checkpoint publish: chk-2 is complete (and then discovered) or not restorable at all;
//     completion is notified (sinks commit) only for a discoverable checkpoint;
//   - stop-with-savepoint publish: once completion is notified, --from-latest discovery leads
//     to the savepoint, wherever it was written (issue 8 defect 3);
//   - the 2PC commit of the file sink: after the crash, restore commits what the restored
//     snapshot recorded, and every record is committed exactly once.
// Every retained snapshot discovery returns must also restore (RestorePlan::Create).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "checkpoint_test_support.h"
#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/operators/part_file_committer.h"
#include "ckpt/engine/operators/part_file_writer.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

using testing::AckEmpty;
using testing::FakeRuntime;
using testing::MakeGraph;

CheckpointCoordinatorOptions Options(const std::string& root) {
  CheckpointCoordinatorOptions o;
  o.job_id = testing::JobId();
  o.job_name = "job";
  o.job_graph = MakeGraph({{"src", "Source", 2, 128}, {"sink", "Sink", 1, 128}});
  o.checkpoint_dir = base::JoinPath(root, "checkpoints");
  o.savepoint_dir = base::JoinPath(root, "savepoints");
  o.num_retained = 1;
  return o;
}

std::string JobDirOf(const std::string& root) {
  return format::JobDir(base::JoinPath(root, "checkpoints"), *format::JobIdHex(testing::JobId()));
}

// Acks every subtask of the snapshot `options` describes; the source writes real state files
// through `fs` (so the crash can hit them).
void AckAll(base::Fs& fs, CheckpointCoordinator& c, const CheckpointOptions& options) {
  for (uint32_t i = 0; i < 2; ++i) {
    OperatorStateStore store("src");
    auto list = store.GetListState(OperatorListStateDescriptor("offsets", format::types::Int64()));
    list->Add(format::Value(static_cast<int64_t>(100 * options.checkpoint_id + i)));
    base::Result<OperatorSubtaskState> st =
        testing::SnapshotSubtask(fs, options, "src", i, nullptr, &store);
    if (!st.ok()) {
      c.DeclineCheckpoint(options.checkpoint_id, st.status());
      return;
    }
    c.AcknowledgeCheckpoint(options.checkpoint_id, std::move(*st), {});
  }
  AckEmpty(c, options.checkpoint_id, "sink", 0);
}

// One checkpoint completed on the real filesystem: the "old state".
void CompleteFirstCheckpoint(const std::string& root) {
  FakeRuntime runtime;
  ManualClock clock;
  auto c = CheckpointCoordinator::Create(base::Fs::Default(), clock, runtime, Options(root));
  ASSERT_OK(c.status());
  ASSERT_OK_AND_ASSIGN(int64_t id, (*c)->TriggerCheckpoint());
  AckAll(base::Fs::Default(), **c, runtime.injected.at(0));
  ASSERT_EQ(runtime.completed, std::vector<int64_t>{id});
}

// The snapshot discovery chooses restores, and so does every other usable one.
void ExpectDiscoveredSnapshotsRestore(const std::string& job_dir, const pb::JobGraph& graph,
                                      const std::string& where) {
  ASSERT_OK_AND_ASSIGN(DiscoveredCheckpoints found,
                       DiscoverCheckpoints(base::Fs::Default(), job_dir));
  ASSERT_FALSE(found.complete.empty()) << where << ": no usable snapshot left";
  for (const CompletedCheckpoint& c : found.complete) {
    base::Status restored = RestorePlan::Create(base::Fs::Default(), c.dir, graph, {}).status();
    EXPECT_TRUE(restored.ok()) << where << ": " << c.dir << ": " << restored.ToString();
  }
}

// Runs `scenario` with a crash after every possible number of operations, until a run needs no
// more operations than allowed (the crash came too late to matter): that run is the new state.
template <typename Scenario>
int CrashAtEveryStep(Scenario scenario) {
  int runs = 0;
  for (int64_t n = 0;; ++n) {
    ckpt::testing::TempDir dir;
    base::FaultInjectionFs fs(base::Fs::Default());
    const bool crashed = scenario(dir.path(), fs, n);
    ++runs;
    if (!crashed) break;
    if (::testing::Test::HasFatalFailure() || n > 500) break;
  }
  return runs;
}

TEST(CheckpointCrashConsistencyTest, CheckpointPublishIsAtomicAtEveryCrashPoint) {
  int runs = CrashAtEveryStep([](const std::string& root, base::FaultInjectionFs& fs, int64_t n) {
    CompleteFirstCheckpoint(root);
    const std::string where = "crash after " + std::to_string(n) + " operations";
    FakeRuntime runtime;
    ManualClock clock;
    {
      auto c = CheckpointCoordinator::Create(fs, clock, runtime, Options(root));
      EXPECT_OK(c.status());
      if (!c.ok()) return false;
      fs.CrashAfter(n);
      base::Result<int64_t> id = (*c)->TriggerCheckpoint();
      if (id.ok()) AckAll(fs, **c, runtime.injected.at(0));
    }
    const bool crashed = fs.crashed();
    // After the reboot: chk-2 is complete or not a checkpoint at all.
    const std::string job_dir = JobDirOf(root);
    const std::string chk2 = base::JoinPath(job_dir, "chk-2");
    ExpectDiscoveredSnapshotsRestore(job_dir, Options(root).job_graph, where);
    base::Result<DiscoveredCheckpoints> found = DiscoverCheckpoints(base::Fs::Default(), job_dir);
    EXPECT_OK(found.status());
    if (!found.ok() || found->complete.empty()) return crashed;
    const bool published = base::Fs::Default().Stat(base::JoinPath(chk2, "_metadata")).ok();
    if (published) {
      EXPECT_EQ(found->complete.front().checkpoint_id, 2) << where;
    } else {
      EXPECT_EQ(found->complete.front().checkpoint_id, 1) << where;
    }
    // Sinks commit only what a resume will find: notified => discoverable.
    for (int64_t done : runtime.completed) {
      EXPECT_EQ(done, 2) << where;
      EXPECT_EQ(found->complete.front().checkpoint_id, 2)
          << where << ": completion notified but a resume would restore checkpoint 1";
    }
    if (!crashed) {
      EXPECT_EQ(runtime.completed, std::vector<int64_t>{2});
    }
    return crashed;
  });
  EXPECT_GT(runs, 5);
}

TEST(CheckpointCrashConsistencyTest, StopWithSavepointIsDiscoverableBeforeSinksCommit) {
  int runs = CrashAtEveryStep([](const std::string& root, base::FaultInjectionFs& fs, int64_t n) {
    CompleteFirstCheckpoint(root);
    const std::string where = "crash after " + std::to_string(n) + " operations";
    FakeRuntime runtime;
    ManualClock clock;
    {
      // As JobRunner does: ids continue after the job's highest checkpoint.
      CheckpointCoordinatorOptions o = Options(root);
      o.first_checkpoint_id = 2;
      auto c = CheckpointCoordinator::Create(fs, clock, runtime, o);
      EXPECT_OK(c.status());
      if (!c.ok()) return false;
      fs.CrashAfter(n);
      auto future = (*c)->TriggerSavepoint("", pb::POST_ACTION_STOP);
      if (!runtime.injected.empty()) AckAll(fs, **c, runtime.injected.at(0));
      future.wait();
    }
    const bool crashed = fs.crashed();
    const std::string job_dir = JobDirOf(root);
    ExpectDiscoveredSnapshotsRestore(job_dir, Options(root).job_graph, where);
    base::Result<DiscoveredCheckpoints> found = DiscoverCheckpoints(base::Fs::Default(), job_dir);
    EXPECT_OK(found.status());
    if (!found.ok() || found->complete.empty()) return crashed;
    if (!runtime.completed.empty()) {
      // Sinks were told to commit the savepoint's side effects: a resume must restore it.
      EXPECT_EQ(found->complete.front().kind, pb::SAVEPOINT)
          << where << ": the stop savepoint committed but --from-latest would restore "
          << found->complete.front().dir;
      EXPECT_EQ(found->origins.front(), SnapshotOrigin::kSavepointRef) << where;
    }
    if (!crashed) {
      EXPECT_EQ(runtime.completed.size(), 1u) << where;
    }
    return crashed;
  });
  EXPECT_GT(runs, 5);
}

// The 2PC file sink: records 0..9 written into one part file closed at checkpoint 1, committed
// under a crash at every step; then a restore (real filesystem) commits what checkpoint 1
// recorded. Every record is committed exactly once, none is lost.
TEST(CheckpointCrashConsistencyTest, SinkCommitCommitsEveryRecordExactlyOnce) {
  int runs = CrashAtEveryStep([](const std::string& root, base::FaultInjectionFs& fs, int64_t n) {
    const std::string where = "crash after " + std::to_string(n) + " operations";
    const std::string out = base::JoinPath(root, "out");
    EXPECT_OK(base::Fs::Default().CreateDirs(out));
    std::optional<operators::PendingPartFile> pending;
    {
      operators::PartFileWriter writer(base::Fs::Default(), out, "sink", 0, 0);
      for (int i = 0; i < 10; ++i) EXPECT_OK(writer.WriteLine(std::to_string(i)));
      base::Result<std::optional<operators::PendingPartFile>> closed = writer.CloseForCommit(1);
      EXPECT_OK(closed.status());
      if (!closed.ok() || !*closed) return false;
      pending = **closed;
    }
    // Records written after the checkpoint, never committed (in progress at the crash).
    {
      operators::PartFileWriter writer(base::Fs::Default(), out, "sink", 0, 1);
      EXPECT_OK(writer.WriteLine("after-the-checkpoint"));
      writer.Abandon();
    }
    fs.CrashAfter(n);
    base::Status committed = operators::CommitPendingPartFile(fs, *pending);
    const bool crashed = fs.crashed();
    if (!crashed) {
      EXPECT_TRUE(committed.ok()) << where << ": " << committed.ToString();
    }
    // Reboot and restore from checkpoint 1.
    base::Result<operators::PartFileRecovery> recovered = operators::RecoverPartFiles(
        base::Fs::Default(), out, "sink", 0, 1, {*pending});
    EXPECT_TRUE(recovered.ok()) << where << ": " << recovered.status().ToString();
    std::multiset<std::string> lines;
    base::Result<std::vector<base::DirEntry>> entries = base::Fs::Default().ListDir(out);
    EXPECT_OK(entries.status());
    if (!entries.ok()) return crashed;
    for (const base::DirEntry& e : *entries) {
      if (e.name.rfind("part-", 0) != 0) continue;  // committed files only
      base::Result<std::string> text =
          base::ReadFileToString(base::Fs::Default(), base::JoinPath(out, e.name));
      EXPECT_OK(text.status());
      if (!text.ok()) continue;
      size_t start = 0;
      for (size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1) {
        lines.insert(text->substr(start, nl - start));
      }
    }
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(lines.count(std::to_string(i)), 1u) << where << ": record " << i;
    }
    EXPECT_EQ(lines.size(), 10u) << where;
    return crashed;
  });
  EXPECT_GE(runs, 3);
}

}  // namespace
}  // namespace ckpt::engine
