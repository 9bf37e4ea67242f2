// Tests of the checkpoint coordinator (engine/src/checkpoint/checkpoint_coordinator*.cpp) with a
// ManualClock and a recording runtime: periodic triggering, min pause, max concurrent, expiry,
// declines, tolerable failures, late acks, savepoints, metadata contents (the key type of a
// subtask that saw no key) and subsumption.
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint_test_support.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/forwarding_fs.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

using testing::AckEmpty;
using testing::FakeRuntime;
using testing::MakeGraph;

class CheckpointCoordinatorTest : public ::testing::Test {
 protected:
  CheckpointCoordinatorOptions Options() {
    CheckpointCoordinatorOptions o;
    o.job_id = testing::JobId();
    o.job_name = "job";
    // src (p=2) -> sink (p=1): three acks per checkpoint.
    o.job_graph = MakeGraph({{"src", "Source", 2, 128}, {"sink", "Sink", 1, 128}});
    o.checkpoint_dir = dir_.Sub("checkpoints");
    o.savepoint_dir = dir_.Sub("savepoints");
    o.interval_ms = 100;
    return o;
  }
  std::unique_ptr<CheckpointCoordinator> Make(CheckpointCoordinatorOptions o) {
    auto c = CheckpointCoordinator::Create(fs_, clock_, runtime_, std::move(o));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::move(*c);
  }
  // Acks every subtask of checkpoint `id`; the source writes real operator state.
  void AckAll(CheckpointCoordinator& c, int64_t id, pb::SubtaskMetrics metrics = {}) {
    CheckpointOptions options;
    for (const auto& o : runtime_.injected) {
      if (o.checkpoint_id == id) options = o;
    }
    for (uint32_t i = 0; i < 2; ++i) {
      OperatorStateStore store("src");
      auto list = store.GetListState(
          OperatorListStateDescriptor("offsets", format::types::Int64()));
      list->Add(format::Value(static_cast<int64_t>(100 * id + i)));
      auto st = testing::SnapshotSubtask(fs_, options, "src", i, nullptr, &store);
      ASSERT_TRUE(st.ok()) << st.status().ToString();
      c.AcknowledgeCheckpoint(id, std::move(*st), metrics);
    }
    AckEmpty(c, id, "sink", 0, metrics);
  }
  std::string JobDir() {
    return format::JobDir(dir_.Sub("checkpoints"), *format::JobIdHex(testing::JobId()));
  }
  bool Exists(const std::string& p) { return fs_.Stat(p).ok(); }

  base::Fs& fs_ = base::Fs::Default();
  ckpt::testing::TempDir dir_;
  ManualClock clock_;
  FakeRuntime runtime_;
};

TEST_F(CheckpointCoordinatorTest, TriggersPeriodicallyHonouringMaxConcurrent) {
  auto c = Make(Options());
  c->Tick();
  EXPECT_TRUE(runtime_.injected.empty());  // the first checkpoint comes one interval in
  clock_.Advance(99);
  c->Tick();
  EXPECT_TRUE(runtime_.injected.empty());
  clock_.Advance(1);
  c->Tick();
  ASSERT_EQ(runtime_.injected.size(), 1u);
  EXPECT_EQ(runtime_.injected[0].checkpoint_id, 1);
  EXPECT_EQ(runtime_.injected[0].snapshot_dir, format::CheckpointDir(JobDir(), 1));
  EXPECT_TRUE(Exists(runtime_.injected[0].snapshot_dir));
  clock_.Advance(100);
  c->Tick();
  EXPECT_EQ(runtime_.injected.size(), 1u);  // max concurrent 1
  AckAll(*c, 1);
  EXPECT_EQ(runtime_.completed, std::vector<int64_t>{1});
  c->Tick();
  ASSERT_EQ(runtime_.injected.size(), 2u);
  EXPECT_EQ(runtime_.injected[1].checkpoint_id, 2);
  EXPECT_EQ(c->counts().completed, 1u);
  EXPECT_EQ(c->counts().in_progress, 1u);
}

TEST_F(CheckpointCoordinatorTest, MinPauseDelaysTheNextTrigger) {
  auto o = Options();
  o.interval_ms = 10;
  o.min_pause_ms = 500;
  auto c = Make(o);
  clock_.Advance(10);
  c->Tick();
  ASSERT_EQ(runtime_.injected.size(), 1u);
  clock_.Advance(50);
  AckAll(*c, 1);
  clock_.Advance(499);
  c->Tick();
  EXPECT_EQ(runtime_.injected.size(), 1u);
  clock_.Advance(1);
  c->Tick();
  EXPECT_EQ(runtime_.injected.size(), 2u);
}

