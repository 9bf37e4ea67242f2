// Per-task metrics measured by the runtime (JobRunner::task_metrics) and served by the REST
// views Flink's dashboard reads (IOMetricsInfo of vertices and subtasks, subtask metrics, back
// pressure, watermarks) and by the Prometheus exposition (/metrics on the REST port and on a
// metrics-only port), for real jobs: a bounded one checked for consistency once it finished,
// and a running one with checkpoints scraped while it runs.
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/rest/rest_server.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

using nlohmann::json;

constexpr const char* kMetricsJobId = "7a5c7a5c7a5c7a5c7a5c7a5c7a5c7a5c";

// src -> (HASH) slow -> (HASH) sum -> (FORWARD) out; `records` records (unbounded-ish with a
// rate when `rate_per_second` > 0), watermarks from the source's timestamps.
std::string MetricsJobJson(int64_t records, int64_t rate_per_second, int64_t slow_delay_us) {
  return std::string(R"({"name": "task metrics", "job_id": ")") + kMetricsJobId +
         R"(", "operators": [
    {"id": "src", "kind": "sequence-source", "params": {"to": )" + std::to_string(records) +
         R"(, "keys": 16, "splits": 2, "timestamp_step_ms": 1, "rate_per_second": )" +
         std::to_string(rate_per_second) + R"(}},
    {"id": "slow", "kind": "slow", "params": {"delay_us": )" + std::to_string(slow_delay_us) +
         R"(, "every": 50}},
    {"id": "sum", "kind": "keyed-sum"},
    {"id": "out", "kind": "discard"}],
  "edges": [{"from": "src", "to": "slow", "partitioning": "REBALANCE"},
            {"from": "slow", "to": "sum", "partitioning": "HASH"},
            {"from": "sum", "to": "out", "partitioning": "FORWARD"}]})";
}

std::unique_ptr<JobRunner> MakeJob(const std::string& spec_json, JobRunnerOptions o) {
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(spec_json, "metrics.json");
  EXPECT_OK(spec.status());
  if (!spec.ok()) return nullptr;
  o.parallelism = 2;
  base::Result<std::unique_ptr<JobRunner>> job = JobRunner::Create(*spec, o);
  EXPECT_OK(job.status());
  return job.ok() ? std::move(*job) : nullptr;
}

// Per vertex (in the job graph's order of chains: src, slow, sum -> out): its subtasks.
std::map<std::string, std::vector<SubtaskTaskMetrics>> ByVertex(const TaskMetricsSnapshot& m) {
  std::map<std::string, std::vector<SubtaskTaskMetrics>> out;
  for (const SubtaskTaskMetrics& s : m.subtasks) out[s.vertex_name].push_back(s);
  return out;
}

uint64_t Sum(const std::vector<SubtaskTaskMetrics>& v, uint64_t SubtaskTaskMetrics::*field) {
  uint64_t total = 0;
  for (const SubtaskTaskMetrics& s : v) total += s.*field;
  return total;
}

json GetJson(httplib::Client& c, const std::string& path) {
  httplib::Result r = c.Get(path);
  EXPECT_TRUE(r) << path;
  if (!r) return json();
  EXPECT_EQ(r->status, 200) << path << ": " << r->body;
  return json::parse(r->body, nullptr, false);
}

