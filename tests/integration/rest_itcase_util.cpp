// RestEngine: a ckpt-engine subprocess with its REST endpoint.
#include "rest_itcase_util.h"

#include <signal.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/wait_until.h"

#include <gtest/gtest.h>

namespace ckpt::itcase {

RestEngine::RestEngine(const std::vector<std::string>& args, const std::string& log,
                       const std::string& state_file) {
  std::vector<std::string> full = {CKPT_ENGINE_BINARY, "run"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--rest-port");
  full.push_back("0");
  setenv("CKPT_ENGINE_STATE_FILE", state_file.c_str(), 1);
  pid_ = Spawn(full, log);
  const std::regex re("REST endpoint: (http://127\\.0\\.0\\.1:([0-9]+))");
  testing::WaitUntil([&] {
    std::smatch m;
    const std::string text = ReadFile(log);
    if (std::regex_search(text, m, re)) {
      url_ = m[1];
      port_ = std::stoi(m[2]);
      return true;
    }
    int status = 0;
    return waitpid(pid_, &status, WNOHANG) == pid_ && (exited_ = true);
  });
}

RestEngine::~RestEngine() { Kill(); }

void RestEngine::Kill() {
  if (exited_ || pid_ <= 0) return;
  kill(pid_, SIGKILL);
  WaitExit(pid_);
  exited_ = true;
}

int RestEngine::Wait() {
  if (exited_) return -1;
  exited_ = true;
  return WaitExit(pid_);
}

std::unique_ptr<httplib::Client> RestEngine::Client() const {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
  c->set_read_timeout(30, 0);
  return c;
}

namespace {
HttpAnswer Answer(const httplib::Result& r) {
  HttpAnswer a;
  if (!r) return a;
  a.status = r->status;
  a.body = nlohmann::json::parse(r->body, nullptr, false);
  return a;
}
}  // namespace

HttpAnswer HttpGet(httplib::Client& c, const std::string& path) { return Answer(c.Get(path.c_str())); }

HttpAnswer HttpPost(httplib::Client& c, const std::string& path, const std::string& body) {
  return Answer(c.Post(path.c_str(), body, "application/json"));
}

nlohmann::json AwaitOperation(httplib::Client& c, const std::string& status_path) {
  nlohmann::json op;
  testing::WaitUntil(
      [&] {
        HttpAnswer a = HttpGet(c, status_path);
        if (a.status != 200 || !a.body.is_object()) return false;
        if (a.body["status"]["id"] != "COMPLETED") return false;
        op = a.body["operation"];
        return true;
      },
      std::chrono::milliseconds(60000), std::chrono::milliseconds(20));
  return op;
}

nlohmann::json CheckpointsOf(httplib::Client& c, const std::string& job_id) {
  return HttpGet(c, "/jobs/" + job_id + "/checkpoints").body;
}

bool WaitCompleted(httplib::Client& c, const std::string& job_id, int n) {
  return testing::WaitUntil(
      [&] {
        nlohmann::json j = CheckpointsOf(c, job_id);
        return j.is_object() && j["counts"]["completed"].get<int>() >= n;
      },
      std::chrono::milliseconds(60000), std::chrono::milliseconds(20));
}

pb::CheckpointMetadata ReadMd(const std::string& dir) {
  base::Result<pb::CheckpointMetadata> md =
      format::ReadMetadataFile(base::Fs::Default(), dir + "/_metadata");
  EXPECT_TRUE(md.ok()) << dir << ": " << md.status().ToString();
  return md.ok() ? *md : pb::CheckpointMetadata();
}

EngineRun::EngineRun(double rate, int64_t to, int interval) : interval_ms(interval) {
  KeyedSumJob job;
  job.job_id = kJobId;
  job.to = to;
  job.rate_per_second = rate;
  job.sink_dir = tmp.Sub("out");
  job_file = tmp.Sub("job.json");
  std::ofstream(job_file) << KeyedSumJobJson(job);
  ckpt_dir = tmp.Sub("ckpt");
  log = tmp.Sub("engine.log");
  state = tmp.Sub("state.json");
}

std::vector<std::string> EngineRun::Args(std::vector<std::string> extra) const {
  std::vector<std::string> a = {job_file, "--checkpoint-dir", ckpt_dir, "--interval",
                                std::to_string(interval_ms)};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string RawExchange(int port, const std::string& request) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "";
  std::string got;
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) >= 0) {
    timeval tv{60, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[4096];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return got;
}

}  // namespace ckpt::itcase