TEST_F(CheckpointCoordinatorTest, MetadataIsWrittenOnlyAfterTheLastAck) {
  auto c = Make(Options());
  ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
  const std::string dir = runtime_.injected.at(0).snapshot_dir;
  AckEmpty(*c, id, "sink", 0);
  EXPECT_FALSE(Exists(base::JoinPath(dir, "_metadata")));
  EXPECT_TRUE(runtime_.completed.empty());
  clock_.Advance(70);
  pb::SubtaskMetrics m;
  m.set_sync_duration(3);
  m.set_async_duration(20);
  m.set_alignment_duration(5);
  AckAll(*c, id, m);  // the duplicate sink ack is ignored
  ASSERT_TRUE(Exists(base::JoinPath(dir, "_metadata")));
  EXPECT_EQ(runtime_.completed, std::vector<int64_t>{id});
  pb::CheckpointMetadata md = testing::ReadBackVerified(fs_, dir);
  EXPECT_EQ(md.checkpoint_id(), id);
  EXPECT_EQ(md.kind(), pb::CHECKPOINT);
  EXPECT_EQ(md.checkpoint_type(), pb::FULL);
  EXPECT_EQ(md.retention(), pb::NO_EXTERNALIZED);
  EXPECT_EQ(md.job_name(), "job");
  EXPECT_EQ(md.job_graph().operators_size(), 2);
  EXPECT_EQ(md.trigger_timestamp(), clock_.NowMs() - 70);
  EXPECT_EQ(md.completion_timestamp(), clock_.NowMs());
  EXPECT_EQ(md.metrics().end_to_end_duration(), 70);
  EXPECT_EQ(md.metrics().num_subtasks(), 3u);
  EXPECT_EQ(md.metrics().num_acknowledged_subtasks(), 3u);
  ASSERT_EQ(md.operators_size(), 1);  // the stateless sink is not recorded
  const pb::OperatorState& src = md.operators(0);
  ASSERT_EQ(src.subtasks_size(), 2);
  uint64_t files = 0;
  for (const auto& f : md.files()) files += f.size_bytes();
  EXPECT_EQ(md.metrics().state_size(), files);
  EXPECT_EQ(md.metrics().checkpointed_size(), files);
  EXPECT_EQ(src.subtasks(1).metrics().sync_duration(), 3);
  EXPECT_EQ(src.subtasks(1).metrics().async_duration(), 20);
  EXPECT_EQ(src.subtasks(1).metrics().end_to_end_duration(), 70);
  EXPECT_EQ(src.subtasks(1).operator_state(0).file_index(), 1u);  // rebased into one table
  EXPECT_EQ(md.properties().at("execution.checkpointing.interval"), "100");
}

TEST_F(CheckpointCoordinatorTest, ExpiredCheckpointIsAbortedAndDeleted) {
  auto o = Options();
  o.timeout_ms = 1000;
  o.tolerable_failures = 1;
  auto c = Make(o);
  ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
  const std::string dir = runtime_.injected.at(0).snapshot_dir;
  AckAll(*c, id);  // completes: not expired
  ASSERT_OK_AND_ASSIGN(int64_t id2, c->TriggerCheckpoint());
  const std::string dir2 = runtime_.injected.at(1).snapshot_dir;
  AckEmpty(*c, id2, "sink", 0);
  clock_.Advance(999);
  c->Tick();
  EXPECT_TRUE(runtime_.aborted.empty());
  clock_.Advance(1);
  c->Tick();
  ASSERT_EQ(runtime_.aborted, std::vector<int64_t>{id2});
  EXPECT_EQ(runtime_.abort_reasons[0].code(), base::StatusCode::kCancelled);
  EXPECT_NE(runtime_.abort_reasons[0].message().find("expired"), std::string::npos);
  EXPECT_FALSE(Exists(dir2));
  EXPECT_TRUE(Exists(dir));
  EXPECT_EQ(c->counts().failed, 1u);
  EXPECT_TRUE(runtime_.failures.empty());  // one failure tolerated
  // A late ack of the expired checkpoint is dropped and leaves nothing behind.
  ASSERT_OK(fs_.CreateDirs(dir2));
  AckEmpty(*c, id2, "sink", 0);
  EXPECT_FALSE(Exists(dir2));
  EXPECT_EQ(runtime_.completed, std::vector<int64_t>{id});
}