// The sum of every sample of `metric` whose labels contain `label` (e.g. task_id="...").
double PromSum(const std::string& text, const std::string& metric, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  double sum = 0;
  while (std::getline(in, line)) {
    if (line.rfind(metric + "{", 0) != 0 || line.find(label) == std::string::npos) continue;
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

TEST(RestTaskMetricsTest, CountersOfAFinishedJobAreConsistentAcrossVertices) {
  constexpr int64_t kRecords = 200000;
  ::ckpt::testing::TempDir tmp;
  std::unique_ptr<JobRunner> job =
      MakeJob(MetricsJobJson(kRecords, 0, /*slow_delay_us=*/100), JobRunnerOptions{});
  ASSERT_NE(job, nullptr);
  const auto before = std::chrono::steady_clock::now();
  ASSERT_OK(job->Start());
  const JobResult result = job->Wait();
  const auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - before)
                              .count();
  ASSERT_EQ(result.outcome, JobOutcome::kFinished) << result.status.ToString();

  const TaskMetricsSnapshot m = job->task_metrics();
  ASSERT_TRUE(m.enabled);
  ASSERT_EQ(m.subtasks.size(), 6u);
  auto v = ByVertex(m);
  ASSERT_EQ(v.size(), 3u);
  const auto& src = v["src"];
  const auto& slow = v["slow"];
  const auto& sum = v["sum -> out"];
  ASSERT_EQ(src.size(), 2u);
  ASSERT_EQ(sum.size(), 2u);
  // Every record leaves the source once and arrives once at each next vertex.
  EXPECT_EQ(Sum(src, &SubtaskTaskMetrics::records_in), 0u);
  EXPECT_EQ(Sum(src, &SubtaskTaskMetrics::records_out), static_cast<uint64_t>(kRecords));
  EXPECT_EQ(Sum(slow, &SubtaskTaskMetrics::records_in), static_cast<uint64_t>(kRecords));
  EXPECT_EQ(Sum(slow, &SubtaskTaskMetrics::records_out), static_cast<uint64_t>(kRecords));
  EXPECT_EQ(Sum(sum, &SubtaskTaskMetrics::records_in), static_cast<uint64_t>(kRecords));
  // The sink writes to no edge.
  EXPECT_EQ(Sum(sum, &SubtaskTaskMetrics::records_out), 0u);
  // The bytes written to an edge are the bytes read from it (frames of records and
  // watermarks).
  EXPECT_GT(Sum(src, &SubtaskTaskMetrics::bytes_out), 0u);
  EXPECT_EQ(Sum(src, &SubtaskTaskMetrics::bytes_out), Sum(slow, &SubtaskTaskMetrics::bytes_in));
  EXPECT_EQ(Sum(slow, &SubtaskTaskMetrics::bytes_out), Sum(sum, &SubtaskTaskMetrics::bytes_in));
  for (const SubtaskTaskMetrics& s : m.subtasks) {
    SCOPED_TRACE(s.vertex_name + " " + std::to_string(s.subtask));
    EXPECT_FALSE(s.running);
    // The time each task ran is split into busy, idle and back-pressured; together no more
    // than the job took (as seen by the test) and not nothing.
    const int64_t accounted = s.busy_ms + s.idle_ms + s.backpressured_ms;
    EXPECT_GE(s.busy_ms, 0);
    EXPECT_GE(s.idle_ms, 0);
    EXPECT_GE(s.backpressured_ms, 0);
    EXPECT_LE(accounted, elapsed_ms);
    // Bounded input ends event time: MAX_WATERMARK went through every task.
    EXPECT_EQ(s.output_watermark, kMaxWatermark);
    if (s.vertex_name != "src") {
      EXPECT_EQ(s.input_watermark, kMaxWatermark);
    } else {
      EXPECT_EQ(s.input_watermark, kNoTimestamp);
    }
  }
  // The slow operator is the bottleneck: its upstream waited for output buffers (100 us every
  // 50 records is 200 ms of sleeping per subtask; the 3.6 MB of records are many times what
  // the channels hold, so the source cannot be ahead by them without waiting).
  EXPECT_GT(src[0].backpressured_ms + src[1].backpressured_ms, 0);

  // The REST views of the ended job say the same.
  base::Result<std::unique_ptr<RestServer>> server = RestServer::Start(*job, {});
  ASSERT_OK(server.status());
  httplib::Client c("127.0.0.1", (*server)->port());
  const std::string job_path = std::string("/jobs/") + kMetricsJobId;
  const json details = GetJson(c, job_path);
  ASSERT_EQ(details["vertices"].size(), 3u) << details.dump();
  const json& src_io = details["vertices"][0]["metrics"];
  const json& slow_io = details["vertices"][1]["metrics"];
  EXPECT_EQ(src_io["write-records"], kRecords);
  EXPECT_EQ(src_io["write-records-complete"], true);
  EXPECT_EQ(slow_io["read-records"], kRecords);
  EXPECT_EQ(slow_io["read-records-complete"], true);
  EXPECT_EQ(src_io["write-bytes"], slow_io["read-bytes"]);
  const std::string slow_id = details["vertices"][1]["id"];
  const json vd = GetJson(c, job_path + "/vertices/" + slow_id);
  ASSERT_EQ(vd["subtasks"].size(), 2u);
  uint64_t subtask_records = 0;
  for (const json& s : vd["subtasks"]) {
    EXPECT_EQ(s["metrics"]["read-records-complete"], true);
    subtask_records += s["metrics"]["read-records"].get<uint64_t>();
  }
  EXPECT_EQ(subtask_records, static_cast<uint64_t>(kRecords));
  const json wm = GetJson(c, job_path + "/vertices/" + slow_id + "/watermarks");
  ASSERT_EQ(wm.size(), 2u) << wm.dump();
  EXPECT_EQ(wm[0]["id"], "0.currentInputWatermark");
  EXPECT_EQ(wm[0]["value"], "9223372036854775807");
  const json per = GetJson(c, job_path + "/vertices/" + slow_id +
                                  "/metrics?get=0.numRecordsIn,1.numRecordsIn");
  ASSERT_EQ(per.size(), 2u) << per.dump();
  EXPECT_EQ(std::stoll(per[0]["value"].get<std::string>()) +
                std::stoll(per[1]["value"].get<std::string>()),
            kRecords);
  (*server)->Stop();
}

TEST(RestTaskMetricsTest, RunningJobMetricsMoveAndPromtoolAcceptsThem) {
  ::ckpt::testing::TempDir tmp;
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("ckpt");
  o.interval_ms = 20;
  std::unique_ptr<JobRunner> job =
      MakeJob(MetricsJobJson(1000000000, 5000, /*slow_delay_us=*/0), o);
  ASSERT_NE(job, nullptr);
  ASSERT_OK(job->Start());
  base::Result<std::unique_ptr<RestServer>> server = RestServer::Start(*job, {});
  ASSERT_OK(server.status());
  httplib::Client c("127.0.0.1", (*server)->port());
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] { return job->checkpoint_stats().completed >= 1; }));
  const std::string job_path = std::string("/jobs/") + kMetricsJobId;
  const std::string slow_id = GetJson(c, job_path)["vertices"][1]["id"];
  const std::string task_label = "task_id=\"" + slow_id + "\"";

  auto scrape = [&] {
    httplib::Result r = c.Get("/metrics");
    return r && r->status == 200 ? r->body : std::string();
  };
  const std::string first = scrape();
  const double completed = PromSum(first, "flink_jobmanager_job_numberOfCompletedCheckpoints",
                                   "job_id");
  const double records_in = PromSum(first, "flink_taskmanager_job_task_numRecordsIn", task_label);
  EXPECT_GE(completed, 1);
  EXPECT_NE(first.find("flink_taskmanager_job_task_busyTimeMsPerSecond{job_id=\"" +
                       std::string(kMetricsJobId) + "\",job_name=\"task metrics\",task_id=\"" +
                       slow_id + "\",task_name=\"slow\",subtask_index=\"0\""),
            std::string::npos)
      << first;
  std::string later;
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    later = scrape();
    return PromSum(later, "flink_jobmanager_job_numberOfCompletedCheckpoints", "job_id") >
               completed &&
           PromSum(later, "flink_taskmanager_job_task_numRecordsIn", task_label) > records_in;
  })) << later;
  // A checkpoint went through every task: its start delay is set (0 or more ns) and the task's
  // last checkpoint is known.
  for (const SubtaskTaskMetrics& s : job->task_metrics().subtasks) {
    EXPECT_GE(s.checkpoint_id, 1) << s.vertex_name;
    EXPECT_GE(s.checkpoint_start_delay_ns, 0);
  }

  // The dashboard's views of the running job.
  const std::string base = job_path + "/vertices/" + slow_id;
  std::set<std::string> names;
  for (const json& n : GetJson(c, base + "/subtasks/metrics")) names.insert(n["id"]);
  for (const char* expected :
       {"numRecordsIn", "numRecordsOut", "numBytesIn", "numBytesOut", "numRecordsInPerSecond",
        "numRecordsOutPerSecond", "busyTimeMsPerSecond", "idleTimeMsPerSecond",
        "backPressuredTimeMsPerSecond", "currentInputWatermark", "currentOutputWatermark",
        "checkpointStartDelayNanos", "checkpointAlignmentTime"}) {
    EXPECT_EQ(names.count(expected), 1u) << expected;
  }
  const json agg = GetJson(c, base + "/subtasks/metrics?get=numRecordsIn&agg=sum");
  ASSERT_EQ(agg.size(), 1u) << agg.dump();
  EXPECT_GT(agg[0]["sum"].get<double>(), 0);
  const json bp = GetJson(c, base + "/backpressure");
  EXPECT_EQ(bp["status"], "ok") << bp.dump();
  ASSERT_EQ(bp["subtasks"].size(), 2u) << bp.dump();
  const std::set<std::string> levels = {"ok", "low", "high"};
  EXPECT_EQ(levels.count(bp["backpressure-level"].get<std::string>()), 1u);
  for (const json& s : bp["subtasks"]) {
    EXPECT_EQ(levels.count(s["backpressure-level"].get<std::string>()), 1u);
    for (const char* ratio : {"ratio", "idleRatio", "busyRatio"}) {
      EXPECT_GE(s[ratio].get<double>(), 0.0) << ratio;
      EXPECT_LE(s[ratio].get<double>(), 1.0) << ratio;
    }
  }

  // promtool (Debian's prometheus package) accepts the exposition with the task metrics.
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool is not installed (apt-get install prometheus)";
  }
  const std::string file = tmp.Sub("metrics.prom");
  std::ofstream(file) << scrape();
  const std::string cmd = "promtool check metrics < '" + file + "' > '" + file + ".out' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream out(file + ".out");
  std::string said, line;
  while (std::getline(out, line)) said += line + "\n";
  // Exit code 1 is a parse error; 3 only lint findings (Flink's camelCase names).
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_TRUE(WEXITSTATUS(rc) == 0 || WEXITSTATUS(rc) == 3) << said;
  std::istringstream findings(said);
  while (std::getline(findings, line)) {
    EXPECT_NE(line.find("should be written in 'snake_case' not 'camelCase'"), std::string::npos)
        << line;
  }
  (*server)->Stop();
  job->Cancel();
  job->Wait();
}

