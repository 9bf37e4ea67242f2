// directory-source in a running job (JobRunner): its coordinator state and the readers' offsets
// go through real checkpoints and failovers, and word counts committed by the 2PC sink come out
// exactly once — for every word, the committed running counts are exactly 1..total.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

constexpr int kFiles = 12;
constexpr int kLinesPerFile = 2000;
constexpr int kWords = 50;

TEST(DirectorySourceJobTest, WordCountsAreExactlyOnceAcrossFailovers) {
  ckpt::testing::TempDir tmp;
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("in")));
  std::map<std::string, int64_t> totals;
  for (int f = 0; f < kFiles; ++f) {
    std::string text;
    for (int l = 0; l < kLinesPerFile; ++l) {
      const std::string word = "w" + std::to_string((f * 7 + l) % kWords);
      text += word + "\n";
      ++totals[word];
    }
    ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), tmp.Sub("in/file" + std::to_string(f)),
                                    text));
  }
  const std::string json = R"({
    "name": "directory-word-count-test", "parallelism": 2,
    "operators": [
      {"id": "lines", "kind": "directory-source", "uid": "lines",
       "params": {"path": ")" + tmp.Sub("in") + R"(", "batch_size": 50}},
      {"id": "slow", "kind": "slow", "uid": "slow", "params": {"delay_us": 1000, "every": 10}},
      {"id": "fail", "kind": "failure-injector", "uid": "fail",
       "params": {"fail_at_record": 3000, "fail_at_checkpoint": 6}},
      {"id": "words", "kind": "flat-map", "uid": "words", "params": {"function": "split-words"}},
      {"id": "count", "kind": "keyed-count", "uid": "count"},
      {"id": "sink", "kind": "file-sink", "uid": "counts", "params": {"path": ")" +
                           tmp.Sub("out") + R"("}}
    ],
    "edges": [
      {"from": "lines", "to": "slow", "partitioning": "FORWARD"},
      {"from": "slow", "to": "fail", "partitioning": "FORWARD"},
      {"from": "fail", "to": "words", "partitioning": "FORWARD"},
      {"from": "words", "to": "count", "partitioning": "HASH"},
      {"from": "count", "to": "sink", "partitioning": "FORWARD"}
    ]})";
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, format::ParseJobSpec(json, "test.json"));
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 50;
  o.max_restart_attempts = 5;
  o.restart_delay_ms = 10;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner, JobRunner::Create(std::move(spec), o));
  ASSERT_OK(runner->Start());
  JobResult result = runner->Wait();
  ASSERT_EQ(result.outcome, JobOutcome::kFinished) << result.status.ToString();
  EXPECT_GE(result.restarts, 2u);  // the two injected failures (see window_itcase.cpp on ">=")

  std::map<std::string, std::multiset<int64_t>> committed;
  ASSERT_OK_AND_ASSIGN(auto entries, base::Fs::Default().ListDir(tmp.Sub("out")));
  for (const auto& e : entries) {
    if (e.name[0] == '.') continue;
    ASSERT_OK_AND_ASSIGN(std::string text,
                         base::ReadFileToString(base::Fs::Default(), tmp.Sub("out/" + e.name)));
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string line = text.substr(start, nl - start);
      const size_t comma = line.find(',');
      ASSERT_NE(comma, std::string::npos) << line;
      committed[line.substr(0, comma)].insert(std::stoll(line.substr(comma + 1)));
    }
  }
  ASSERT_EQ(committed.size(), totals.size());
  for (const auto& [word, total] : totals) {
    std::multiset<int64_t> expected;
    for (int64_t c = 1; c <= total; ++c) expected.insert(c);
    EXPECT_EQ(committed[word], expected) << word;
  }
}

}  // namespace
}  // namespace ckpt::engine