TEST_F(CheckpointCoordinatorTest, TolerableFailuresThenFailJob) {
  auto o = Options();
  o.tolerable_failures = 2;
  auto c = Make(o);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
    c->DeclineCheckpoint(id, base::Status::IOError("disk full"));
    EXPECT_FALSE(Exists(runtime_.injected.back().snapshot_dir));
    EXPECT_EQ(runtime_.failures.size(), i < 2 ? 0u : 1u);
  }
  EXPECT_NE(runtime_.failures[0].message().find("disk full"), std::string::npos);
  EXPECT_NE(runtime_.failures[0].message().find("tolerable"), std::string::npos);
  // A success resets the count.
  ASSERT_OK_AND_ASSIGN(int64_t ok_id, c->TriggerCheckpoint());
  AckAll(*c, ok_id);
  ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
  c->DeclineCheckpoint(id, base::Status::IOError("x"));
  EXPECT_EQ(runtime_.failures.size(), 1u);
}

TEST_F(CheckpointCoordinatorTest, FailedInjectionFailsTheCheckpoint) {
  auto c = Make(Options());
  runtime_.inject_status = base::Status::FailedPrecondition("task src (1/2) is not running");
  ASSERT_STATUS(c->TriggerCheckpoint(), kFailedPrecondition, "not running");
  EXPECT_EQ(runtime_.aborted.size(), 1u);
  EXPECT_TRUE(c->PendingCheckpointIds().empty());
  EXPECT_FALSE(Exists(runtime_.injected[0].snapshot_dir));
  // "Job not running" is not a failed checkpoint (tolerable failures is 0 here).
  EXPECT_TRUE(runtime_.failures.empty());
  EXPECT_EQ(c->counts().failed, 0u);
  runtime_.inject_status = base::Status::IOError("network down");
  ASSERT_STATUS(c->TriggerCheckpoint(), kIOError, "network down");
  EXPECT_EQ(runtime_.failures.size(), 1u);
  EXPECT_EQ(c->counts().failed, 1u);
}

TEST_F(CheckpointCoordinatorTest, SubsumedCheckpointsAreDeletedKeepingNumRetained) {
  auto o = Options();
  o.num_retained = 2;
  auto c = Make(o);
  std::vector<std::string> dirs;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
    dirs.push_back(runtime_.injected.back().snapshot_dir);
    AckAll(*c, id);
  }
  EXPECT_FALSE(Exists(dirs[0]));
  EXPECT_TRUE(Exists(dirs[1]));
  EXPECT_TRUE(Exists(dirs[2]));
  ASSERT_TRUE(c->LatestCompletedCheckpoint().has_value());
  EXPECT_EQ(c->LatestCompletedCheckpoint()->checkpoint_id, 3);
  // Retention on cancel: NO_EXTERNALIZED deletes what is left.
  ASSERT_OK(c->Shutdown(JobTermination::kCancelled));
  EXPECT_FALSE(Exists(dirs[1]));
  EXPECT_FALSE(Exists(dirs[2]));
}

TEST_F(CheckpointCoordinatorTest, CompletionSubsumesOlderPendingCheckpoints) {
  auto o = Options();
  o.max_concurrent = 2;
  auto c = Make(o);
  ASSERT_OK_AND_ASSIGN(int64_t a, c->TriggerCheckpoint());
  ASSERT_OK_AND_ASSIGN(int64_t b, c->TriggerCheckpoint());
  ASSERT_STATUS(c->TriggerCheckpoint(), kFailedPrecondition, "max concurrent");
  AckAll(*c, b);
  EXPECT_EQ(runtime_.aborted, std::vector<int64_t>{a});
  EXPECT_TRUE(runtime_.failures.empty());
  EXPECT_FALSE(Exists(runtime_.injected[0].snapshot_dir));
}

