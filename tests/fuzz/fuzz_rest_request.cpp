// libFuzzer target for the REST endpoint: the input is the raw bytes a client sends on one
// connection, served through the engine's whole request path (RestServer::ServeBytes: the
// connection limits, cpp-httplib's request parsing, the routes, request validation and
// Flink's error bodies) against a real JobRunner whose small job has finished. Checks: nothing
// throws or aborts; every answer is an HTTP/1.1 status line below 500 with a JSON body that
// parses; the request parsers of
// engine/src/rest/rest_requests.h, run on the input as a body, refuse with Flink's message or
// round-trip what they accept.
//
// The engine's filesystem is a sandbox below a fresh temporary directory: savepoint targets and
// disposal paths the fuzzer invents are created and looked up there, never on the machine.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/rest/rest_server.h"
#include "ckpt/format/job_spec.h"
#include "rest/rest_requests.h"

namespace {

using namespace ckpt;                // NOLINT: a fuzz driver
using namespace ckpt::engine::rest;  // NOLINT
using nlohmann::json;

// Every path is taken below `root_`, lexically normalised first so that ".." cannot leave it.
class SandboxFs final : public base::Fs {
 public:
  explicit SandboxFs(std::string root) : root_(std::move(root)) {}

  base::Result<std::unique_ptr<base::RandomAccessFile>> OpenRead(const std::string& p) override {
    return fs_.OpenRead(In(p));
  }
  base::Result<std::unique_ptr<base::WritableFile>> OpenWrite(const std::string& p) override {
    return fs_.OpenWrite(In(p));
  }
  base::Result<std::unique_ptr<base::WritableFile>> OpenWriteExclusive(
      const std::string& p) override {
    return fs_.OpenWriteExclusive(In(p));
  }
  base::Status Rename(const std::string& from, const std::string& to) override {
    return fs_.Rename(In(from), In(to));
  }
  base::Status HardLink(const std::string& existing, const std::string& link) override {
    return fs_.HardLink(In(existing), In(link));
  }
  base::Status SyncDir(const std::string& d) override { return fs_.SyncDir(In(d)); }
  base::Status CreateDirs(const std::string& d) override { return fs_.CreateDirs(In(d)); }
  base::Status RemoveFile(const std::string& p) override { return fs_.RemoveFile(In(p)); }
  base::Status RemoveDir(const std::string& p) override { return fs_.RemoveDir(In(p)); }
  base::Result<std::vector<base::DirEntry>> ListDir(const std::string& d) override {
    return fs_.ListDir(In(d));
  }
  base::Result<base::FileInfo> Stat(const std::string& p) override { return fs_.Stat(In(p)); }
  base::Result<base::FileInfo> LinkStat(const std::string& p) override {
    return fs_.LinkStat(In(p));
  }
  base::Result<std::unique_ptr<base::FileLock>> TryLockFile(const std::string& p) override {
    return fs_.TryLockFile(In(p));
  }
  bool SupportsLocks() const override { return fs_.SupportsLocks(); }

 private:
  std::string In(const std::string& p) const {
    std::string clean = std::filesystem::path("/" + p).lexically_normal().string();
    return root_ + clean;
  }

  base::Fs& fs_ = base::Fs::Default();
  const std::string root_;
};

struct Engine {
  std::string root;
  std::unique_ptr<SandboxFs> fs;
  std::unique_ptr<engine::JobRunner> job;
  std::unique_ptr<engine::RestServer> server;
};

Engine* StartEngine() {
  auto e = new Engine();
  char tmpl[] = "/tmp/fuzz_rest_request-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  e->root = tmpl;
  static std::string root_to_remove = e->root;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(root_to_remove, ec);
  });
  e->fs = std::make_unique<SandboxFs>(e->root);
  const char* spec_json =
      R"({"name": "fuzz", "job_id": "0123456789abcdef0123456789abcdef",
          "operators": [
            {"id": "source", "kind": "sequence-source", "uid": "source",
             "params": {"from": 1, "to": 100, "splits": 2, "keys": 4}},
            {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {}},
            {"id": "sink", "kind": "discard", "uid": "sink", "params": {}}],
          "edges": [{"from": "source", "to": "sum", "partitioning": "HASH"},
                    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]})";
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(spec_json, "fuzz.json");
  if (!spec.ok()) std::abort();
  engine::JobRunnerOptions options;
  options.fs = e->fs.get();
  options.checkpoint_dir = "/ckpt";
  options.savepoint_dir = "/savepoints";
  base::Result<std::unique_ptr<engine::JobRunner>> job =
      engine::JobRunner::Create(*spec, std::move(options));
  if (!job.ok() || !(*job)->Start().ok()) std::abort();
  e->job = std::move(*job);
  e->job->Wait();
  engine::RestServerOptions rest;
  rest.fs = e->fs.get();
  base::Result<std::unique_ptr<engine::RestServer>> server =
      engine::RestServer::Start(*e->job, rest);
  if (!server.ok()) std::abort();
  e->server = std::move(*server);
  return e;
}

