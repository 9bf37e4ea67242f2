// Window ITCase, modelled on Flink's EventTimeWindowCheckpointingITCase: an event-time source ->
// failure injector -> (HASH) tumbling and sliding windows -> two-phase-commit file sinks, with
// checkpoints every 100 ms and failures while processing and while snapshotting. Every committed
// window result must equal its closed form, exactly once, at max parallelism 4 and 32768 —
// window contents and timers travel through the snapshots and are re-split by key group.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

constexpr int64_t kNumbers = 240000;  // n = 0..kNumbers-1, event time n ms
constexpr int64_t kWindowKeys = 8;    // key = n % kWindowKeys
constexpr int64_t kTumblingMs = 1000;
constexpr int64_t kSlidingMs = 3000;
constexpr int64_t kSlideMs = 1000;
constexpr uint32_t kParallelism = 3;

std::string JobJson(uint32_t max_p, const std::string& dir) {
  const std::string mp = std::to_string(max_p);
  return R"({
    "name": "window-itcase",
    "parallelism": )" +
         std::to_string(kParallelism) + R"(,
    "operators": [
      {"id": "src", "kind": "sequence-source", "uid": "src",
       "params": {"from": 0, "to": )" +
         std::to_string(kNumbers - 1) + R"(, "splits": 6,
                  "keys": )" +
         std::to_string(kWindowKeys) + R"(, "timestamp_step_ms": 1,
                  "rate_per_second": 120000, "batch_size": 200}},
      {"id": "fail", "kind": "failure-injector", "uid": "fail",
       "params": {"fail_at_record": )" +
         std::to_string(kNumbers / kParallelism / 3) + R"(,
                  "fail_at_checkpoint": 2, "subtask": 0,
                  "marker_dir": ")" + dir + R"(/markers"}},
      {"id": "tumbling", "kind": "tumbling-window", "uid": "tumbling", "max_parallelism": )" +
         mp + R"(, "params": {"size_ms": )" + std::to_string(kTumblingMs) +
         R"(, "aggregate": "sum"}},
      {"id": "sliding", "kind": "sliding-window", "uid": "sliding", "max_parallelism": )" +
         mp + R"(, "params": {"size_ms": )" + std::to_string(kSlidingMs) + R"(, "slide_ms": )" +
         std::to_string(kSlideMs) + R"(, "aggregate": "count", "state": "list"}},
      {"id": "tumbling-out", "kind": "file-sink", "uid": "tumbling-out", "max_parallelism": )" +
         mp + R"(, "params": {"path": ")" + dir + R"(/tumbling"}},
      {"id": "sliding-out", "kind": "file-sink", "uid": "sliding-out", "max_parallelism": )" +
         mp + R"(, "params": {"path": ")" + dir + R"(/sliding"}}
    ],
    "edges": [
      {"from": "src", "to": "fail", "partitioning": "FORWARD"},
      {"from": "fail", "to": "tumbling", "partitioning": "HASH"},
      {"from": "fail", "to": "sliding", "partitioning": "HASH"},
      {"from": "tumbling", "to": "tumbling-out", "partitioning": "FORWARD"},
      {"from": "sliding", "to": "sliding-out", "partitioning": "FORWARD"}
    ]
  })";
}

// (key, window start) -> result of every committed line "key,start,end,result"; counts lines
// for a window seen twice and lines that do not parse.
struct Committed {
  std::map<std::pair<int64_t, int64_t>, int64_t> results;
  int64_t duplicates = 0;
  int64_t malformed = 0;
  int64_t bad_end = 0;
};

Committed ReadCommitted(const std::string& dir, int64_t size_ms) {
  Committed out;
  auto entries = base::Fs::Default().ListDir(dir);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  if (!entries.ok()) return out;
  for (const auto& e : *entries) {
    if (e.name[0] == '.') continue;  // in-progress files are not output
    auto text = base::ReadFileToString(base::Fs::Default(), dir + "/" + e.name);
    EXPECT_TRUE(text.ok());
    if (!text.ok()) continue;
    size_t start = 0;
    for (size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1) {
      int64_t key = 0, ws = 0, we = 0, result = 0;
      if (std::sscanf(text->c_str() + start, "%ld,%ld,%ld,%ld", &key, &ws, &we, &result) != 4) {
        ++out.malformed;
        continue;
      }
      if (we - ws != size_ms) ++out.bad_end;
      if (!out.results.emplace(std::make_pair(key, ws), result).second) ++out.duplicates;
    }
  }
  return out;
}