TEST_F(CheckpointCoordinatorTest, IntermediateSavepointIsNotNotifiedAndNeverDeleted) {
  auto o = Options();
  o.num_retained = 1;
  auto c = Make(o);
  auto future = c->TriggerSavepoint("");
  ASSERT_EQ(runtime_.injected.size(), 1u);
  const CheckpointOptions sp = runtime_.injected[0];
  EXPECT_TRUE(sp.is_savepoint());
  EXPECT_FALSE(sp.is_synchronous());
  EXPECT_EQ(base::DirName(sp.snapshot_dir), dir_.Sub("savepoints"));
  EXPECT_TRUE(format::IsSavepointDirName(base::BaseName(sp.snapshot_dir)));
  EXPECT_EQ(base::BaseName(sp.snapshot_dir).substr(0, 16), "savepoint-012345");
  AckAll(*c, sp.checkpoint_id);
  ASSERT_EQ(future.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  ASSERT_OK_AND_ASSIGN(CompletedCheckpoint done, future.get());
  EXPECT_EQ(done.dir, sp.snapshot_dir);
  EXPECT_TRUE(runtime_.completed.empty());  // sinks do not commit on intermediate savepoints
  pb::CheckpointMetadata md = testing::ReadBackVerified(fs_, done.dir);
  EXPECT_EQ(md.kind(), pb::SAVEPOINT);
  EXPECT_EQ(md.savepoint_format(), pb::CANONICAL);
  EXPECT_EQ(md.post_action(), pb::POST_ACTION_NONE);
  // Checkpoints afterwards subsume each other but never the savepoint.
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
    AckAll(*c, id);
  }
  ASSERT_OK(c->Shutdown(JobTermination::kCancelled));
  EXPECT_TRUE(Exists(base::JoinPath(done.dir, "_metadata")));
}

// A checkpoint triggered while a savepoint is pending would reach a task still aligning the
// savepoint (unaligned barriers overtake buffers) and make it abandon the savepoint: a
// stop-with-savepoint of the kill campaign failed that way ("savepoint 1749 declined by a task:
// sum -> sink (2/4): checkpoint 1749 abandoned for a newer barrier").
TEST_F(CheckpointCoordinatorTest, PendingSavepointHoldsCheckpointsBack) {
  auto c = Make(Options());
  auto future = c->TriggerSavepoint("", pb::POST_ACTION_STOP);
  ASSERT_EQ(runtime_.injected.size(), 1u);
  clock_.Advance(1000);
  c->Tick();
  EXPECT_EQ(runtime_.injected.size(), 1u);  // no periodic checkpoint
  ASSERT_STATUS(c->TriggerCheckpoint().status(), kFailedPrecondition, "savepoint is in progress");
  AckAll(*c, runtime_.injected[0].checkpoint_id);
  ASSERT_OK(future.get().status());
  c->Tick();
  ASSERT_EQ(runtime_.injected.size(), 2u);  // periodic checkpoints go on
  EXPECT_FALSE(runtime_.injected[1].is_savepoint());
}

TEST_F(CheckpointCoordinatorTest, StopWithSavepointIsNotifiedAndRelocatable) {
  auto c = Make(Options());
  auto future = c->TriggerSavepoint(dir_.Sub("elsewhere"), pb::POST_ACTION_STOP);
  const CheckpointOptions sp = runtime_.injected.at(0);
  EXPECT_TRUE(sp.is_synchronous());
  AckAll(*c, sp.checkpoint_id);
  ASSERT_OK_AND_ASSIGN(CompletedCheckpoint done, future.get());
  EXPECT_EQ(runtime_.completed, std::vector<int64_t>{sp.checkpoint_id});
  // Move the savepoint: it restores from its new place (relative paths only).
  const std::string moved = dir_.Sub("moved/sp");
  ckpt::testing::CopyTree(done.dir, moved);
  ASSERT_OK(base::RemoveAll(fs_, done.dir));
  pb::CheckpointMetadata md = testing::ReadBackVerified(fs_, moved);
  EXPECT_EQ(md.post_action(), pb::POST_ACTION_STOP);
  ASSERT_OK_AND_ASSIGN(auto plan,
                       RestorePlan::Create(fs_, base::JoinPath(moved, "_metadata"),
                                           Options().job_graph, {}));
  OperatorStateStore store("src");
  ASSERT_OK(plan->RestoreOperatorState(testing::Id("src"), 1, 2, &store));
  ASSERT_OK_AND_ASSIGN(auto list, store.GetListState(OperatorListStateDescriptor(
                                      "offsets", format::types::Int64())));
  ASSERT_EQ(list.Get().size(), 1u);
  EXPECT_EQ(std::get<int64_t>(list.Get()[0].v), 100 * sp.checkpoint_id + 1);
}

