// Job archives (rest_archive.h) and the history server over them (history_server.h), for real
// jobs: the archive written after a checkpoint while the job runs, the final archive equal to
// the live REST answers, the history server serving one and two jobs, and hostile archives
// skipped with a warning naming the file.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/rest/history_server.h"
#include "ckpt/engine/rest/rest_archive.h"
#include "ckpt/engine/rest/rest_server.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

using nlohmann::json;

constexpr const char* kJobA = "a7c1a7c1a7c1a7c1a7c1a7c1a7c1a7c1";
constexpr const char* kJobB = "b7c1b7c1b7c1b7c1b7c1b7c1b7c1b7c1";

std::string ArchiveJobJson(const std::string& job_id) {
  return R"({"name": "archived job", "job_id": ")" + job_id + R"(", "operators": [
    {"id": "src", "kind": "sequence-source", "params": {"to": 1000000000, "keys": 8,
     "rate_per_second": 5000}},
    {"id": "sum", "kind": "keyed-sum"},
    {"id": "out", "kind": "discard"}],
  "edges": [{"from": "src", "to": "sum", "partitioning": "HASH"},
            {"from": "sum", "to": "out", "partitioning": "FORWARD"}]})";
}

// The archive file's answers by path; a test failure if it cannot be read.
std::map<std::string, json> ReadArchive(const std::string& file) {
  base::Result<std::string> text = base::ReadFileToString(base::Fs::Default(), file);
  EXPECT_OK(text.status());
  if (!text.ok()) return {};
  base::Result<std::vector<ArchivedJson>> entries = DecodeJobArchive(*text, file);
  EXPECT_OK(entries.status());
  std::map<std::string, json> out;
  if (!entries.ok()) return out;
  for (const ArchivedJson& e : *entries) out[e.path] = json::parse(e.json);
  return out;
}

