// The REST API of a real `ckpt-engine run --rest-port 0` subprocess, driven with httplib's
// client: every endpoint answers in Flink's shape, and what it says about checkpoints and
// savepoints matches the snapshots on disk; bad requests get 4xx with Flink's error body while
// the engine keeps running; the history survives a restart; a bounded load completes cleanly.
#include <arpa/inet.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

using nlohmann::json;

#define ASSERT_ENGINE_BUILT() \
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it"

json Checkpoints(httplib::Client& c) { return CheckpointsOf(c, kJobId); }
bool WaitCompleted(httplib::Client& c, int n) { return itcase::WaitCompleted(c, kJobId, n); }

// Chain heads of the job graph as Flink's vertex ids.
std::set<std::string> VertexIds(const pb::JobGraph& g) {
  std::set<std::string> out;
  for (const auto& op : g.operators()) {
    if (op.position_in_chain() == 0) out.insert(format::OperatorId::FromBytes(op.operator_id())->ToHex());
  }
  return out;
}

std::set<std::string> Keys(const json& j) {
  std::set<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.insert(it.key());
  return out;
}

TEST(RestApiITCase, EveryEndpointAnswersInFlinkShapeAndMatchesTheSnapshotsOnDisk) {
  ASSERT_ENGINE_BUILT();
  EngineRun s;
  RestEngine engine(s.Args(), s.log, s.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
  auto c = engine.Client();
  ASSERT_TRUE(WaitCompleted(*c, 2)) << ReadFile(s.log);

  // The state file names this engine.
  json state = json::parse(ReadFile(s.state));
  EXPECT_EQ(state["address"], engine.url());
  EXPECT_EQ(state["job_id"], kJobId);

  HttpAnswer config = HttpGet(*c, "/config");
  ASSERT_EQ(config.status, 200);
  EXPECT_TRUE(config.body.contains("flink-version"));
  EXPECT_TRUE(config.body["features"].contains("web-cancel"));
  HttpAnswer overview = HttpGet(*c, "/overview");
  ASSERT_EQ(overview.status, 200);
  EXPECT_EQ(overview.body["jobs-running"], 1);
  HttpAnswer jobs = HttpGet(*c, "/jobs");
  ASSERT_EQ(jobs.status, 200);
  ASSERT_EQ(jobs.body["jobs"].size(), 1u);
  EXPECT_EQ(jobs.body["jobs"][0]["id"], kJobId);
  EXPECT_EQ(jobs.body["jobs"][0]["status"], "RUNNING");
  HttpAnswer v1 = HttpGet(*c, "/v1/jobs/overview");
  ASSERT_EQ(v1.status, 200);
  EXPECT_EQ(v1.body["jobs"][0]["jid"], kJobId);
  EXPECT_EQ(v1.body["jobs"][0]["name"], "keyed-sum-itcase");
  EXPECT_EQ(v1.body["jobs"][0]["state"], "RUNNING");

  // The latest completed checkpoint as the API shows it, and its `_metadata` on disk: a newer
  // checkpoint may complete and delete it (num_retained 1) between the two reads, which are
  // then both repeated.
  json cps;
  pb::CheckpointMetadata md;
  ASSERT_TRUE(testing::WaitUntil([&] {
    cps = Checkpoints(*c);
    const json& shown = cps["latest"]["completed"];
    if (!shown.is_object() || !shown["external_path"].is_string()) return false;
    const std::string at = shown["external_path"].get<std::string>() + "/_metadata";
    base::Result<std::string> bytes = base::ReadFileToString(base::Fs::Default(), at);
    if (!bytes.ok()) return false;
    base::Result<pb::CheckpointMetadata> decoded = format::DecodeMetadata(*bytes, at);
    if (!decoded.ok()) return false;
    md = std::move(*decoded);
    return true;
  })) << cps.dump();
  EXPECT_EQ(Keys(cps), (std::set<std::string>{"counts", "summary", "latest", "history"}));
  EXPECT_EQ(Keys(cps["counts"]),
            (std::set<std::string>{"restored", "total", "in_progress", "completed", "failed"}));
  EXPECT_EQ(Keys(cps["summary"]),
            (std::set<std::string>{"checkpointed_size", "state_size", "end_to_end_duration",
                                   "alignment_buffered", "processed_data", "persisted_data"}));
  for (const auto& [k, v] : cps["summary"].items()) {
    EXPECT_EQ(Keys(v), (std::set<std::string>{"min", "max", "avg", "p50", "p90", "p95", "p99",
                                              "p999"}))
        << k;
  }
  EXPECT_EQ(cps["counts"]["failed"], 0);
  const json latest = cps["latest"]["completed"];
  EXPECT_EQ(latest["id"], md.checkpoint_id());
  EXPECT_EQ(latest["status"], "COMPLETED");
  EXPECT_EQ(latest["is_savepoint"], false);
  EXPECT_EQ(latest["checkpoint_type"], "CHECKPOINT");
  EXPECT_EQ(latest["trigger_timestamp"], md.metrics().trigger_timestamp());
  EXPECT_EQ(latest["state_size"], md.metrics().state_size());
  EXPECT_EQ(latest["checkpointed_size"], md.metrics().checkpointed_size());
  EXPECT_EQ(latest["end_to_end_duration"], md.metrics().end_to_end_duration());
  EXPECT_EQ(latest["num_subtasks"], md.metrics().num_subtasks());
  EXPECT_EQ(latest["num_acknowledged_subtasks"], md.metrics().num_subtasks());
  EXPECT_GT(md.metrics().state_size(), 0u);
  ASSERT_FALSE(cps["history"].empty());
  EXPECT_GE(cps["history"][0]["id"].get<int64_t>(), md.checkpoint_id());  // newest first
  // `discarded` (Flink's): the directory of a subsumed checkpoint is deleted before it is
  // reported, so a discarded entry's path is gone; the newest completed is retained.
  int discarded = 0;
  for (const json& h : cps["history"]) {
    if (h["status"] != "COMPLETED") continue;
    ASSERT_TRUE(h.contains("discarded")) << h.dump();
    if (h["id"] == latest["id"]) {
      EXPECT_EQ(h["discarded"], false);
    }
    if (h["discarded"] == true) {
      ++discarded;
      EXPECT_FALSE(std::filesystem::exists(h["external_path"].get<std::string>())) << h.dump();
    }
  }
  EXPECT_GT(discarded, 0) << "the job has num_retained 1 and two completed checkpoints: "
                          << cps["history"].dump();

  // The job: one vertex per operator chain, named by the chain head's operator id.
  const std::set<std::string> vertex_ids = VertexIds(md.job_graph());
  HttpAnswer details = HttpGet(*c, std::string("/jobs/") + kJobId);
  ASSERT_EQ(details.status, 200);
  EXPECT_EQ(details.body["jid"], kJobId);
  EXPECT_EQ(details.body["state"], "RUNNING");
  std::set<std::string> shown;
  for (const json& v : details.body["vertices"]) shown.insert(v["id"].get<std::string>());
  EXPECT_EQ(shown, vertex_ids);
  HttpAnswer plan = HttpGet(*c, std::string("/jobs/") + kJobId + "/plan");
  ASSERT_EQ(plan.status, 200);
  EXPECT_EQ(plan.body["plan"]["nodes"].size(), vertex_ids.size());

  HttpAnswer cfg = HttpGet(*c, std::string("/jobs/") + kJobId + "/checkpoints/config");
  ASSERT_EQ(cfg.status, 200);
  EXPECT_EQ(cfg.body["interval"], 100);
  EXPECT_EQ(cfg.body["mode"], "exactly_once");
  EXPECT_EQ(cfg.body["max_concurrent"], 1);

  // Details of the checkpoint on disk: per-vertex sizes add up to the snapshot's.
  const std::string id = std::to_string(md.checkpoint_id());
  HttpAnswer one = HttpGet(*c, std::string("/jobs/") + kJobId + "/checkpoints/details/" + id);
  if (one.status == 404) GTEST_SKIP() << "checkpoint left the history meanwhile";
  ASSERT_EQ(one.status, 200) << one.body.dump();
  EXPECT_EQ(Keys(one.body["tasks"]), vertex_ids);
  uint64_t total = 0;
  for (const auto& [vid, t] : one.body["tasks"].items()) total += t["state_size"].get<uint64_t>();
  EXPECT_EQ(total, md.metrics().state_size());
  for (const std::string& vid : vertex_ids) {
    HttpAnswer sub = HttpGet(*c, std::string("/jobs/") + kJobId + "/checkpoints/details/" + id +
                                     "/subtasks/" + vid);
    ASSERT_EQ(sub.status, 200) << sub.body.dump();
    EXPECT_TRUE(sub.body["summary"].contains("checkpoint_duration"));
    EXPECT_TRUE(sub.body["summary"]["alignment"].contains("duration"));
    for (const json& st : sub.body["subtasks"]) {
      EXPECT_EQ(st["status"], "completed") << st.dump();
      EXPECT_TRUE(st.contains("unaligned_checkpoint"));
      EXPECT_TRUE(st["checkpoint"].contains("async"));
    }
  }

  // A manual checkpoint completes and is on disk.
  HttpAnswer trig = HttpPost(*c, std::string("/jobs/") + kJobId + "/checkpoints", "{}");
  ASSERT_EQ(trig.status, 202) << trig.body.dump();
  json op = AwaitOperation(*c, std::string("/jobs/") + kJobId + "/checkpoints/" +
                                   trig.body["request-id"].get<std::string>());
  ASSERT_TRUE(op.contains("checkpointId")) << op.dump();
  EXPECT_TRUE(std::filesystem::exists(s.ckpt_dir + "/" + kJobId + "/chk-" +
                                      std::to_string(op["checkpointId"].get<int64_t>()) +
                                      "/_metadata") ||
              Checkpoints(*c)["counts"]["completed"].get<int>() > 2);

  // A savepoint: on disk as a SAVEPOINT, shown as the latest savepoint; then disposed.
  const std::string sp_dir = s.tmp.Sub("savepoints");
  trig = HttpPost(*c, std::string("/jobs/") + kJobId + "/savepoints",
                  json{{"target-directory", sp_dir}, {"cancel-job", false}}.dump());
  ASSERT_EQ(trig.status, 202) << trig.body.dump();
  op = AwaitOperation(*c, std::string("/jobs/") + kJobId + "/savepoints/" +
                              trig.body["request-id"].get<std::string>());
  ASSERT_TRUE(op.contains("location")) << op.dump();
  const std::string sp = op["location"];
  EXPECT_EQ(sp.rfind(sp_dir + "/savepoint-", 0), 0u) << sp;
  const pb::CheckpointMetadata sp_md = ReadMd(sp);
  EXPECT_EQ(sp_md.kind(), pb::SAVEPOINT);
  cps = Checkpoints(*c);
  EXPECT_EQ(cps["latest"]["savepoint"]["external_path"], sp);
  EXPECT_EQ(cps["latest"]["savepoint"]["id"], sp_md.checkpoint_id());
  EXPECT_EQ(cps["latest"]["savepoint"]["checkpoint_type"], "SAVEPOINT");
  trig = HttpPost(*c, "/savepoint-disposal", json{{"savepoint-path", sp}}.dump());
  ASSERT_EQ(trig.status, 202) << trig.body.dump();
  AwaitOperation(*c, "/savepoint-disposal/" + trig.body["request-id"].get<std::string>());
  EXPECT_FALSE(std::filesystem::exists(sp));

  // Stop with a savepoint: the job finishes and the engine exits 0.
  trig = HttpPost(*c, std::string("/jobs/") + kJobId + "/stop",
                  json{{"targetDirectory", sp_dir}, {"drain", false}}.dump());
  ASSERT_EQ(trig.status, 202) << trig.body.dump();
  op = AwaitOperation(*c, std::string("/jobs/") + kJobId + "/savepoints/" +
                              trig.body["request-id"].get<std::string>());
  ASSERT_TRUE(op.contains("location")) << op.dump();
  EXPECT_EQ(ReadMd(op["location"]).post_action(), pb::POST_ACTION_STOP);
  EXPECT_EQ(engine.Wait(), 0) << ReadFile(s.log);
  EXPECT_NE(ReadFile(s.log).find("STOPPED with savepoint " + op["location"].get<std::string>()),
            std::string::npos)
      << ReadFile(s.log);
  EXPECT_FALSE(std::filesystem::exists(s.state)) << "the engine removes its state file at exit";
}

// A client that opens a connection, sends half a request line and then nothing.
bool SlowClientIsDisconnected(int port) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return false;
  const std::string partial = "GET /jobs HTTP/1.1\r\nHost: x\r\n";  // headers never end
  if (send(fd, partial.data(), partial.size(), 0) < 0) {
    close(fd);
    return false;
  }
  // The server gives up on it after its read timeout: recv sees an answer or the close.
  timeval tv{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buf[512];
  std::string got;
  ssize_t n;
  while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) got.append(buf, static_cast<size_t>(n));
  close(fd);
  return n == 0 && (got.empty() || got.rfind("HTTP/1.1 4", 0) == 0);
}

