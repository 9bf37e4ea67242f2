// The REST views Flink's web dashboard reads, served for a real running job (JobRunner with
// checkpoints every 20 ms and one injected failure, RestServer on a free port): vertex details
// with subtasks, exceptions with the restart cause, job config, task managers, job manager
// views, subtask metrics, the checkpoint details cache, yarn-cancel and the Prometheus
// exposition (checked with promtool when installed).
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
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
#include "ckpt/engine/rest/rest_server.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

// Whether malloc is a sanitizer's (ASan, TSan), whose heap mallinfo2 does not see.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CKPT_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CKPT_SANITIZER_ALLOCATOR 1
#endif
#endif
#ifndef CKPT_SANITIZER_ALLOCATOR
#define CKPT_SANITIZER_ALLOCATOR 0
#endif

namespace ckpt::engine {
namespace {

using nlohmann::json;

constexpr const char* kJobId = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";

// `marker_dir`: where the injector notes that it fired (once per subtask, whatever the job id
// and however often the test runs in one process).
std::string DashboardJobJson(int fail_at_checkpoint, const std::string& marker_dir) {
  std::string injector = fail_at_checkpoint > 0
                             ? R"({"fail_at_checkpoint": )" + std::to_string(fail_at_checkpoint) +
                                   R"(, "marker_dir": ")" + marker_dir + R"("})"
                             : R"({"fail_at_record": 1000000000000})";
  return std::string(R"({"name": "dashboard \"job\"", "job_id": ")") + kJobId +
         R"(", "operators": [
    {"id": "src", "kind": "sequence-source", "params": {"to": 1000000000, "keys": 8,
     "rate_per_second": 5000}},
    {"id": "inject", "kind": "failure-injector", "params": )" + injector + R"(},
    {"id": "sum", "kind": "keyed-sum"},
    {"id": "out", "kind": "discard"}],
  "edges": [{"from": "src", "to": "inject", "partitioning": "REBALANCE"},
            {"from": "inject", "to": "sum", "partitioning": "HASH"},
            {"from": "sum", "to": "out", "partitioning": "FORWARD"}]})";
}

struct Answer {
  int status = 0;
  json body;
  std::string text;
  std::string content_type;
};