json Get(httplib::Client& client, const std::string& path, int expected_status = 200) {
  httplib::Result r = client.Get(path);
  EXPECT_TRUE(r) << path;
  if (!r) return json();
  EXPECT_EQ(r->status, expected_status) << path << ": " << r->body;
  return json::parse(r->body, nullptr, false);
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A running job with checkpoints every 20 ms, archived into `archive_dir`, and a REST endpoint.
class ArchivedJob {
 public:
  ArchivedJob(const std::string& job_id, const std::string& archive_dir,
              const std::string& scratch)
      : job_id_(job_id), scratch_(scratch) {
    base::Result<pb::JobSpec> spec = format::ParseJobSpec(ArchiveJobJson(job_id), "job.json");
    EXPECT_OK(spec.status());
    JobRunnerOptions o;
    o.checkpoint_dir = scratch + "/ckpt";
    o.savepoint_dir = scratch + "/savepoints";
    o.interval_ms = 20;
    o.parallelism = 2;
    base::Result<std::unique_ptr<JobRunner>> job = JobRunner::Create(*spec, o);
    EXPECT_OK(job.status());
    job_ = std::move(*job);
    JobArchiverOptions ao;
    ao.dir = archive_dir;
    ao.poll_ms = 5;
    base::Result<std::unique_ptr<JobArchiver>> archiver = JobArchiver::Start(*job_, ao);
    EXPECT_OK(archiver.status());
    archiver_ = std::move(*archiver);
    EXPECT_OK(job_->Start());
    base::Result<std::unique_ptr<RestServer>> server = RestServer::Start(*job_, {});
    EXPECT_OK(server.status());
    server_ = std::move(*server);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    // As `run --archive-dir --rest-port` does: the archived answers name the endpoint.
    ArchiveEndpoint ep;
    ep.port = server_->port();
    archiver_->SetEndpoint(ep);
  }
  ~ArchivedJob() {
    archiver_.reset();
    server_->Stop();
    job_->Cancel();
    job_->Wait();
  }

  bool WaitCompleted(uint64_t n) {
    return ::ckpt::testing::WaitUntil([&] { return job_->checkpoint_stats().completed >= n; });
  }
  // Stops the job with a savepoint (it ends FINISHED) and writes the final archive.
  std::string StopAndArchive() {
    EXPECT_OK(job_->StopWithSavepoint(false, scratch_ + "/savepoints").status());
    job_->Wait();
    base::Result<std::string> file = archiver_->Finish();
    EXPECT_OK(file.status());
    return file.ok() ? *file : "";
  }

  std::string path() const { return "/jobs/" + job_id_; }

  std::string job_id_;
  std::string scratch_;
  std::unique_ptr<JobRunner> job_;
  std::unique_ptr<JobArchiver> archiver_;
  std::unique_ptr<RestServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

// A history server on a free port that scans only when asked, recording its warnings.
struct History {
  explicit History(const std::string& dir, uint64_t max_archive_bytes = uint64_t{64} << 20,
                   const std::string& jobmanager_log_url_pattern = "",
                   const std::string& taskmanager_log_url_pattern = "") {
    HistoryServerOptions o;
    o.archive_dir = dir;
    o.jobmanager_log_url_pattern = jobmanager_log_url_pattern;
    o.taskmanager_log_url_pattern = taskmanager_log_url_pattern;
    o.port = 0;
    o.refresh_interval_ms = 0;
    o.max_archive_bytes = max_archive_bytes;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(line);
    };
    base::Result<std::unique_ptr<HistoryServer>> s = HistoryServer::Start(o);
    EXPECT_OK(s.status());
    server = std::move(*s);
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(mu);
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    return all;
  }
  std::mutex mu;
  std::vector<std::string> lines;
  std::unique_ptr<HistoryServer> server;
  std::unique_ptr<httplib::Client> client;
};

TEST(RestArchiveTest, ArchiveAfterACheckpointExistsWhileTheJobRuns) {
  ::ckpt::testing::TempDir tmp;
  ArchivedJob job(kJobA, tmp.Sub("archive"), tmp.Sub("job"));
  const std::string file = tmp.Sub("archive") + "/" + kJobA;
  ASSERT_TRUE(job.WaitCompleted(1));
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] { return ::ckpt::testing::Exists(file); })) << file;
  std::map<std::string, json> archive = ReadArchive(file);
  // The state known then: the job ran, and at least one checkpoint had completed.
  ASSERT_TRUE(archive.count(job.path())) << file;
  EXPECT_EQ(archive[job.path()]["state"], "RUNNING");
  EXPECT_GE(archive[job.path() + "/checkpoints"]["counts"]["completed"].get<int64_t>(), 1);
  EXPECT_EQ(archive["/jobs/overview"]["jobs"][0]["state"], "RUNNING");
  EXPECT_EQ(job.job_->status_name(), "RUNNING");
  // What a crash leaves: a run resuming this job replaces it (and says so).
  std::string told;
  JobArchiverOptions resumed;
  resumed.dir = tmp.Sub("archive");
  resumed.log = [&told](const std::string& line) { told += line; };
  EXPECT_OK(JobArchiver::Start(*job.job_, resumed).status());
  EXPECT_NE(told.find("replacing " + file), std::string::npos) << told;
}