TEST_F(CheckpointCoordinatorTest, SavepointFailureFulfilsTheFuture) {
  auto c = Make(Options());
  auto future = c->TriggerSavepoint("");
  c->DeclineCheckpoint(runtime_.injected.at(0).checkpoint_id, base::Status::IOError("boom"));
  ASSERT_STATUS(future.get(), kIOError, "boom");
  EXPECT_TRUE(runtime_.failures.empty());  // savepoint failures do not fail the job
  auto o = Options();
  o.savepoint_dir.clear();
  auto c2 = Make(o);
  auto refused = c2->TriggerSavepoint("");
  ASSERT_STATUS(refused.get(), kInvalidArgument, "savepoint directory");
}

TEST_F(CheckpointCoordinatorTest, AbortPendingOnFailoverDoesNotCountAsFailure) {
  auto c = Make(Options());
  ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
  c->AbortPendingCheckpoints(base::Status::Cancelled("task failure"));
  EXPECT_EQ(runtime_.aborted, std::vector<int64_t>{id});
  EXPECT_TRUE(runtime_.failures.empty());
  EXPECT_TRUE(c->PendingCheckpointIds().empty());
}

TEST_F(CheckpointCoordinatorTest, SkipsIdsOfPublishedCheckpointsAndReplacesIncompleteOnes) {
  // An earlier run left chk-1 complete and chk-2 incomplete.
  {
    auto c = Make(Options());
    ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
    AckAll(*c, id);
  }
  const std::string chk2 = format::CheckpointDir(JobDir(), 2);
  ASSERT_OK(fs_.CreateDirs(chk2));
  ASSERT_OK(base::WriteFileAtomic(fs_, base::JoinPath(chk2, "junk"), "x"));
  runtime_.injected.clear();
  auto c = Make(Options());  // first_checkpoint_id 1 again
  ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
  EXPECT_EQ(id, 2);
  EXPECT_FALSE(Exists(base::JoinPath(chk2, "junk")));
  AckAll(*c, id);
  testing::ReadBackVerified(fs_, chk2);
}

TEST_F(CheckpointCoordinatorTest, BackgroundThreadTriggersWithTheClock) {
  auto o = Options();
  o.interval_ms = 10;
  auto c = Make(o);
  c->Start();
  clock_.Advance(10);
  for (int i = 0; i < 2000 && c->counts().triggered == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  c->Stop();
  EXPECT_EQ(c->counts().triggered, 1u);
}

// The first trigger's coordinator snapshot waits for another trigger's barriers (up to a
// deadline): without serialized triggers the later, newer snapshot injected first and the
// older one's barriers were then dropped by every task, so it hung until its timeout.
class SlowFirstTriggerRuntime : public FakeRuntime {
 public:
  base::Result<std::vector<CoordinatorSnapshot>> SnapshotCoordinators(int64_t id) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (!first_entered_) {
      first_entered_ = true;
      cv_.notify_all();
      cv_.wait_for(lock, std::chrono::seconds(1), [&] { return !injected.empty(); });
    }
    (void)id;
    return coordinators;
  }
  base::Status InjectBarriers(const CheckpointOptions& options) override {
    base::Status st = FakeRuntime::InjectBarriers(options);
    cv_.notify_all();
    return st;
  }
  bool WaitFirstEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return first_entered_; });
  }

 private:
  std::condition_variable cv_;
  bool first_entered_ = false;
};

TEST_F(CheckpointCoordinatorTest, RacingTriggersInjectBarriersInIdOrder) {
  SlowFirstTriggerRuntime runtime;
  auto c = CheckpointCoordinator::Create(fs_, clock_, runtime, Options());
  ASSERT_OK(c.status());
  // (A checkpoint first: a pending savepoint holds checkpoints back.)
  std::optional<base::Result<int64_t>> checkpoint;
  std::thread periodic([&] { checkpoint = (*c)->TriggerCheckpoint(); });
  ASSERT_TRUE(runtime.WaitFirstEntered());
  std::shared_future<base::Result<CompletedCheckpoint>> savepoint = (*c)->TriggerSavepoint("");
  periodic.join();
  ASSERT_TRUE(checkpoint.has_value());
  ASSERT_OK(checkpoint->status());
  std::vector<int64_t> order;
  std::vector<pb::SnapshotKind> kinds;
  for (const CheckpointOptions& o : runtime.injected) {
    order.push_back(o.checkpoint_id);
    kinds.push_back(o.kind);
  }
  ASSERT_EQ(order.size(), 2u);
  EXPECT_LT(order[0], order[1]) << "barriers injected out of id order";
  EXPECT_EQ(order[0], **checkpoint);
  EXPECT_EQ(kinds[1], pb::SAVEPOINT);
}