// Closed forms over n in [max(start, 0), min(start + size, kNumbers)) with n % kWindowKeys == key.
int64_t ClosedFormSum(int64_t key, int64_t start, int64_t size) {
  int64_t sum = 0;
  for (int64_t n = std::max<int64_t>(start, 0); n < std::min(start + size, kNumbers); ++n) {
    if (n % kWindowKeys == key) sum += n;
  }
  return sum;
}
int64_t ClosedFormCount(int64_t key, int64_t start, int64_t size) {
  int64_t count = 0;
  for (int64_t n = std::max<int64_t>(start, 0); n < std::min(start + size, kNumbers); ++n) {
    count += n % kWindowKeys == key ? 1 : 0;
  }
  return count;
}

class WindowITCase : public ::testing::TestWithParam<uint32_t> {};

TEST_P(WindowITCase, EveryWindowEqualsItsClosedFormAcrossFailures) {
  const uint32_t max_p = GetParam();
  testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec,
                       format::ParseJobSpec(JobJson(max_p, tmp.path()), "window-itcase.json"));
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.num_retained = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.max_restart_attempts = 5;
  o.restart_delay_ms = 20;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<engine::JobRunner> runner,
                       engine::JobRunner::Create(std::move(spec), o));
  ASSERT_OK(runner->Start());
  engine::JobResult result = runner->Wait();
  ASSERT_EQ(result.outcome, engine::JobOutcome::kFinished) << result.status.ToString();
  // Both injected failures fired (their ledger markers): while processing, and while
  // snapshotting the first checkpoint at or after 2 — at the latest the final checkpoint, so it
  // fires however slowly the machine runs. Both may fail the same attempt (one restart), so the
  // markers are counted, not the restarts; the final checkpoint always completes.
  EXPECT_OK(base::Fs::Default().Stat(tmp.path() + "/markers/fail-0-record.0").status());
  EXPECT_OK(base::Fs::Default().Stat(tmp.path() + "/markers/fail-0-checkpoint.0").status());
  EXPECT_GE(result.restarts, 1u);
  EXPECT_GE(result.checkpoints.completed, 1u);

  const Committed tumbling = ReadCommitted(tmp.Sub("tumbling"), kTumblingMs);
  EXPECT_EQ(tumbling.duplicates, 0);
  EXPECT_EQ(tumbling.malformed, 0);
  EXPECT_EQ(tumbling.bad_end, 0);
  EXPECT_EQ(tumbling.results.size(), static_cast<size_t>(kWindowKeys * (kNumbers / kTumblingMs)));
  int64_t wrong = 0;
  for (const auto& [kw, sum] : tumbling.results) {
    const int64_t expected = ClosedFormSum(kw.first, kw.second, kTumblingMs);
    if (sum != expected && wrong++ < 5) {
      ADD_FAILURE() << "tumbling key " << kw.first << " window " << kw.second << ": " << sum
                    << " != " << expected;
    }
  }
  EXPECT_EQ(wrong, 0);

  const Committed sliding = ReadCommitted(tmp.Sub("sliding"), kSlidingMs);
  EXPECT_EQ(sliding.duplicates, 0);
  EXPECT_EQ(sliding.malformed, 0);
  EXPECT_EQ(sliding.bad_end, 0);
  // Windows start every second from -2000 up to the last timestamp.
  EXPECT_EQ(sliding.results.size(),
            static_cast<size_t>(kWindowKeys * (kNumbers / kSlideMs + kSlidingMs / kSlideMs - 1)));
  wrong = 0;
  for (const auto& [kw, count] : sliding.results) {
    const int64_t expected = ClosedFormCount(kw.first, kw.second, kSlidingMs);
    if (count != expected && wrong++ < 5) {
      ADD_FAILURE() << "sliding key " << kw.first << " window " << kw.second << ": " << count
                    << " != " << expected;
    }
  }
  EXPECT_EQ(wrong, 0);

  // Every snapshot left behind reads back with all checksums verified.
  ASSERT_OK(VerifyAllSnapshots(tmp.Sub("checkpoints")).status());
}

INSTANTIATE_TEST_SUITE_P(MaxParallelism, WindowITCase, ::testing::Values(4u, 32768u),
                         [](const auto& param_info) { return "maxP" + std::to_string(param_info.param); });

}  // namespace
}  // namespace ckpt::itcase