TEST(RestArchiveTest, FinalArchiveHoldsTheLiveRestAnswers) {
  ::ckpt::testing::TempDir tmp;
  ArchivedJob job(kJobA, tmp.Sub("archive"), tmp.Sub("job"));
  ASSERT_TRUE(job.WaitCompleted(2));
  // Answers that do not change while the job runs, fetched before its end.
  std::map<std::string, json> before;
  for (const std::string& p : {job.path() + "/plan", job.path() + "/config",
                               job.path() + "/checkpoints/config"}) {
    before[p] = Get(*job.client_, p);
  }
  const std::string file = job.StopAndArchive();
  std::map<std::string, json> archive = ReadArchive(file);
  for (const auto& [path, body] : before) EXPECT_EQ(archive[path], body) << path;
  // After the end every answer is fixed: the archive holds what the endpoint still serves.
  const json checkpoints = Get(*job.client_, job.path() + "/checkpoints");
  EXPECT_EQ(archive[job.path() + "/checkpoints"], checkpoints);
  const int64_t cid = checkpoints["latest"]["completed"]["id"].get<int64_t>();
  const std::string details = job.path() + "/checkpoints/details/" + std::to_string(cid);
  EXPECT_EQ(archive[details], Get(*job.client_, details));
  const json plan = Get(*job.client_, job.path() + "/plan");
  for (const json& node : plan["plan"]["nodes"]) {
    const std::string vid = node["id"];
    const std::string sub = details + "/subtasks/" + vid;
    EXPECT_EQ(archive[sub], Get(*job.client_, sub)) << sub;
    const std::string acc = job.path() + "/vertices/" + vid + "/subtasks/accumulators";
    EXPECT_EQ(archive[acc], Get(*job.client_, acc)) << acc;
    const std::string subtask = job.path() + "/vertices/" + vid + "/subtasks/1";
    ASSERT_TRUE(archive.count(subtask)) << subtask;
    EXPECT_EQ(archive[subtask]["subtask"], 1);
    EXPECT_EQ(archive[subtask]["status"], Get(*job.client_, subtask)["status"]);
  }
  EXPECT_EQ(archive[job.path() + "/exceptions"], Get(*job.client_, job.path() + "/exceptions"));
  for (const std::string& p : {job.path() + "/jobmanager/config",
                               job.path() + "/jobmanager/environment"}) {
    EXPECT_EQ(archive[p], Get(*job.client_, p)) << p;
  }
  const std::string vid = plan["plan"]["nodes"][0]["id"];
  const std::string vertex = job.path() + "/vertices/" + vid;
  const json times = Get(*job.client_, vertex + "/subtasktimes");
  EXPECT_EQ(archive[vertex + "/subtasktimes"]["subtasks"], times["subtasks"]);
  ASSERT_EQ(times["subtasks"].size(), 2u) << times.dump();
  EXPECT_TRUE(times["subtasks"][0]["timestamps"].contains("RUNNING")) << times.dump();
  EXPECT_TRUE(times["subtasks"][0]["timestamps"].contains("FINISHED")) << times.dump();
  EXPECT_EQ(archive[vertex + "/subtasks/0/attempts/0"], archive[vertex + "/subtasks/0"]);
  Get(*job.client_, vertex + "/subtasks/2", 404);
  Get(*job.client_, vertex + "/subtasks/0/attempts/1", 404);
  Get(*job.client_, vertex + "/subtasks/99999999999999", 404);
  EXPECT_EQ(archive[job.path()]["state"], "FINISHED");
  EXPECT_EQ(archive["/jobs/overview"]["jobs"][0]["state"], "FINISHED");
  EXPECT_EQ(archive["/jobs/overview"]["jobs"][0]["jid"], kJobA);
  // An ended run's archive is never overwritten, nor a file that is no archive.
  JobArchiverOptions again;
  again.dir = tmp.Sub("archive");
  base::Result<std::unique_ptr<JobArchiver>> second = JobArchiver::Start(*job.job_, again);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), base::StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find(file), std::string::npos)
      << second.status().ToString();
  EXPECT_NE(second.status().message().find("ended FINISHED"), std::string::npos)
      << second.status().ToString();
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), file, "{\"archive\": [trunc"));
  second = JobArchiver::Start(*job.job_, again);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("not a readable job archive"), std::string::npos)
      << second.status().ToString();
  EXPECT_EQ(::ckpt::testing::ReadBytes(file), "{\"archive\": [trunc");
}