TEST(RestApiITCase, BadRequestsGetFlinkErrorBodiesAndTheEngineKeepsServing) {
  ASSERT_ENGINE_BUILT();
  EngineRun s;
  RestEngine engine(s.Args(), s.log, s.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
  auto c = engine.Client();
  ASSERT_TRUE(WaitCompleted(*c, 1)) << ReadFile(s.log);
  const std::string job = std::string("/jobs/") + kJobId;

  auto expect_error = [&](const httplib::Result& r, int status, const std::string& what) {
    ASSERT_TRUE(r) << what << ": no answer";
    EXPECT_EQ(r->status, status) << what << ": " << r->body;
    json body = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(body.is_object() && body["errors"].is_array() && !body["errors"].empty())
        << what << ": " << r->body;
    EXPECT_TRUE(body["errors"][0].is_string()) << what;
    // Still serving, the job still running.
    HttpAnswer alive = HttpGet(*c, "/jobs");
    EXPECT_EQ(alive.status, 200) << "after " << what;
    EXPECT_EQ(alive.body["jobs"][0]["status"], "RUNNING") << "after " << what;
  };

  expect_error(c->Post((job + "/savepoints").c_str(), "{\"target-directory\": ", "application/json"),
               400, "malformed JSON");
  expect_error(c->Post((job + "/savepoints").c_str(), "[1, 2]", "application/json"), 400,
               "a JSON array body");
  expect_error(c->Post((job + "/savepoints").c_str(), "{\"cancel-job\": \"yes\"}",
                       "application/json"),
               400, "a string where a boolean belongs");
  expect_error(c->Post((job + "/stop").c_str(), "{\"formatType\": \"ZIP\"}", "application/json"),
               400, "an unknown savepoint format");
  expect_error(c->Get("/jobs/ffffffffffffffffffffffffffffffff"), 404, "an unknown job");
  expect_error(c->Get("/jobs/ffffffffffffffffffffffffffffffff/checkpoints"), 404,
               "checkpoints of an unknown job");
  expect_error(c->Get("/jobs/not-a-job-id"), 400, "a malformed job id");
  expect_error(c->Get((job + "/checkpoints/details/999999").c_str()), 404,
               "an unknown checkpoint");
  expect_error(c->Get((job + "/checkpoints/details/abc").c_str()), 400, "a malformed checkpoint id");
  expect_error(c->Get((job + "/savepoints/00000000000000000000000000000000").c_str()), 404,
               "an unknown trigger id");
  expect_error(c->Get("/no/such/path"), 404, "an unknown path");
  expect_error(c->Delete("/jobs"), 405, "DELETE on /jobs");
  expect_error(c->Put("/config", "{}", "application/json"), 405, "PUT on /config");
  expect_error(c->Post("/overview", "{}", "application/json"), 405, "POST on /overview");
  expect_error(c->Patch((job + "?mode=stop").c_str(), "", "application/json"), 400,
               "an unsupported termination mode");
  {
    // A body over the 1 MiB limit is refused from its Content-Length, before it is read.
    const std::string head = "POST " + job + "/savepoints HTTP/1.1\r\nHost: x\r\n"
                             "Content-Type: application/json\r\nContent-Length: 2097152\r\n"
                             "Connection: close\r\n\r\n{";
    const std::string answer = RawExchange(engine.port(), head);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
    EXPECT_NE(answer.find("\"errors\""), std::string::npos) << answer;
    EXPECT_EQ(HttpGet(*c, "/jobs").status, 200) << "after an oversized body";
  }
  // Target directories that cannot be written: below a regular file, and relative.
  const std::string file = s.tmp.Sub("a-file");
  std::ofstream(file) << "x";
  expect_error(c->Post((job + "/savepoints").c_str(),
                       json{{"target-directory", file + "/sp"}}.dump(), "application/json"),
               400, "a target directory below a file");
  expect_error(c->Post((job + "/stop").c_str(), json{{"targetDirectory", "relative/sp"}}.dump(),
                       "application/json"),
               400, "a relative target directory");
  expect_error(c->Post("/savepoint-disposal", json{{"savepoint-path", s.tmp.Sub("nothing")}}.dump(),
                       "application/json"),
               400, "disposing what is not a savepoint");
  expect_error(c->Post("/savepoint-disposal",
                       json{{"savepoint-path", s.ckpt_dir + "/" + kJobId}}.dump(),
                       "application/json"),
               400, "disposing the running job's own checkpoints");

  EXPECT_TRUE(SlowClientIsDisconnected(engine.port()));
  HttpAnswer alive = HttpGet(*c, "/jobs");
  EXPECT_EQ(alive.status, 200) << "after a slow client";

  // Nothing was lost: checkpoints went on, none failed, and no stray directory was left.
  const int before = Checkpoints(*c)["counts"]["completed"];
  ASSERT_TRUE(WaitCompleted(*c, before + 2));
  EXPECT_EQ(Checkpoints(*c)["counts"]["failed"], 0);
  EXPECT_FALSE(std::filesystem::exists(s.tmp.Sub("relative")));

  // PATCH ?mode=cancel cancels the job; the engine exits.
  auto r = c->Patch(job.c_str(), "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body;
  EXPECT_EQ(engine.Wait(), 1) << ReadFile(s.log);
  EXPECT_NE(ReadFile(s.log).find("Job finished: CANCELED"), std::string::npos) << ReadFile(s.log);
}

TEST(RestApiITCase, CheckpointHistorySurvivesAnEngineRestart) {
  ASSERT_ENGINE_BUILT();
  EngineRun s;
  std::map<int64_t, uint64_t> retained;  // id -> state size, from the first run's snapshots
  {
    RestEngine engine(s.Args({"--num-retained", "3", "--retention", "retain-on-cancellation"}),
                      s.log, s.state);
    ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
    auto c = engine.Client();
    ASSERT_TRUE(WaitCompleted(*c, 4)) << ReadFile(s.log);
    engine.Kill();  // kill -9: Flink's in-memory history would be gone
  }
  for (const auto& e : std::filesystem::directory_iterator(s.ckpt_dir + "/" + kJobId)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("chk-", 0) != 0 || !std::filesystem::exists(e.path() / "_metadata")) continue;
    const pb::CheckpointMetadata md = ReadMd(e.path().string());
    retained[md.checkpoint_id()] = md.metrics().state_size();
  }
  ASSERT_GE(retained.size(), 1u);

  RestEngine again(s.Args({"--num-retained", "3", "--from-latest", s.ckpt_dir + "/" + kJobId}),
                   s.tmp.Sub("engine2.log"), s.state);
  ASSERT_GT(again.port(), 0) << ReadFile(s.tmp.Sub("engine2.log"));
  auto c = again.Client();
  json cps = Checkpoints(*c);
  ASSERT_TRUE(cps.is_object());
  EXPECT_EQ(cps["counts"]["restored"], 1);
  EXPECT_EQ(cps["latest"]["restored"]["id"], retained.rbegin()->first);
  std::map<int64_t, uint64_t> shown;
  for (const json& h : cps["history"]) {
    if (retained.count(h["id"].get<int64_t>()) != 0 && h["status"] == "COMPLETED") {
      shown[h["id"].get<int64_t>()] = h["state_size"].get<uint64_t>();
    }
  }
  EXPECT_EQ(shown, retained) << cps.dump(1);
  EXPECT_EQ(cps["summary"]["state_size"]["max"].get<uint64_t>() > 0, true);
  again.Kill();
}

// The paths Flink's dashboard polls while a job runs, every one of them (job, vertex, checkpoint,
// task manager, job manager, Prometheus), in turns.
std::vector<std::string> DashboardPaths(httplib::Client& c) {
  const std::string job = std::string("/jobs/") + kJobId;
  std::vector<std::string> paths = {"/config", "/overview", "/jobs/overview", job,
                                    job + "/plan", job + "/config", job + "/exceptions",
                                    job + "/accumulators", job + "/checkpoints",
                                    job + "/checkpoints/config", "/taskmanagers",
                                    "/jobmanager/config", "/jobmanager/environment",
                                    "/jobmanager/metrics?get=Status.JVM.Memory.Heap.Used",
                                    "/jobmanager/logs", "/jobmanager/thread-dump",
                                    "/applications/overview", job + "/jobmanager/config",
                                    job + "/jobmanager/environment", "/metrics",
                                    "/jobmanager/log", "/jobmanager/stdout"};
  const json details = HttpGet(c, job).body;
  for (const json& v : details["vertices"]) {
    const std::string vp = job + "/vertices/" + v["id"].get<std::string>();
    for (const char* tab : {"", "/taskmanagers", "/metrics", "/subtasks/metrics", "/watermarks",
                            "/backpressure", "/accumulators", "/subtasks/accumulators",
                            "/flamegraph", "/subtasktimes", "/subtasks/0"}) {
      paths.push_back(vp + tab);
    }
  }
  const json tms = HttpGet(c, "/taskmanagers").body;
  for (const json& tm : tms["taskmanagers"]) {
    const std::string tp = "/taskmanagers/" + tm["id"].get<std::string>();
    for (const char* tab : {"", "/metrics", "/logs", "/thread-dump", "/log", "/stdout"}) {
      paths.push_back(tp + tab);
    }
  }
  const json latest = Checkpoints(c)["latest"]["completed"];
  const std::string cp = job + "/checkpoints/details/" + std::to_string(latest["id"].get<int64_t>());
  paths.push_back(cp);
  for (const json& v : details["vertices"]) paths.push_back(cp + "/subtasks/" + v["id"].get<std::string>());
  return paths;
}

TEST(RestApiITCase, TenThousandDashboardGetsFromEightClientsWhileCheckpointingEvery100Ms) {
  ASSERT_ENGINE_BUILT();
  EngineRun s;
  ASSERT_EQ(s.interval_ms, 100);
  RestEngine engine(s.Args(), s.log, s.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
  auto c = engine.Client();
  ASSERT_TRUE(WaitCompleted(*c, 1));
  const int before = Checkpoints(*c)["counts"]["completed"];
  const std::vector<std::string> paths = DashboardPaths(*c);
  ASSERT_GT(paths.size(), 50u);
  constexpr int kClients = 8, kPerClient = 1250;
  std::atomic<int> ok{0};
  std::mutex mu;
  std::map<std::string, int> bad;  // path -> failed answers
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      auto client = engine.Client();
      client->set_keep_alive(true);
      for (int n = 0; n < kPerClient; ++n) {
        const std::string& path = paths[(static_cast<size_t>(i) * kPerClient + n) % paths.size()];
        auto r = client->Get(path.c_str());
        // The Prometheus exposition and the log files are text; everything else is JSON.
        const bool prometheus = path == "/metrics";
        const bool log = path.size() > 4 && (path.ends_with("/log") || path.ends_with("/stdout"));
        const bool good = r && r->status == 200 &&
                          (prometheus ? r->body.find("# TYPE") != std::string::npos
                           : log      ? true
                                      : !json::parse(r->body, nullptr, false).is_discarded());
        if (good) {
          ++ok;
        } else {
          std::lock_guard<std::mutex> lock(mu);
          ++bad[path + " -> " + (r ? std::to_string(r->status) : std::string("no answer"))];
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok.load(), kClients * kPerClient);
  EXPECT_TRUE(bad.empty()) << json(bad).dump(1);
  ASSERT_TRUE(WaitCompleted(*c, before + 1));
  json cps = Checkpoints(*c);
  EXPECT_EQ(cps["counts"]["failed"], 0) << cps["latest"]["failed"].dump();
  std::cout << "[ load ] " << ok.load() << " GETs over " << paths.size()
            << " dashboard paths answered; checkpoints completed during the run: "
            << cps["counts"]["completed"].get<int>() - before << "\n";
}

// --rest-keep-alive: the finished job stays viewable (state, end time, subtasks, checkpoints)
// until SIGTERM, which ends the engine with the job's exit code.
TEST(RestApiITCase, KeepAliveServesTheFinishedJobUntilSigterm) {
  ASSERT_ENGINE_BUILT();
  EngineRun s(/*rate=*/1000000, /*to=*/20000, /*interval_ms=*/50);
  RestEngine engine(s.Args({"--rest-keep-alive"}), s.log, s.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
  auto c = engine.Client();
  const std::string job = std::string("/jobs/") + kJobId;
  ASSERT_TRUE(testing::WaitUntil([&] { return HttpGet(*c, job).body["state"] == "FINISHED"; }))
      << ReadFile(s.log);
  // The ended job is still served (without the flag the engine exits as soon as no operation
  // result waits to be fetched).
  const json details = HttpGet(*c, job).body;
  const int64_t end = details["end-time"];
  EXPECT_GT(end, details["start-time"].get<int64_t>());
  const std::string vid = details["vertices"][0]["id"];
  const json vertex = HttpGet(*c, job + "/vertices/" + vid).body;
  EXPECT_EQ(vertex["subtasks"][0]["status"], "FINISHED");
  EXPECT_EQ(vertex["subtasks"][0]["end-time"], end);
  EXPECT_GE(Checkpoints(*c)["counts"]["completed"].get<int>(), 1);
  // The engine says so once the job's end reached its endpoint.
  EXPECT_TRUE(testing::WaitUntil([&] {
    return ReadFile(s.log).find("stays up (--rest-keep-alive)") != std::string::npos;
  })) << ReadFile(s.log);
  EXPECT_EQ(HttpGet(*c, job).body["state"], "FINISHED");
  ASSERT_EQ(kill(engine.pid(), SIGTERM), 0);
  EXPECT_EQ(engine.Wait(), 0) << ReadFile(s.log);
}

}  // namespace
}  // namespace ckpt::itcase
