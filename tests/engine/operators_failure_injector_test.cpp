// failure-injector (engine/src/operators/failure_injector.cpp, failure_ledger.cpp): each trigger
// fails the subtask once (or max_failures times) across restores, and passes records through.
#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "operators_harness.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::HarnessOptions;
using testing::OperatorHarness;
using testing::SubtaskSnapshot;

// Each test uses its own job id: the in-memory ledger is per job.
HarnessOptions Job(const std::string& id, uint32_t attempt = 0) {
  HarnessOptions o;
  o.job_id_hex = id;
  o.attempt_number = attempt;
  return o;
}

TEST(FailureInjectorTest, FailsAtRecordNOnceAcrossARestore) {
  const std::string params = R"({"fail_at_record": 5})";
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("failure-injector", params, Job("j1")));
  ASSERT_OK(h->Initialize());
  for (int64_t v = 1; v <= 3; ++v) ASSERT_OK(h->Process(Record(Value(v))));
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  ASSERT_OK(h->Process(Record(Value(int64_t{4}))));
  ASSERT_STATUS(h->Process(Record(Value(int64_t{5}))), kInternal, "injected failure at record 5");
  EXPECT_EQ(h->records().size(), 4u);  // the failing record is not emitted

  // The restored subtask replays records 4 and 5 (its count restarts at 3) and passes them.
  ASSERT_OK_AND_ASSIGN(auto r, OperatorHarness::Create("failure-injector", params, Job("j1", 1)));
  ASSERT_OK(r->Initialize({snap}));
  for (int64_t v = 4; v <= 10; ++v) ASSERT_OK(r->Process(Record(Value(v))));
  EXPECT_EQ(r->records().size(), 7u);
}

TEST(FailureInjectorTest, FailsWhileSnapshottingAndWhileRestoring) {
  const std::string params = R"({"fail_at_checkpoint": 2, "fail_on_restore": true})";
  ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("failure-injector", params, Job("j2")));
  ASSERT_OK(h->Initialize());
  ASSERT_OK_AND_ASSIGN(SubtaskSnapshot snap, h->Snapshot(1));
  ASSERT_STATUS(h->Snapshot(2).status(), kInternal, "while snapshotting checkpoint 2");
  ASSERT_OK_AND_ASSIGN(auto r1, OperatorHarness::Create("failure-injector", params, Job("j2", 1)));
  ASSERT_STATUS(r1->Initialize({snap}), kInternal, "while restoring");
  ASSERT_OK_AND_ASSIGN(auto r2, OperatorHarness::Create("failure-injector", params, Job("j2", 2)));
  ASSERT_OK(r2->Initialize({snap}));
  ASSERT_OK(r2->Snapshot(2).status());  // checkpoint ids after a restart do not fail again
  ASSERT_OK(r2->Snapshot(3).status());
}

TEST(FailureInjectorTest, OnlyTheChosenSubtaskFails) {
  for (uint32_t i = 0; i < 3; ++i) {
    HarnessOptions o = Job("j3");
    o.subtask = i;
    o.parallelism = 3;
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("failure-injector",
                                                         R"({"fail_at_record": 1, "subtask": 1})",
                                                         o));
    ASSERT_OK(h->Initialize());
    base::Status st = h->Process(Record(Value(int64_t{1})));
    EXPECT_EQ(st.ok(), i != 1) << i;
  }
}

TEST(FailureInjectorTest, RandomFailuresStopAfterMaxFailures) {
  const std::string params = R"({"failure_probability": 0.5, "max_failures": 3, "seed": 7})";
  int failures = 0;
  for (uint32_t attempt = 0; attempt < 10; ++attempt) {
    ASSERT_OK_AND_ASSIGN(auto h, OperatorHarness::Create("failure-injector", params,
                                                         Job("j4", attempt)));
    ASSERT_OK(h->Initialize());
    for (int64_t v = 1; v <= 100; ++v) {
      if (!h->Process(Record(Value(v))).ok()) {
        ++failures;
        break;
      }
    }
  }
  EXPECT_EQ(failures, 3);
}

TEST(FailureInjectorTest, MarkerDirCountsFailuresAcrossProcesses) {
  ckpt::testing::TempDir dir;
  const std::string params =
      R"({"fail_at_record": 1, "marker_dir": ")" + dir.Sub("markers") + R"("})";
  // Two "processes" with different job ids share the marker directory.
  ASSERT_OK_AND_ASSIGN(auto a, OperatorHarness::Create("failure-injector", params, Job("p1")));
  ASSERT_OK(a->Initialize());
  EXPECT_FALSE(a->Process(Record(Value(int64_t{1}))).ok());
  ASSERT_OK_AND_ASSIGN(auto b, OperatorHarness::Create("failure-injector", params, Job("p2")));
  ASSERT_OK(b->Initialize());
  EXPECT_OK(b->Process(Record(Value(int64_t{1}))));
}

TEST(FailureInjectorTest, RejectsBadParamsNamingTheField) {
  ASSERT_STATUS(OperatorHarness::Create("failure-injector", R"({"failure_probability": 2})"),
                kInvalidArgument, "params.failure_probability");
  ASSERT_STATUS(OperatorHarness::Create("failure-injector", R"({"fail_at_record": 0})"),
                kInvalidArgument, "params.fail_at_record");
  ASSERT_STATUS(OperatorHarness::Create("failure-injector", R"({"fail_at": 3})"),
                kInvalidArgument, "params.fail_at");
}

}  // namespace
}  // namespace ckpt::engine