TEST(RestArchiveTest, HistoryServerServesTwoArchivedJobs) {
  ::ckpt::testing::TempDir tmp;
  const std::string dir = tmp.Sub("archive");
  int64_t cid_a = 0;
  for (const char* id : {kJobA, kJobB}) {
    ArchivedJob job(id, dir, tmp.Sub(id));
    ASSERT_TRUE(job.WaitCompleted(1));
    job.StopAndArchive();
    if (std::string(id) == kJobA) {
      cid_a = Get(*job.client_, job.path() + "/checkpoints")["latest"]["completed"]["id"];
    }
  }
  History h(dir);
  const json config = Get(*h.client, "/config");
  EXPECT_EQ(config["features"]["web-history"], true) << config.dump();
  EXPECT_EQ(config["features"]["web-cancel"], false) << config.dump();
  const json overview = Get(*h.client, "/jobs/overview");
  ASSERT_EQ(overview["jobs"].size(), 2u) << overview.dump();
  std::set<std::string> ids;
  for (const json& j : overview["jobs"]) {
    ids.insert(j["jid"].get<std::string>());
    EXPECT_EQ(j["state"], "FINISHED") << j.dump();
  }
  EXPECT_EQ(ids, (std::set<std::string>{kJobA, kJobB}));
  const std::string a = std::string("/jobs/") + kJobA;
  EXPECT_EQ(Get(*h.client, a)["state"], "FINISHED");
  EXPECT_EQ(Get(*h.client, "/v1" + a)["jid"], kJobA);
  const json details = Get(*h.client, a + "/checkpoints/details/" + std::to_string(cid_a));
  EXPECT_EQ(details["id"], cid_a) << details.dump();
  EXPECT_EQ(details["status"], "COMPLETED") << details.dump();
  // Unknown paths: 404 with Flink's error body.
  const json missing = Get(*h.client, a + "/checkpoints/details/999999", 404);
  ASSERT_TRUE(missing.contains("errors")) << missing.dump();
  EXPECT_TRUE(missing["errors"].is_array());
  Get(*h.client, "/jobs/cccccccccccccccccccccccccccccccc", 404);
  // An archive removed from the directory is dropped at the next scan.
  ASSERT_EQ(std::remove((dir + "/" + kJobB).c_str()), 0);
  EXPECT_EQ(h.server->Refresh(), 1u);
  EXPECT_EQ(Get(*h.client, "/jobs/overview")["jobs"].size(), 1u);
  Get(*h.client, std::string("/jobs/") + kJobB, 404);
}

// What the dashboard asks of a finished job beyond the archived answers: the cluster overview
// and 2.x's applications, the final metrics filtered by get/agg, watermarks, the log URLs.
TEST(RestArchiveTest, HistoryServerAnswersTheDashboardsOverviewMetricsAndLogUrls) {
  ::ckpt::testing::TempDir tmp;
  const std::string dir = tmp.Sub("archive");
  std::string vertex;
  json live_in, live_sum;
  {
    ArchivedJob job(kJobA, dir, tmp.Sub("job"));
    ASSERT_TRUE(job.WaitCompleted(1));
    job.StopAndArchive();
    vertex = job.path() + "/vertices/" +
             Get(*job.client_, job.path())["vertices"][1]["id"].get<std::string>();
    live_in = Get(*job.client_, vertex + "/metrics?get=0.numRecordsIn,1.numRecordsIn");
    live_sum = Get(*job.client_, vertex + "/subtasks/metrics?get=numRecordsIn&agg=sum");
  }
  History h(dir, uint64_t{64} << 20, "https://logs.example/<jobid>/jm",
            "https://logs.example/<jobid>/<tmid>");
  const json overview = Get(*h.client, "/overview");
  EXPECT_EQ(overview["jobs-finished"], 1);
  EXPECT_EQ(overview["jobs-running"], 0);
  EXPECT_EQ(overview["taskmanagers"], 0);
  const json apps = Get(*h.client, "/applications/overview")["applications"];
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(apps[0]["status"], "FINISHED");

  const json ids = Get(*h.client, vertex + "/metrics");
  ASSERT_FALSE(ids.empty());
  for (const json& m : ids) EXPECT_FALSE(m.contains("value")) << m.dump();
  const json in = Get(*h.client, vertex + "/metrics?get=0.numRecordsIn,1.numRecordsIn");
  EXPECT_EQ(in, live_in);
  ASSERT_EQ(in.size(), 2u);
  const json sum = Get(*h.client, vertex + "/subtasks/metrics?get=numRecordsIn&agg=sum");
  EXPECT_EQ(sum, live_sum);
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_EQ(sum[0].size(), 2u) << sum.dump();  // id and sum only
  EXPECT_GT(sum[0]["sum"].get<double>(), 0);
  EXPECT_TRUE(Get(*h.client, vertex + "/metrics?get=0.noSuchMetric").empty());
  EXPECT_FALSE(Get(*h.client, vertex + "/watermarks").empty());

  const std::string job = std::string("/jobs/") + kJobA;
  EXPECT_EQ(Get(*h.client, job + "/jobmanager/log-url")["url"],
            std::string("https://logs.example/") + kJobA + "/jm");
  EXPECT_EQ(Get(*h.client, job + "/taskmanagers/tm-1/log-url")["url"],
            std::string("https://logs.example/") + kJobA + "/tm-1");
  Get(*h.client, "/jobs/cccccccccccccccccccccccccccccccc/jobmanager/log-url", 404);
  History plain(dir);
  const json no_pattern = Get(*plain.client, job + "/jobmanager/log-url", 404);
  EXPECT_NE(no_pattern.dump().find("--jobmanager-log-url-pattern"), std::string::npos);
}

