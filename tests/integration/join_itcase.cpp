// Join ITCase: two event-time sources joined by window-join (keyed, two inputs, aligned
// barriers across both inputs) into the two-phase-commit file sink, checkpoints every 100 ms, a
// failure while processing on one input and one while snapshotting on the other. The committed
// pairs must be exactly the pairs of the same key and window — no pair lost, none twice.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

constexpr int64_t kLeft = 40000;   // left n: key n % kKeys, event time 2n ms
constexpr int64_t kRight = 27000;  // right m: key m % kKeys, event time 3m ms
constexpr int64_t kKeys = 50;
constexpr int64_t kWindowMs = 500;

std::string JobJson(uint32_t parallelism, const std::string& dir, const std::string& markers) {
  return R"({
    "name": "join-itcase",
    "parallelism": )" + std::to_string(parallelism) + R"(,
    "operators": [
      {"id": "left", "kind": "sequence-source", "uid": "left",
       "params": {"from": 0, "to": )" + std::to_string(kLeft - 1) + R"(, "splits": 4, "keys": )" +
         std::to_string(kKeys) + R"(, "timestamp_step_ms": 2, "rate_per_second": 30000,
                  "batch_size": 100}},
      {"id": "right", "kind": "sequence-source", "uid": "right",
       "params": {"from": 0, "to": )" + std::to_string(kRight - 1) + R"(, "splits": 4, "keys": )" +
         std::to_string(kKeys) + R"(, "timestamp_step_ms": 3, "rate_per_second": 20000,
                  "batch_size": 100}},
      {"id": "fail-left", "kind": "failure-injector", "uid": "fail-left",
       "params": {"fail_at_record": )" + std::to_string(kLeft / parallelism / 3) +
         R"(, "marker_dir": ")" + markers + R"("}},
      {"id": "fail-right", "kind": "failure-injector", "uid": "fail-right",
       "params": {"fail_at_checkpoint": 1, "marker_dir": ")" + markers + R"("}},
      {"id": "join", "kind": "window-join", "uid": "join",
       "params": {"size_ms": )" + std::to_string(kWindowMs) + R"(}},
      {"id": "sink", "kind": "file-sink", "uid": "pairs", "params": {"path": ")" + dir + R"("}}
    ],
    "edges": [
      {"from": "left", "to": "fail-left", "partitioning": "FORWARD"},
      {"from": "right", "to": "fail-right", "partitioning": "FORWARD"},
      {"from": "fail-left", "to": "join", "partitioning": "HASH", "input": 0},
      {"from": "fail-right", "to": "join", "partitioning": "HASH", "input": 1},
      {"from": "join", "to": "sink", "partitioning": "FORWARD"}
    ]
  })";
}

using Pair = std::tuple<int64_t, int64_t, int64_t>;  // key, left n, right m

class JoinITCase : public ::testing::TestWithParam<uint32_t> {};

TEST_P(JoinITCase, CommittedPairsAreExactlyTheWindowedPairsAcrossFailures) {
  testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, format::ParseJobSpec(JobJson(GetParam(), tmp.Sub("out"),
                                                                      tmp.Sub("markers")),
                                                              "join-itcase.json"));
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.max_restart_attempts = 5;
  o.restart_delay_ms = 20;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<engine::JobRunner> runner,
                       engine::JobRunner::Create(std::move(spec), o));
  ASSERT_OK(runner->Start());
  engine::JobResult result = runner->Wait();
  ASSERT_EQ(result.outcome, engine::JobOutcome::kFinished) << result.status.ToString();
  // Both injected failures fired (their ledger markers): while processing on the left input, and
  // while snapshotting on the right one — the first checkpoint at or after 1 that reaches it, at
  // the latest the final checkpoint, so it fires however slowly the machine runs. Both may fail
  // the same attempt (one restart), so the markers are counted, not the restarts.
  EXPECT_OK(base::Fs::Default().Stat(tmp.Sub("markers/fail-left-0-record.0")).status());
  EXPECT_OK(base::Fs::Default().Stat(tmp.Sub("markers/fail-right-0-checkpoint.0")).status());
  EXPECT_GE(result.restarts, 1u);

  // Expected: for each right m, every left n with the same key and window.
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> left_by_key_window;
  for (int64_t n = 0; n < kLeft; ++n) {
    left_by_key_window[{n % kKeys, (2 * n) / kWindowMs}].push_back(n);
  }
  std::map<Pair, int> expected;
  for (int64_t m = 0; m < kRight; ++m) {
    auto it = left_by_key_window.find({m % kKeys, (3 * m) / kWindowMs});
    if (it == left_by_key_window.end()) continue;
    for (int64_t n : it->second) expected[{m % kKeys, n, m}] = 1;
  }

  std::map<Pair, int> committed;
  int64_t malformed = 0;
  auto entries = base::Fs::Default().ListDir(tmp.Sub("out"));
  ASSERT_OK(entries.status());
  for (const auto& e : *entries) {
    if (e.name[0] == '.') continue;
    ASSERT_OK_AND_ASSIGN(std::string text,
                         base::ReadFileToString(base::Fs::Default(), tmp.Sub("out/" + e.name)));
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      int64_t k = 0, n = 0, m = 0;
      if (std::sscanf(text.c_str() + start, "%ld,%ld,%ld", &k, &n, &m) != 3) {
        ++malformed;
        continue;
      }
      ++committed[{k, n, m}];
    }
  }
  EXPECT_EQ(malformed, 0);
  int64_t lost = 0, duplicated = 0, unexpected = 0;
  for (const auto& [pair, count] : committed) {
    if (expected.count(pair) == 0) ++unexpected;
    if (count > 1) duplicated += count - 1;
  }
  for (const auto& [pair, one] : expected) lost += committed.count(pair) == 0 ? 1 : 0;
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(duplicated, 0);
  EXPECT_EQ(unexpected, 0);
  EXPECT_EQ(committed.size(), expected.size());
  EXPECT_GT(expected.size(), 100000u);  // ~17 pairs per key and window
  ASSERT_OK(VerifyAllSnapshots(tmp.Sub("checkpoints")).status());
}

INSTANTIATE_TEST_SUITE_P(Parallelism, JoinITCase, ::testing::Values(1u, 3u),
                         [](const auto& param_info) {
                           return "p" + std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace ckpt::itcase