// Holds the rename that publishes one snapshot's `_metadata` until Release().
class HeldPublishFs final : public ckpt::testing::ForwardingFs {
 public:
  explicit HeldPublishFs(std::string metadata_path) : held_(std::move(metadata_path)) {}
  base::Status Rename(const std::string& from, const std::string& to) override {
    if (to == held_) {
      std::unique_lock<std::mutex> lock(mu_);
      entered_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    }
    return ForwardingFs::Rename(from, to);
  }
  bool WaitEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  const std::string held_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool released_ = false;
};

// A fully acknowledged checkpoint still writing its `_metadata` counts toward max_concurrent
// (as in Flink): were the next one triggered at once, it could complete first and subsume one
// that every task had acknowledged (RestCheckpointITCase with a 10 ms interval).
TEST_F(CheckpointCoordinatorTest, CheckpointBeingFinalizedCountsTowardMaxConcurrent) {
  HeldPublishFs fs(base::JoinPath(format::CheckpointDir(JobDir(), 1), format::kMetadataFileName));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CheckpointCoordinator> c,
                       CheckpointCoordinator::Create(fs, clock_, runtime_, Options()));
  ASSERT_OK_AND_ASSIGN(int64_t first, c->TriggerCheckpoint());
  std::thread finalize_first([&] { AckAll(*c, first); });
  ASSERT_TRUE(fs.WaitEntered());
  ASSERT_STATUS(c->TriggerCheckpoint(), kFailedPrecondition, "1 checkpoint(s) in progress");
  fs.Release();
  finalize_first.join();
  EXPECT_EQ(runtime_.completed, std::vector<int64_t>{first});
  ASSERT_OK_AND_ASSIGN(int64_t second, c->TriggerCheckpoint());
  EXPECT_EQ(second, first + 1);
}

// With two concurrent checkpoints, checkpoint 2 can be acknowledged while 1 still publishes its
// `_metadata` (slow here, as an fsync under load). Had 2 completed and been notified (the sinks
// commit it) before 1 reached the store, Latest() would be 1 and a restart would restore state
// older than what the sinks committed (UnalignedCheckpointITCase two_input_p20: duplicates).
TEST_F(CheckpointCoordinatorTest, OverlappingFinalizationsCompleteInCheckpointOrder) {
  HeldPublishFs fs(base::JoinPath(format::CheckpointDir(JobDir(), 1), format::kMetadataFileName));
  CheckpointCoordinatorOptions o = Options();
  o.max_concurrent = 2;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CheckpointCoordinator> c,
                       CheckpointCoordinator::Create(fs, clock_, runtime_, o));
  ASSERT_OK_AND_ASSIGN(int64_t first, c->TriggerCheckpoint());
  ASSERT_EQ(first, 1);
  std::thread finalize_first([&] { AckAll(*c, first); });
  ASSERT_TRUE(fs.WaitEntered());
  ASSERT_OK_AND_ASSIGN(int64_t second, c->TriggerCheckpoint());
  std::thread finalize_second([&] { AckAll(*c, second); });
  // Without ordering, 2 completes now; with it, 2 waits for 1 (the wait runs out).
  ckpt::testing::WaitUntil(
      [&] {
        std::lock_guard<std::mutex> lock(runtime_.mu_);
        return !runtime_.completed.empty();
      },
      std::chrono::milliseconds(500));
  fs.Release();
  finalize_first.join();
  finalize_second.join();
  EXPECT_EQ(runtime_.completed, (std::vector<int64_t>{first, second}));
  std::optional<CompletedCheckpoint> latest = c->LatestCompletedCheckpoint();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->checkpoint_id, second);
}

