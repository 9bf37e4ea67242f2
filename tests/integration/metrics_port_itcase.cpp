// `ckpt-engine run --metrics-port 0` (a real engine process): the Prometheus exposition alone on
// a port of its own, as Flink's PrometheusReporter, with the job's checkpoint gauges and the
// task metrics moving while the job runs; the REST port keeps serving /metrics too.
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <httplib.h>

#include "ckpt/testing/wait_until.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

// The sum over every sample of `metric` (any labels).
double MetricSum(const std::string& text, const std::string& metric) {
  std::istringstream in(text);
  std::string line;
  double sum = 0;
  while (std::getline(in, line)) {
    if (line.rfind(metric + "{", 0) == 0) sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

TEST(MetricsPortItCase, ServesOnlyMetricsWhoseTaskCountersMove) {
  EngineRun run;
  RestEngine engine(run.Args({"--metrics-port", "0"}), run.log, run.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(run.log);
  // Printed before the REST address.
  std::smatch m;
  const std::string log = ReadFile(run.log);
  const std::regex re("Metrics endpoint: http://127\\.0\\.0\\.1:([0-9]+)/metrics");
  ASSERT_TRUE(std::regex_search(log, m, re)) << log;
  const int metrics_port = std::stoi(m[1]);
  EXPECT_NE(metrics_port, engine.port());

  httplib::Client metrics("127.0.0.1", metrics_port);
  auto scrape = [&] {
    httplib::Result r = metrics.Get("/metrics");
    return r && r->status == 200 ? r->body : std::string();
  };
  const std::string first = scrape();
  ASSERT_NE(first.find("flink_jobmanager_job_numberOfCompletedCheckpoints{"), std::string::npos)
      << first;
  const double records_out = MetricSum(first, "flink_taskmanager_job_task_numRecordsOut");
  std::string later;
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    later = scrape();
    return MetricSum(later, "flink_taskmanager_job_task_numRecordsOut") > records_out &&
           MetricSum(later, "flink_jobmanager_job_numberOfCompletedCheckpoints") >= 1;
  })) << later;

  // Nothing but /metrics on that port.
  httplib::Result jobs = metrics.Get("/jobs");
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 404);
  // The REST port keeps its /metrics.
  std::unique_ptr<httplib::Client> rest = engine.Client();
  httplib::Result on_rest = rest->Get("/metrics");
  ASSERT_TRUE(on_rest);
  EXPECT_EQ(on_rest->status, 200);
  EXPECT_NE(on_rest->body.find("flink_taskmanager_job_task_busyTimeMsPerSecond{"),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt::itcase