// A running job with a REST endpoint and a client of it.
class DashboardJob {
 public:
  explicit DashboardJob(int fail_at_checkpoint = 0) {
    base::Result<pb::JobSpec> spec =
        format::ParseJobSpec(DashboardJobJson(fail_at_checkpoint, tmp_.Sub("markers")),
                             "dashboard.json");
    EXPECT_OK(spec.status());
    JobRunnerOptions o;
    o.checkpoint_dir = tmp_.Sub("ckpt");
    o.interval_ms = 20;
    o.parallelism = 2;
    o.max_restart_attempts = 3;
    o.restart_delay_ms = 10;
    base::Result<std::unique_ptr<JobRunner>> job = JobRunner::Create(*spec, o);
    EXPECT_OK(job.status());
    job_ = std::move(*job);
    EXPECT_OK(job_->Start());
    base::Result<std::unique_ptr<RestServer>> server = RestServer::Start(*job_, {});
    EXPECT_OK(server.status());
    server_ = std::move(*server);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  ~DashboardJob() {
    server_->Stop();
    job_->Cancel();
    job_->Wait();
  }

  Answer Get(const std::string& path) {
    Answer a;
    httplib::Result r = client_->Get(path);
    if (!r) return a;
    a.status = r->status;
    a.text = r->body;
    a.content_type = r->get_header_value("Content-Type");
    a.body = json::parse(r->body, nullptr, false);
    return a;
  }
  json Ok(const std::string& path) {
    Answer a = Get(path);
    EXPECT_EQ(a.status, 200) << path << ": " << a.text;
    return a.body;
  }
  bool WaitCompleted(uint64_t n) {
    return ::ckpt::testing::WaitUntil([&] { return job_->checkpoint_stats().completed >= n; });
  }

  const std::string job_path = std::string("/jobs/") + kJobId;
  ::ckpt::testing::TempDir tmp_;
  std::unique_ptr<JobRunner> job_;
  std::unique_ptr<RestServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST(RestDashboardTest, VertexDetailsListEverySubtaskOfTheRunningAttempt) {
  DashboardJob d;
  ASSERT_TRUE(d.WaitCompleted(1));
  const json details = d.Ok(d.job_path);
  ASSERT_EQ(details["vertices"].size(), 3u) << details.dump();  // src, inject, sum -> out
  const JobTimeline t = d.job_->timeline();
  ASSERT_GT(t.attempt_start_ms, 0);
  const std::string tm = d.Ok("/taskmanagers")["taskmanagers"][0]["id"];
  for (const json& v : details["vertices"]) {
    const std::string vid = v["id"];
    const json vd = d.Ok(d.job_path + "/vertices/" + vid);
    EXPECT_EQ(vd["id"], vid);
    EXPECT_EQ(vd["name"], v["name"]);
    EXPECT_EQ(vd["parallelism"], 2);
    ASSERT_EQ(vd["subtasks"].size(), 2u) << vd.dump();
    for (int i = 0; i < 2; ++i) {
      const json& s = vd["subtasks"][i];
      EXPECT_EQ(s["subtask"], i);
      EXPECT_EQ(s["status"], "RUNNING");
      EXPECT_EQ(s["attempt"], 0);
      EXPECT_EQ(s["start-time"], t.attempt_start_ms);
      EXPECT_EQ(s["end-time"], -1);
      EXPECT_GE(s["duration"].get<int64_t>(), 0);
      EXPECT_EQ(s["taskmanager-id"], tm);
      EXPECT_EQ(s["host"], "127.0.0.1:" + std::to_string(d.server_->port()));
      // Task I/O is measured (rest_task_metrics_test.cpp checks the values).
      EXPECT_EQ(s["metrics"]["read-records-complete"], true);
      EXPECT_EQ(s["metrics"]["write-bytes-complete"], true);
    }
    const json tms = d.Ok(d.job_path + "/vertices/" + vid + "/taskmanagers");
    ASSERT_EQ(tms["taskmanagers"].size(), 1u);
    EXPECT_EQ(tms["taskmanagers"][0]["taskmanager-id"], tm);
    EXPECT_EQ(tms["taskmanagers"][0]["status-counts"]["RUNNING"], 2);
    EXPECT_EQ(d.Ok(d.job_path + "/vertices/" + vid + "/watermarks").size(), 2u);
    EXPECT_EQ(d.Ok(d.job_path + "/vertices/" + vid + "/backpressure")["status"], "ok");
    EXPECT_EQ(d.Ok(d.job_path + "/vertices/" + vid + "/accumulators")["user-accumulators"],
              json::array());
    EXPECT_EQ(d.Ok(d.job_path + "/vertices/" + vid + "/subtasks/accumulators")["subtasks"].size(),
              2u);
  }
  EXPECT_EQ(d.Get(d.job_path + "/vertices/00000000000000000000000000000000").status, 404);
}

TEST(RestDashboardTest, SubtaskMetricsAggregateTheLatestCheckpointsPerSubtaskValues) {
  DashboardJob d;
  ASSERT_TRUE(d.WaitCompleted(2));
  const std::string vid = d.Ok(d.job_path)["vertices"][2]["id"];  // the keyed sum
  const std::string base = d.job_path + "/vertices/" + vid;
  const json names = d.Ok(base + "/subtasks/metrics");
  ASSERT_TRUE(names.is_array());
  std::set<std::string> ids;
  for (const json& n : names) ids.insert(n["id"].get<std::string>());
  EXPECT_EQ(ids.count("checkpointAlignmentTime"), 1u);
  EXPECT_EQ(ids.count("checkpointStartDelayNanos"), 1u);
  const json agg = d.Ok(base + "/subtasks/metrics?get=checkpointStartDelayNanos&agg=min,max,sum");
  ASSERT_EQ(agg.size(), 1u) << agg.dump();
  EXPECT_EQ(agg[0]["id"], "checkpointStartDelayNanos");
  EXPECT_LE(agg[0]["min"].get<double>(), agg[0]["max"].get<double>());
  EXPECT_GE(agg[0]["sum"].get<double>(), agg[0]["max"].get<double>());
  EXPECT_FALSE(agg[0].contains("avg"));
  // The values are the task's last checkpoint's, in nanoseconds (measured in ms).
  const json per = d.Ok(base + "/metrics?get=0.checkpointStartDelayNanos");
  ASSERT_EQ(per.size(), 1u) << per.dump();
  EXPECT_EQ(per[0]["id"], "0.checkpointStartDelayNanos");
  EXPECT_EQ(std::stoll(per[0]["value"].get<std::string>()) % 1000000, 0);
}

TEST(RestDashboardTest, ExceptionsShowTheRestartCauseAndSubtasksTheNewAttempt) {
  DashboardJob d(/*fail_at_checkpoint=*/2);
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] { return d.job_->restarts() >= 1; }));
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] { return d.job_->status_name() == "RUNNING"; }))
      << d.job_->status_name() << " after " << d.job_->restarts() << " restart(s): "
      << d.Ok(d.job_path + "/exceptions").dump();
  const json ex = d.Ok(d.job_path + "/exceptions?maxExceptions=10");
  ASSERT_TRUE(ex["root-exception"].is_string()) << ex.dump();
  const JobTimeline t = d.job_->timeline();
  ASSERT_FALSE(t.failures.empty());
  EXPECT_EQ(ex["root-exception"], t.failures.back().message);
  EXPECT_NE(ex["root-exception"].get<std::string>().find("checkpoint 2"), std::string::npos)
      << ex.dump();
  EXPECT_EQ(ex["timestamp"], t.failures.back().timestamp_ms);
  const json& entries = ex["exceptionHistory"]["entries"];
  ASSERT_GE(entries.size(), 1u);
  EXPECT_EQ(entries[0]["stacktrace"], t.failures.back().message);
  EXPECT_EQ(entries[0]["timestamp"], t.failures.back().timestamp_ms);
  EXPECT_TRUE(entries[0]["concurrentExceptions"].is_array());
  EXPECT_EQ(ex["exceptionHistory"]["truncated"], false);
  const std::string vid = d.Ok(d.job_path)["vertices"][0]["id"];
  const json vd = d.Ok(d.job_path + "/vertices/" + vid);
  EXPECT_EQ(vd["subtasks"][0]["attempt"], d.job_->timeline().attempt);
  EXPECT_GE(vd["subtasks"][0]["attempt"].get<int>(), 1);
  EXPECT_EQ(d.Get(d.job_path + "/exceptions?maxExceptions=x").status, 400);
}