// A checkpoint whose last ack comes after a newer snapshot completed and was notified (a
// stop-with-savepoint here; a newer checkpoint that got ahead of it the same way) is subsumed:
// never notified, never the store's latest, its directory removed.
TEST_F(CheckpointCoordinatorTest, CheckpointOvertakenByANewerCompletionIsSubsumed) {
  auto c = Make(Options());
  ASSERT_OK_AND_ASSIGN(int64_t older, c->TriggerCheckpoint());
  auto future = c->TriggerSavepoint(dir_.Sub("sp"), pb::POST_ACTION_STOP);
  const CheckpointOptions sp = runtime_.injected.at(1);
  ASSERT_TRUE(sp.is_synchronous());
  AckAll(*c, sp.checkpoint_id);
  ASSERT_OK(future.get().status());
  AckAll(*c, older);
  EXPECT_EQ(runtime_.completed, std::vector<int64_t>{sp.checkpoint_id});
  EXPECT_EQ(runtime_.aborted, std::vector<int64_t>{older});
  EXPECT_FALSE(c->LatestCompletedCheckpoint().has_value());
  EXPECT_FALSE(Exists(runtime_.injected[0].snapshot_dir));
  EXPECT_TRUE(runtime_.failures.empty());
}

// A keyed state's key type is learnt from the first key a subtask sees: a subtask that had no
// record before the barrier records the placeholder BYTES, and the metadata takes the type from
// a subtask that knew it, whichever acknowledged first.
TEST(CheckpointMetadataTest, KeyTypeComesFromASubtaskThatSawAKey) {
  ckpt::testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  FakeRuntime runtime;
  ManualClock clock;
  CheckpointCoordinatorOptions o;
  o.job_id = testing::JobId();
  o.job_graph = MakeGraph({{"sum", "Sum", 2, 128}});
  o.checkpoint_dir = dir.path();
  ASSERT_OK_AND_ASSIGN(auto c, CheckpointCoordinator::Create(fs, clock, runtime, o));
  ASSERT_OK_AND_ASSIGN(int64_t id, c->TriggerCheckpoint());
  const pb::StateDescriptor sum = ValueStateDescriptor("sum", format::types::Int64());
  HeapKeyedStateBackend idle(128, {0, 63}, "sum (1/2)");
  ASSERT_OK(idle.GetValueState(sum).status());
  HeapKeyedStateBackend busy(128, {64, 127}, "sum (2/2)");
  int64_t key = 0;  // the first key whose key group is in [64, 127]
  while (!busy.SetCurrentKey(format::Value(key)).ok()) ++key;
  ASSERT_OK(busy.GetValueState(sum)->Update(format::Value(int64_t{1})));
  ASSERT_OK_AND_ASSIGN(auto first,
                       testing::SnapshotSubtask(fs, runtime.injected[0], "sum", 0, &idle, nullptr));
  ASSERT_OK_AND_ASSIGN(auto second,
                       testing::SnapshotSubtask(fs, runtime.injected[0], "sum", 1, &busy, nullptr));
  c->AcknowledgeCheckpoint(id, std::move(first), {});
  c->AcknowledgeCheckpoint(id, std::move(second), {});
  ASSERT_EQ(runtime.completed, std::vector<int64_t>{id});
  std::optional<CompletedCheckpoint> done = c->LatestCompletedCheckpoint();
  ASSERT_TRUE(done.has_value());
  ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, done->metadata_path));
  ASSERT_EQ(md.operators_size(), 1);
  int found = 0;
  for (const pb::StateDescriptor& d : md.operators(0).states()) {
    if (d.name() != "sum") continue;
    ++found;
    EXPECT_EQ(d.key_type().kind(), pb::TypeDescriptor::INT64) << d.DebugString();
  }
  EXPECT_EQ(found, 1);
}

TEST(CheckpointCoordinatorCreateTest, RejectsBadOptions) {
  FakeRuntime runtime;
  ManualClock clock;
  CheckpointCoordinatorOptions o;
  o.job_id = "short";
  o.job_graph = MakeGraph({{"a", "A", 1, 128}});
  ASSERT_STATUS(CheckpointCoordinator::Create(base::Fs::Default(), clock, runtime, o),
                kCorruption, "16");
  o.job_id = testing::JobId();
  o.max_concurrent = 0;
  ASSERT_STATUS(CheckpointCoordinator::Create(base::Fs::Default(), clock, runtime, o),
                kInvalidArgument, "max_concurrent");
}

}  // namespace
}  // namespace ckpt::engine
