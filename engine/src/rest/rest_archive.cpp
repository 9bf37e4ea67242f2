// Job archives in Flink's HistoryServer layout, and the JobArchiver of `run --archive-dir`.
#include "ckpt/engine/rest/rest_archive.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "rest/rest_json.h"
#include "rest/rest_json_subtask.h"

namespace ckpt::engine {

using nlohmann::json;

namespace {

// As the live endpoint serializes its answers (rest_server.cpp's Reply): invalid UTF-8 becomes
// U+FFFD.
std::string Dumped(const json& body) {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

int64_t ArchiveNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// An existing archive larger than this is not read (and not replaced).
constexpr uint64_t kMaxLeftoverBytes = uint64_t{64} << 20;

// Flink's default maxExceptions of /jobs/:jid/exceptions.
constexpr size_t kArchivedExceptions = 20;

// "a,b,c": the ids of a metrics list answer ([{"id": "a"}, ...]).
std::string IdsOf(const json& list) {
  std::string out;
  for (const json& m : list) out += (out.empty() ? "" : ",") + m["id"].get<std::string>();
  return out;
}

}  // namespace

std::vector<ArchivedJson> ArchiveOfJob(const JobRunner& job, const ArchiveEndpoint& endpoint,
                                       int64_t now_ms) {
  const rest::Endpoint ep{endpoint.address, endpoint.port, endpoint.start_ms};
  const std::string jid = "/jobs/" + job.job_id_hex();
  std::vector<ArchivedJson> out;
  auto add = [&out](std::string path, const json& body) {
    out.push_back({std::move(path), Dumped(body)});
  };
  add("/jobs/overview", rest::JobsOverviewJson(job, endpoint.start_ms, now_ms));
  add(jid, rest::JobDetailsJson(job, endpoint.start_ms, now_ms));
  add(jid + "/config", rest::JobConfigJson(job));
  add(jid + "/exceptions", rest::JobExceptionsJson(job, kArchivedExceptions));
  add(jid + "/accumulators", rest::JobAccumulatorsJson());
  add(jid + "/plan", rest::PlanJson(job));
  add(jid + "/jobmanager/config", rest::JobManagerConfigJson(job, ep));
  add(jid + "/jobmanager/environment", rest::JobManagerEnvironmentJson());
  const uint32_t attempt = job.timeline().attempt;
  const std::vector<rest::Vertex> vertices = rest::Vertices(job.job_graph());
  for (const rest::Vertex& v : vertices) {
    const std::string vp = jid + "/vertices/" + v.id;
    add(vp, rest::VertexDetailsJson(job, v, ep, now_ms));
    add(vp + "/taskmanagers", rest::VertexTaskManagersJson(job, v, ep, now_ms));
    add(vp + "/accumulators", rest::VertexAccumulatorsJson(v));
    add(vp + "/subtasks/accumulators", rest::SubtasksAccumulatorsJson(v, ep, attempt));
    add(vp + "/subtasktimes", rest::SubtasksTimesJson(job, v, ep, now_ms));
    // Flink archives no metrics; these are the values when the archive was written, every
    // metric with its value, which the history server filters by `get` and `agg`.
    add(vp + "/metrics",
        rest::VertexMetricsJson(job, v, IdsOf(rest::VertexMetricsJson(job, v, ""))));
    add(vp + "/subtasks/metrics",
        rest::AggregatedSubtaskMetricsJson(
            job, v, IdsOf(rest::AggregatedSubtaskMetricsJson(job, v, "", "")), ""));
    add(vp + "/watermarks", rest::VertexWatermarksJson(job, v));
    for (uint32_t i = 0; i < v.parallelism; ++i) {
      std::optional<json> s = rest::SubtaskAttemptJson(job, v, ep, now_ms, i);
      if (!s) continue;
      const std::string sp = vp + "/subtasks/" + std::to_string(i);
      add(sp, *s);
      add(sp + "/attempts/" + std::to_string(attempt), *s);
    }
  }
  const CheckpointStatsSnapshot stats = job.checkpoint_stats();
  add(jid + "/checkpoints", rest::CheckpointingStatisticsJson(job, stats));
  add(jid + "/checkpoints/config", rest::CheckpointConfigJson(job));
  // The history, and the latest ones that left it (the live endpoint answers those too).
  std::vector<const CheckpointStatsEntry*> entries;
  for (const CheckpointStatsEntry& e : stats.history) entries.push_back(&e);
  for (const auto* latest : {&stats.latest_completed, &stats.latest_savepoint,
                             &stats.latest_failed}) {
    if (latest->has_value()) entries.push_back(&**latest);
  }
  std::set<int64_t> done;
  for (const CheckpointStatsEntry* e : entries) {
    if (!done.insert(e->checkpoint_id).second) continue;
    const std::string cp = jid + "/checkpoints/details/" + std::to_string(e->checkpoint_id);
    add(cp, rest::CheckpointDetailsJson(job, *e));
    for (const rest::Vertex& v : vertices) {
      if (std::optional<json> s = rest::SubtaskDetailsJson(job, *e, v.id)) {
        add(cp + "/subtasks/" + v.id, *s);
      }
    }
  }
  return out;
}

std::string EncodeJobArchive(const std::vector<ArchivedJson>& entries) {
  json archive = json::array();
  for (const ArchivedJson& e : entries) archive.push_back({{"path", e.path}, {"json", e.json}});
  return Dumped(json{{"archive", archive}});
}

base::Result<std::vector<ArchivedJson>> DecodeJobArchive(std::string_view text,
                                                         const std::string& file) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return base::Status::Corruption("job archive " + file +
                                    ": not JSON (truncated or not an archive)");
  }
  if (!doc.is_object() || !doc.contains("archive") || !doc["archive"].is_array()) {
    return base::Status::Corruption("job archive " + file + ": no \"archive\" array");
  }
  std::vector<ArchivedJson> out;
  size_t index = 0;
  for (const json& e : doc["archive"]) {
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string() || !e.contains("json") ||
        !e["json"].is_string()) {
      return base::Status::Corruption("job archive " + file + ": entry " +
                                      std::to_string(index) +
                                      " lacks a string \"path\" or \"json\"");
    }
    out.push_back({e["path"].get<std::string>(), e["json"].get<std::string>()});
    ++index;
  }
  return out;
}