TEST(RestDashboardTest, JobConfigAndClusterViewsDescribeTheEngineProcess) {
  DashboardJob d;
  ASSERT_TRUE(d.WaitCompleted(1));
  const json cfg = d.Ok(d.job_path + "/config");
  EXPECT_EQ(cfg["jid"], kJobId);
  EXPECT_EQ(cfg["name"], "dashboard \"job\"");
  EXPECT_EQ(cfg["execution-config"]["job-parallelism"], 2);
  EXPECT_EQ(cfg["execution-config"]["restart-strategy"],
            "Restart with fixed delay (10 ms). #3 restart attempts.");

  const json tms = d.Ok("/taskmanagers");
  ASSERT_EQ(tms["taskmanagers"].size(), 1u);
  const json& tm = tms["taskmanagers"][0];
  EXPECT_EQ(tm["slotsNumber"], 6);  // one per task: src, inject, sum -> out, 2 subtasks each
  EXPECT_EQ(tm["freeSlots"], 0);
  EXPECT_GT(tm["hardware"]["cpuCores"].get<int>(), 0);
  EXPECT_GT(tm["hardware"]["physicalMemory"].get<int64_t>(), 0);
  const json detail = d.Ok("/taskmanagers/" + tm["id"].get<std::string>());
  EXPECT_EQ(detail["id"], tm["id"]);
#if CKPT_SANITIZER_ALLOCATOR
  // The sanitizers' allocators keep their own books: mallinfo2 reports nothing under them.
  EXPECT_GE(detail["metrics"]["heapUsed"].get<int64_t>(), 0);
#else
  EXPECT_GT(detail["metrics"]["heapUsed"].get<int64_t>(), 0);
#endif
  EXPECT_EQ(detail["allocatedSlots"][0]["jobId"], kJobId);
  EXPECT_EQ(d.Get("/taskmanagers/someone-else").status, 404);

  std::map<std::string, std::string> conf;
  for (const json& kv : d.Ok("/jobmanager/config")) conf[kv["key"]] = kv["value"];
  EXPECT_EQ(conf["state.checkpoints.dir"], d.tmp_.Sub("ckpt"));
  EXPECT_EQ(conf["execution.checkpointing.interval"], "20 ms");
  EXPECT_EQ(conf["restart-strategy.fixed-delay.attempts"], "3");
  EXPECT_EQ(conf["taskmanager.numberOfTaskSlots"], "6");

  const json env = d.Ok("/jobmanager/environment");
  EXPECT_FALSE(env["jvm"]["options"].empty());
  EXPECT_NE(env["jvm"]["version"].get<std::string>().find("ckpt-engine"), std::string::npos);

  const json names = d.Ok("/jobmanager/metrics");
  EXPECT_FALSE(names.empty());
  const json threads = d.Ok("/jobmanager/metrics?get=Status.JVM.Threads.Count,numRunningJobs");
  ASSERT_EQ(threads.size(), 2u) << threads.dump();
  // At least the job's 6 task threads and the endpoint's listener.
  EXPECT_GT(std::stoi(threads[0]["value"].get<std::string>()), 6);
  EXPECT_EQ(threads[1]["value"], "1");
  EXPECT_TRUE(d.Ok("/jobmanager/logs")["logs"].is_array());
  EXPECT_TRUE(d.Ok(d.job_path + "/accumulators")["user-task-accumulators"].is_array());
}