TEST(RestTaskMetricsTest, MetricsOnlyServerServesMetricsAndNothingElse) {
  ::ckpt::testing::TempDir tmp;
  std::unique_ptr<JobRunner> job = MakeJob(MetricsJobJson(1000000000, 5000, 0), {});
  ASSERT_NE(job, nullptr);
  ASSERT_OK(job->Start());
  RestServerOptions o;
  o.metrics_only = true;
  base::Result<std::unique_ptr<RestServer>> server = RestServer::Start(*job, o);
  ASSERT_OK(server.status());
  httplib::Client c("127.0.0.1", (*server)->port());
  std::string text;
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    httplib::Result r = c.Get("/metrics");
    text = r && r->status == 200 ? r->body : "";
    return PromSum(text, "flink_taskmanager_job_task_numRecordsOut", "task_name=\"src\"") > 0;
  })) << text;
  httplib::Result jobs = c.Get("/jobs");
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 404);
  (*server)->Stop();
  job->Cancel();
  job->Wait();
}

TEST(RestTaskMetricsTest, TaskMetricsOffMeasureNothingAndTheViewsSaySo) {
  JobRunnerOptions o;
  o.task_metrics = false;
  std::unique_ptr<JobRunner> job = MakeJob(MetricsJobJson(5000, 0, 0), o);
  ASSERT_NE(job, nullptr);
  ASSERT_OK(job->Start());
  ASSERT_EQ(job->Wait().outcome, JobOutcome::kFinished);
  const TaskMetricsSnapshot m = job->task_metrics();
  EXPECT_FALSE(m.enabled);
  EXPECT_TRUE(m.subtasks.empty());
  base::Result<std::unique_ptr<RestServer>> server = RestServer::Start(*job, {});
  ASSERT_OK(server.status());
  httplib::Client c("127.0.0.1", (*server)->port());
  const std::string job_path = std::string("/jobs/") + kMetricsJobId;
  const json details = GetJson(c, job_path);
  const json& io = details["vertices"][0]["metrics"];
  EXPECT_EQ(io["write-records-complete"], false);
  const std::string vid = details["vertices"][0]["id"];
  EXPECT_EQ(GetJson(c, job_path + "/vertices/" + vid + "/backpressure")["status"], "deprecated");
  EXPECT_EQ(GetJson(c, job_path + "/vertices/" + vid + "/watermarks"), json::array());
  httplib::Result r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.find("flink_taskmanager_job_task_"), std::string::npos);
  (*server)->Stop();
}

}  // namespace
}  // namespace ckpt::engine