TEST(RestArchiveTest, HistoryServerPicksUpNewArchivesInTheBackground) {
  ::ckpt::testing::TempDir tmp;
  const std::string dir = tmp.Sub("archive");
  ASSERT_OK(base::Fs::Default().CreateDirs(dir));
  HistoryServerOptions o;
  o.archive_dir = dir;
  o.port = 0;
  o.refresh_interval_ms = 5;
  base::Result<std::unique_ptr<HistoryServer>> hs = HistoryServer::Start(o);
  ASSERT_OK(hs.status());
  httplib::Client client("127.0.0.1", (*hs)->port());
  EXPECT_EQ(Get(client, "/jobs/overview")["jobs"].size(), 0u);
  ArchivedJob job(kJobA, dir, tmp.Sub("job"));
  ASSERT_TRUE(job.WaitCompleted(1));
  // The archive of a checkpoint, then the final one, each without a call to Refresh().
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    const json jobs = Get(client, "/jobs/overview")["jobs"];
    return jobs.size() == 1 && jobs[0]["state"] == "RUNNING";
  }));
  job.StopAndArchive();
  ASSERT_TRUE(::ckpt::testing::WaitUntil([&] {
    const json jobs = Get(client, "/jobs/overview")["jobs"];
    return jobs.size() == 1 && jobs[0]["state"] == "FINISHED";
  }));
  EXPECT_EQ(Get(client, job.path())["state"], "FINISHED");
}

TEST(RestArchiveTest, HistoryServerServesTheDashboardAndRefusesUnusableDirectories) {
  ::ckpt::testing::TempDir tmp;
  HistoryServerOptions o;
  o.archive_dir = tmp.Sub("missing");
  o.port = 0;
  base::Result<std::unique_ptr<HistoryServer>> hs = HistoryServer::Start(o);
  ASSERT_FALSE(hs.ok());
  EXPECT_EQ(hs.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_NE(hs.status().message().find(o.archive_dir), std::string::npos) << hs.status().ToString();
  o.archive_dir = tmp.path();
  o.web_ui_dir = tmp.path();  // no index.html
  hs = HistoryServer::Start(o);
  ASSERT_FALSE(hs.ok());
  EXPECT_NE(hs.status().message().find("index.html"), std::string::npos) << hs.status().ToString();
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("web")));
  WriteFile(tmp.Sub("web/index.html"), "<html>dashboard</html>");
  o.web_ui_dir = tmp.Sub("web");
  hs = HistoryServer::Start(o);
  ASSERT_OK(hs.status());
  httplib::Client client("127.0.0.1", (*hs)->port());
  httplib::Result page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "<html>dashboard</html>");
  EXPECT_EQ(Get(client, "/config")["features"]["web-history"], true);
}