TEST(RestDashboardTest, LogAndStdoutServeTheFilesTheOutputGoesTo) {
  DashboardJob d;
  const Answer log = d.Get("/jobmanager/log");
  const Answer out = d.Get("/jobmanager/stdout");
  for (const auto& [fd, a] : {std::pair<int, const Answer*>{2, &log}, {1, &out}}) {
    struct stat st;
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular) {
      EXPECT_EQ(a->status, 200) << a->text;
      EXPECT_NE(a->content_type.find("text/plain"), std::string::npos);
    } else {
      EXPECT_EQ(a->status, 404);
      EXPECT_NE(a->body["errors"][0].get<std::string>().find("not a regular file"),
                std::string::npos);
    }
  }
}

// Whether the test's standard error (2) or output (1) is a regular file the engine can serve.
bool RegularFd(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

TEST(RestDashboardTest, TaskManagerMetricsLogsAndStdoutOfTheEngineProcess) {
  DashboardJob d;
  const std::string tm = "/taskmanagers/" + d.Ok("/taskmanagers")["taskmanagers"][0]["id"].get<std::string>();
  std::set<std::string> ids;
  for (const json& m : d.Ok(tm + "/metrics")) ids.insert(m["id"].get<std::string>());
  EXPECT_TRUE(ids.count("Status.JVM.Memory.Heap.Used")) << d.Ok(tm + "/metrics").dump();
  EXPECT_FALSE(ids.count("numRunningJobs"));  // a job manager metric
  // Flink's dashboard asks for ids the engine has not (Netty, managed memory): they are left out.
  const json values =
      d.Ok(tm + "/metrics?get=Status.JVM.Threads.Count,Status.Shuffle.Netty.UsedMemory");
  ASSERT_EQ(values.size(), 1u) << values.dump();
  EXPECT_EQ(values[0]["id"], "Status.JVM.Threads.Count");
  EXPECT_GT(std::stoi(values[0]["value"].get<std::string>()), 6);  // the job's 6 task threads

  std::set<std::string> names;
  const json logs = d.Ok(tm + "/logs");
  for (const json& l : logs["logs"]) names.insert(l["name"].get<std::string>());
  std::set<std::string> expected;
  if (RegularFd(2)) expected.insert("taskmanager.log");
  if (RegularFd(1)) expected.insert("taskmanager.out");
  EXPECT_EQ(names, expected);
  for (const auto& [fd, path] : {std::pair<int, std::string>{2, tm + "/log"},
                                 {2, tm + "/logs/taskmanager.log"},
                                 {1, tm + "/stdout"},
                                 {1, tm + "/logs/taskmanager.out"},
                                 {2, "/jobmanager/logs/jobmanager.log"},
                                 {1, "/jobmanager/logs/jobmanager.out"}}) {
    const Answer a = d.Get(path);
    EXPECT_EQ(a.status, RegularFd(fd) ? 200 : 404) << path << ": " << a.text;
  }
  const Answer other = d.Get(tm + "/logs/jobmanager.log");
  EXPECT_EQ(other.status, 404);
  EXPECT_NE(other.text.find("there are taskmanager.log and taskmanager.out"), std::string::npos)
      << other.text;
  EXPECT_EQ(d.Get("/jobmanager/logs/..%2Fetc%2Fpasswd").status, 404);
  EXPECT_EQ(d.Get("/taskmanagers/someone-else/metrics").status, 404);
  EXPECT_EQ(d.Get("/taskmanagers/someone-else/log").status, 404);
}

TEST(RestDashboardTest, ThreadDumpsListTheEngineProcessThreads) {
  DashboardJob d;
  const std::string tm = "/taskmanagers/" + d.Ok("/taskmanagers")["taskmanagers"][0]["id"].get<std::string>();
  for (const std::string& path : {std::string("/jobmanager/thread-dump"), tm + "/thread-dump"}) {
    const json infos = d.Ok(path)["threadInfos"];
    ASSERT_TRUE(infos.is_array()) << path;
    EXPECT_GT(infos.size(), 6u) << path << ": " << infos.dump();  // at least the task threads
    for (const json& t : infos) {
      const std::string name = t["threadName"];
      const std::string text = t["stringifiedThreadInfo"];
      EXPECT_EQ(text.rfind("\"" + name + "\" Id=", 0), 0u) << text;
    }
  }
  EXPECT_EQ(d.Get("/taskmanagers/someone-else/thread-dump").status, 404);
}

TEST(RestDashboardTest, FlameGraphsAreDisabledAsInFlinksDefault) {
  DashboardJob d;
  const std::string vid = d.Ok(d.job_path)["vertices"][0]["id"];
  EXPECT_EQ(d.Ok(d.job_path + "/vertices/" + vid + "/flamegraph?type=on_cpu"),
            json({{"endTimestamp", -2}}));
  EXPECT_EQ(d.Get(d.job_path + "/vertices/00000000000000000000000000000000/flamegraph").status,
            404);
}

TEST(RestDashboardTest, ApplicationsOverviewHasTheRunAsOneApplicationOfOneJob) {
  DashboardJob d;
  const json job = d.Ok("/jobs/overview")["jobs"][0];
  const json apps = d.Ok("/applications/overview")["applications"];
  ASSERT_EQ(apps.size(), 1u) << apps.dump();
  EXPECT_EQ(apps[0]["id"], kJobId);
  EXPECT_EQ(apps[0]["name"], job["name"]);
  EXPECT_EQ(apps[0]["status"], "RUNNING");
  EXPECT_EQ(apps[0]["start-time"], job["start-time"]);
  EXPECT_EQ(apps[0]["end-time"], -1);
  EXPECT_EQ(apps[0]["jobs"], json({{job["state"].get<std::string>(), 1}}));
  d.job_->Cancel();
  d.job_->Wait();
  const json ended = d.Ok("/applications/overview")["applications"];
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0]["status"], "CANCELED");
  EXPECT_EQ(ended[0]["jobs"], json({{"CANCELED", 1}}));
  EXPECT_GE(ended[0]["end-time"].get<int64_t>(), ended[0]["start-time"].get<int64_t>());
}