// Each HTTP response in `out`: an HTTP/1.1 status line below 500 and a JSON body (none for
// "100 Continue" and for an answer to HEAD).
void CheckResponses(std::string_view out) {
  while (!out.empty()) {
    if (out.rfind("HTTP/1.1 ", 0) != 0 || out.size() < 12) std::abort();
    const int status = std::atoi(std::string(out.substr(9, 3)).c_str());
    if (status < 100 || status >= 500) std::abort();
    const size_t head_end = out.find("\r\n\r\n");
    if (head_end == std::string_view::npos) std::abort();
    const std::string_view head = out.substr(0, head_end);
    out.remove_prefix(head_end + 4);
    const size_t cl = head.find("Content-Length: ");
    if (status == 100 || cl == std::string_view::npos) continue;
    const size_t length =
        std::strtoull(std::string(head.substr(cl + 16, 20)).c_str(), nullptr, 10);
    if (out.empty() || out.rfind("HTTP/1.1 ", 0) == 0) continue;  // HEAD: no body follows
    if (out.size() < length || !json::accept(out.substr(0, length))) std::abort();
    out.remove_prefix(length);
  }
}

void CheckRefusal(const base::Status& st, std::string_view type) {
  if (st.code() != base::StatusCode::kInvalidArgument) std::abort();
  if (st.message().find("Request did not match expected format " + std::string(type)) != 0) {
    std::abort();
  }
}

const char* FormatName(pb::SavepointFormat f) { return f == pb::NATIVE ? "NATIVE" : "CANONICAL"; }

void Parsers(std::string_view in) {
  if (auto r = ParseCheckpointTriggerRequest(in); !r.ok()) {
    CheckRefusal(r.status(), "CheckpointTriggerRequestBody");
  } else {
    const char* names[] = {"CONFIGURED", "FULL", "INCREMENTAL"};
    json j = {{"checkpointType", names[static_cast<int>(r->type)]}, {"triggerId", r->trigger_id}};
    auto again = ParseCheckpointTriggerRequest(j.dump());
    if (!again.ok() || again->type != r->type || again->trigger_id != r->trigger_id) std::abort();
  }
  if (auto r = ParseSavepointTriggerRequest(in); !r.ok()) {
    CheckRefusal(r.status(), "SavepointTriggerRequestBody");
  } else {
    json j = {{"target-directory", r->target_directory}, {"triggerId", r->trigger_id},
              {"cancel-job", r->cancel_job}, {"formatType", FormatName(r->format)}};
    auto again = ParseSavepointTriggerRequest(j.dump());
    if (!again.ok() || again->target_directory != r->target_directory ||
        again->trigger_id != r->trigger_id || again->cancel_job != r->cancel_job ||
        again->format != r->format) {
      std::abort();
    }
  }
  if (auto r = ParseStopRequest(in); !r.ok()) {
    CheckRefusal(r.status(), "StopWithSavepointRequestBody");
  } else {
    json j = {{"targetDirectory", r->target_directory}, {"triggerId", r->trigger_id},
              {"drain", r->drain}, {"formatType", FormatName(r->format)}};
    auto again = ParseStopRequest(j.dump());
    if (!again.ok() || again->target_directory != r->target_directory ||
        again->trigger_id != r->trigger_id || again->drain != r->drain ||
        again->format != r->format) {
      std::abort();
    }
  }
  if (auto r = ParseDisposalRequest(in); !r.ok()) {
    CheckRefusal(r.status(), "SavepointDisposalRequest");
  } else {
    if (r->path.empty()) std::abort();
    // An absolute path printed back as a file: URI comes back as it was (a path starting
    // "file:" is not stripped twice).
    if (r->path.front() == '/' && r->path.find('\0') == std::string::npos) {
      json j = {{"savepoint-path", "file://" + r->path}, {"triggerId", r->trigger_id}};
      auto again = ParseDisposalRequest(j.dump());
      if (!again.ok() || again->path != r->path || again->trigger_id != r->trigger_id) std::abort();
    }
  }
  // An accepted savepoint target is absolute, normalised, not "/", and accepted again as is.
  if (auto t = CheckSavepointTarget(in); t.ok()) {
    const std::string& d = *t;
    if (d.empty() || d[0] != '/' || d == "/" || d.back() == '/' ||
        d.find('\0') != std::string::npos || d.find("//") != std::string::npos ||
        d.find("/./") != std::string::npos || d.find("/../") != std::string::npos) {
      std::abort();
    }
    auto again = CheckSavepointTarget(d);
    if (!again.ok() || *again != d) std::abort();
  } else if (t.status().code() != base::StatusCode::kInvalidArgument) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Engine* engine = StartEngine();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  CheckResponses(engine->server->ServeBytes(in));
  Parsers(in);
  return 0;
}