TEST(RestArchiveTest, HostileArchivesAreSkippedWithAWarningNamingTheFile) {
  ::ckpt::testing::TempDir tmp;
  const std::string dir = tmp.Sub("archive");
  {
    ArchivedJob job(kJobA, dir, tmp.Sub("job"));
    ASSERT_TRUE(job.WaitCompleted(1));
    job.StopAndArchive();
  }
  const std::string good = ::ckpt::testing::ReadBytes(dir + "/" + kJobA);
  ASSERT_FALSE(good.empty());
  const std::string overview = R"({\"jobs\":[]})";
  struct Bad {
    std::string name;
    std::string bytes;
    std::string why;  // part of the warning
  };
  const std::vector<Bad> bad = {
      {"11111111111111111111111111111111", good.substr(0, good.size() / 2), "not JSON"},
      {"22222222222222222222222222222222", R"({"archive": [{"path": "/jobs/overview"}]})",
       "lacks a string"},
      {"33333333333333333333333333333333", R"({"other": 1})", "no \"archive\" array"},
      {"44444444444444444444444444444444",
       R"({"archive": [{"path": "/jobs/overview", "json": ")" + overview +
           R"("}, {"path": "/jobs/44444444444444444444444444444444/../../etc", "json": "{}"}]})",
       "not a clean URL path"},
      {"55555555555555555555555555555555",
       R"({"archive": [{"path": "/jobs/overview", "json": ")" + overview +
           R"("}, {"path": "/jobs/)" + kJobA + R"(", "json": "{}"}]})",
       "not under /jobs/55555555555555555555555555555555"},
      {"66666666666666666666666666666666",
       R"({"archive": [{"path": "/jobs/overview", "json": "{\"jobs\": [}"}]})", "is not JSON"},
      {"not-a-job-id", good, "not a job id"},
      {"88888888888888888888888888888888",
       R"({"archive": [{"path": "/jobs/overview", "json": "{\"jobs\": [)" +
           std::string(100000, '[') + R"("}]})",
       "nests deeper than 256"},
      {"99999999999999999999999999999999", std::string(100000, '['), "nests deeper than 256"},
      {"77777777777777777777777777777777", std::string(200000, ' ') + good, "more than the limit"},
  };
  for (const Bad& b : bad) WriteFile(dir + "/" + b.name, b.bytes);
  History h(dir, /*max_archive_bytes=*/good.size() + 150000);
  const std::string log = h.Log();
  for (const Bad& b : bad) {
    const std::string file = dir + "/" + b.name;
    EXPECT_NE(log.find("skipping " + file + ":"), std::string::npos) << b.name << "\n" << log;
    size_t at = log.find("skipping " + file + ":");
    if (at == std::string::npos) continue;
    const std::string line = log.substr(at, log.find('\n', at) - at);
    EXPECT_NE(line.find(b.why), std::string::npos) << line;
  }
  // The good archive is served; the bad ones answer nothing.
  const json jobs = Get(*h.client, "/jobs/overview")["jobs"];
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump() << "\n" << log;
  EXPECT_EQ(jobs[0]["jid"], kJobA);
  Get(*h.client, "/jobs/44444444444444444444444444444444/../../etc", 404);
  // Warned once: a rescan of unchanged files says nothing new.
  const size_t lines = h.lines.size();
  EXPECT_EQ(h.server->Refresh(), 1u);
  EXPECT_EQ(h.lines.size(), lines) << h.Log();
  // A bad archive replaced by a good one is loaded at the next scan.
  std::string fixed = good;
  for (size_t at = fixed.find(kJobA); at != std::string::npos; at = fixed.find(kJobA, at)) {
    fixed.replace(at, 32, "11111111111111111111111111111111");
  }
  ckpt::base::Status st =
      base::WriteFileAtomic(base::Fs::Default(), dir + "/11111111111111111111111111111111", fixed);
  ASSERT_OK(st);
  EXPECT_EQ(h.server->Refresh(), 2u) << h.Log();
  EXPECT_EQ(Get(*h.client, "/jobs/11111111111111111111111111111111")["state"], "FINISHED");
}

}  // namespace
}  // namespace ckpt::engine