TEST(RestDashboardTest, RequestedCheckpointDetailsStayAvailableAfterLeavingTheHistory) {
  DashboardJob d;
  ASSERT_TRUE(d.WaitCompleted(2));
  const CheckpointStatsSnapshot first = d.job_->checkpoint_stats();
  const int64_t requested = first.history.back().checkpoint_id;  // oldest in the history
  const int64_t never = first.history.front().checkpoint_id;     // newest
  ASSERT_NE(requested, never);
  const json before = d.Ok(d.job_path + "/checkpoints/details/" + std::to_string(requested));
  EXPECT_EQ(before["id"], requested);
  // Both leave the history of the last 10.
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    const CheckpointStatsSnapshot s = d.job_->checkpoint_stats();
    return s.Find(never) == nullptr && s.latest_completed &&
           s.latest_completed->checkpoint_id > never + 1 && !s.history.empty() &&
           s.history.back().checkpoint_id > never;
  }));
  const json after = d.Ok(d.job_path + "/checkpoints/details/" + std::to_string(requested));
  EXPECT_EQ(after["id"], requested);
  EXPECT_EQ(after["status"], "COMPLETED");
  EXPECT_EQ(after["tasks"].size(), 3u);
  const json sub = d.Ok(d.job_path + "/checkpoints/details/" + std::to_string(requested) +
                        "/subtasks/" + d.Ok(d.job_path)["vertices"][0]["id"].get<std::string>());
  EXPECT_EQ(sub["subtasks"].size(), 2u);
  EXPECT_EQ(d.Get(d.job_path + "/checkpoints/details/" + std::to_string(never)).status, 404);
  // The latest completed checkpoint is always there, even once it left the history.
  const json cps = d.Ok(d.job_path + "/checkpoints");
  const int64_t latest = cps["latest"]["completed"]["id"];
  EXPECT_EQ(d.Ok(d.job_path + "/checkpoints/details/" + std::to_string(latest))["id"], latest);
}