class JobArchiver::Impl {
 public:
  Impl(const JobRunner& job, JobArchiverOptions options)
      : job_(job), options_(std::move(options)) {
    fs_ = options_.fs != nullptr ? options_.fs : &base::Fs::Default();
    path_ = base::JoinPath(options_.dir, job_.job_id_hex());
  }

  base::Status Begin() {
    if (fs_->Stat(path_).ok()) CKPT_RETURN_IF_ERROR(CheckLeftover());
    CKPT_RETURN_IF_ERROR(fs_->CreateDirs(options_.dir).WithContext("--archive-dir"));
    if (options_.endpoint.start_ms == 0) options_.endpoint.start_ms = ArchiveNowMs();
    last_completed_ = job_.checkpoint_counts().completed;
    thread_ = std::thread([this] { Watch(); });
    return base::Status::OK();
  }

  // An archive of this job id exists: replaced only when it is what a run of this job that did
  // not end leaves (its last checkpoint's, the job still running in it), as when a crashed job
  // is resumed with --from-latest. An ended run's archive, or a file that is no archive, stays.
  base::Status CheckLeftover() {
    const std::string refusal = "--archive-dir: " + path_ + " exists";
    const std::string hint = "; move it away or archive into another directory";
    base::Result<std::string> text = base::ReadFileToString(*fs_, path_, kMaxLeftoverBytes);
    base::Result<std::vector<ArchivedJson>> entries =
        text.ok() ? DecodeJobArchive(*text, path_) : text.status();
    if (!entries.ok()) {
      return base::Status::AlreadyExists(refusal + " and is not a readable job archive (" +
                                         entries.status().ToString() + ")" + hint);
    }
    std::string state;
    for (const ArchivedJson& e : *entries) {
      if (e.path != "/jobs/overview") continue;
      const json overview = json::parse(e.json, nullptr, /*allow_exceptions=*/false);
      if (overview.is_object() && overview.contains("jobs") && overview["jobs"].is_array() &&
          !overview["jobs"].empty() && overview["jobs"][0].is_object() &&
          overview["jobs"][0].contains("state") && overview["jobs"][0]["state"].is_string()) {
        state = overview["jobs"][0]["state"].get<std::string>();
      }
    }
    if (state == "FINISHED" || state == "CANCELED" || state == "FAILED" || state.empty()) {
      return base::Status::AlreadyExists(
          refusal + " (the archive of an earlier run of job " + job_.job_id_hex() +
          (state.empty() ? "" : ", which ended " + state) + ")" + hint);
    }
    if (options_.log) {
      options_.log("--archive-dir: replacing " + path_ + ", left by a run of job " +
                   job_.job_id_hex() + " that did not end (" + state + " at its last checkpoint)");
    }
    return base::Status::OK();
  }

