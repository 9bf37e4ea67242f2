// The running engine's state file (address for the client verbs).
#include "engine_state_file.h"

#include <unistd.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"

namespace ckpt::engine::cli {

std::string EngineStateFilePath() {
  if (const char* f = std::getenv("CKPT_ENGINE_STATE_FILE"); f != nullptr && *f != '\0') return f;
  if (const char* d = std::getenv("XDG_RUNTIME_DIR"); d != nullptr && *d != '\0') {
    return std::string(d) + "/ckpt-engine/rest.json";
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return std::string(h) + "/.ckpt-engine/rest.json";
  }
  return "";
}

base::Status WriteEngineState(const EngineStateRecord& r) {
  const std::string path = EngineStateFilePath();
  if (path.empty()) return base::Status::NotFound("no location for the engine state file");
  base::Fs& fs = base::Fs::Default();
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(base::DirName(path)));
  const nlohmann::json j = {{"address", r.address}, {"job_id", r.job_id}, {"pid", r.pid}, {"argv", r.argv}};
  return fs.PublishAtomic(path, j.dump(2) + "\n");
}

base::Result<EngineStateRecord> ReadEngineState() {
  const std::string path = EngineStateFilePath();
  base::Fs& fs = base::Fs::Default();
  if (path.empty() || !fs.Stat(path).ok()) {
    return base::Status::NotFound("no running engine found" +
                                  (path.empty() ? std::string() : " (no " + path + ")") +
                                  ": start one with 'ckpt-engine run JOB --rest-port 0' or pass "
                                  "--address http://HOST:PORT");
  }
  CKPT_ASSIGN_OR_RETURN(std::string text, base::ReadFileToString(fs, path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("address") ||
      !j["address"].is_string()) {
    return base::Status::Corruption(path + ": not an engine state file (expected JSON with "
                                    "\"address\")");
  }
  EngineStateRecord r;
  r.address = j["address"].get<std::string>();
  if (j.contains("job_id") && j["job_id"].is_string()) r.job_id = j["job_id"].get<std::string>();
  if (j.contains("pid") && j["pid"].is_number_integer()) r.pid = j["pid"].get<long>();
  if (j.contains("argv") && j["argv"].is_array()) {
    for (const auto& w : j["argv"]) {
      if (w.is_string()) r.argv.push_back(w.get<std::string>());
    }
  }
  return r;
}

void RemoveEngineStateIfOurs() {
  base::Result<EngineStateRecord> r = ReadEngineState();
  if (r.ok() && r->pid == static_cast<long>(getpid())) {
    base::Fs::Default().RemoveFile(EngineStateFilePath()).IgnoreError();
  }
}

}  // namespace ckpt::engine::cli