TEST(RestDashboardTest, YarnCancelCancelsAndTheEndedJobStaysViewable) {
  DashboardJob d;
  ASSERT_TRUE(d.WaitCompleted(1));
  const Answer cancel = d.Get(d.job_path + "/yarn-cancel");
  EXPECT_EQ(cancel.status, 202) << cancel.text;
  EXPECT_EQ(d.job_->Wait().outcome, JobOutcome::kCancelled);
  const json details = d.Ok(d.job_path);
  EXPECT_EQ(details["state"], "CANCELED");
  const int64_t end = details["end-time"];
  EXPECT_EQ(end, d.job_->timeline().end_ms);
  EXPECT_EQ(details["duration"], end - details["start-time"].get<int64_t>());
  EXPECT_EQ(details["timestamps"]["CANCELED"], end);
  const json overview = d.Ok("/jobs/overview");
  EXPECT_EQ(overview["jobs"][0]["end-time"], end);
  const std::string vid = details["vertices"][0]["id"];
  const json vd = d.Ok(d.job_path + "/vertices/" + vid);
  EXPECT_EQ(vd["subtasks"][0]["status"], "CANCELED");
  EXPECT_EQ(vd["subtasks"][0]["end-time"], end);
  EXPECT_EQ(d.Ok("/taskmanagers")["taskmanagers"][0]["freeSlots"], 6);
  EXPECT_EQ(d.Get("/jobs/00000000000000000000000000000000/yarn-cancel").status, 404);
}

// The value of `metric` in a Prometheus exposition, or -2 if absent.
int64_t PromValue(const std::string& text, const std::string& metric) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(metric + "{", 0) != 0) continue;
    return std::stoll(line.substr(line.rfind(' ') + 1));
  }
  return -2;
}

TEST(RestDashboardTest, PrometheusExpositionHasFlinksCheckpointGaugesThatMove) {
  DashboardJob d;
  ASSERT_TRUE(d.WaitCompleted(1));
  const Answer first = d.Get("/metrics");
  ASSERT_EQ(first.status, 200);
  EXPECT_NE(first.content_type.find("text/plain; version=0.0.4"), std::string::npos);
  const std::string labels = std::string("{job_id=\"") + kJobId +
                             "\",job_name=\"dashboard \\\"job\\\"\",host=\"127.0.0.1\"}";
  EXPECT_NE(first.text.find("flink_jobmanager_job_numberOfCompletedCheckpoints" + labels),
            std::string::npos)
      << first.text;
  const int64_t completed =
      PromValue(first.text, "flink_jobmanager_job_numberOfCompletedCheckpoints");
  EXPECT_GE(completed, 1);
  EXPECT_GE(PromValue(first.text, "flink_jobmanager_job_lastCheckpointDuration"), 0);
  EXPECT_GT(PromValue(first.text, "flink_jobmanager_job_lastCheckpointFullSize"), 0);
  EXPECT_GE(PromValue(first.text, "flink_jobmanager_job_lastCheckpointSize"), 0);
  EXPECT_GE(PromValue(first.text, "flink_jobmanager_job_numberOfInProgressCheckpoints"), 0);
  EXPECT_EQ(PromValue(first.text, "flink_jobmanager_job_numberOfFailedCheckpoints"), 0);
  EXPECT_EQ(PromValue(first.text, "flink_jobmanager_job_lastCheckpointRestoreTimestamp"), -1);
  // The counters move while checkpoints run.
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    const Answer later = d.Get("/metrics");
    return PromValue(later.text, "flink_jobmanager_job_numberOfCompletedCheckpoints") >
               completed &&
           PromValue(later.text, "flink_jobmanager_job_lastCompletedCheckpointId") > completed;
  }));

  // promtool (Debian's prometheus package, scripts/install-deps.sh) accepts the exposition.
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool is not installed (apt-get install prometheus)";
  }
  const std::string file = d.tmp_.Sub("metrics.prom");
  std::ofstream(file) << d.Get("/metrics").text;
  const std::string cmd = "promtool check metrics < '" + file + "' > '" + file + ".out' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream out(file + ".out");
  std::string said, line;
  while (std::getline(out, line)) said += line + "\n";
  // Exit code 1 is a parse error; 3 only lint findings. Flink's metric names are camelCase
  // (its PrometheusReporter keeps them), the one finding allowed.
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_TRUE(WEXITSTATUS(rc) == 0 || WEXITSTATUS(rc) == 3) << said;
  std::istringstream findings(said);
  while (std::getline(findings, line)) {
    EXPECT_NE(line.find("should be written in 'snake_case' not 'camelCase'"), std::string::npos)
        << line;
  }
}

}  // namespace
}  // namespace ckpt::engine