  // Rewrites the archive whenever the count of completed checkpoints moved on, off the task
  // threads.
  void Watch() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms), [this] { return stop_; });
      if (stop_) break;
      lock.unlock();
      const uint64_t completed = job_.checkpoint_counts().completed;
      if (completed != last_completed_) {
        last_completed_ = completed;
        if (base::Status st = Write(); !st.ok() && options_.log) {
          options_.log("Cannot archive job " + job_.job_id_hex() + " after " +
                       std::to_string(completed) + " completed checkpoints: " + st.ToString());
        }
      }
      lock.lock();
    }
  }

  void StopWatching() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  base::Status Write() {
    ArchiveEndpoint endpoint;
    {
      std::lock_guard<std::mutex> lock(mu_);
      endpoint = options_.endpoint;
    }
    const std::string text = EncodeJobArchive(ArchiveOfJob(job_, endpoint, ArchiveNowMs()));
    CKPT_RETURN_IF_ERROR(base::WriteFileAtomic(*fs_, path_, text).WithContext("archive " + path_));
    writes_.fetch_add(1);
    return base::Status::OK();
  }

  const JobRunner& job_;
  JobArchiverOptions options_;
  base::Fs* fs_ = nullptr;
  std::string path_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  uint64_t last_completed_ = 0;
  std::atomic<uint64_t> writes_{0};
  std::thread thread_;
};

base::Result<std::unique_ptr<JobArchiver>> JobArchiver::Start(const JobRunner& job,
                                                              JobArchiverOptions options) {
  if (options.dir.empty()) return base::Status::InvalidArgument("--archive-dir: empty path");
  auto impl = std::make_unique<Impl>(job, std::move(options));
  CKPT_RETURN_IF_ERROR(impl->Begin());
  return std::unique_ptr<JobArchiver>(new JobArchiver(std::move(impl)));
}

JobArchiver::JobArchiver(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JobArchiver::~JobArchiver() { impl_->StopWatching(); }

base::Result<std::string> JobArchiver::Finish() {
  impl_->StopWatching();
  CKPT_RETURN_IF_ERROR(impl_->Write());
  return impl_->path_;
}

void JobArchiver::SetEndpoint(const ArchiveEndpoint& endpoint) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  const int64_t start_ms = impl_->options_.endpoint.start_ms;
  impl_->options_.endpoint = endpoint;
  if (endpoint.start_ms == 0) impl_->options_.endpoint.start_ms = start_ms;
}

const std::string& JobArchiver::path() const { return impl_->path_; }
uint64_t JobArchiver::writes() const { return impl_->writes_.load(); }

}  // namespace ckpt::engine
