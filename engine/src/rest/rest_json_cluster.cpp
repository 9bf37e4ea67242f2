// The job's configuration and exceptions, and the cluster views (task managers, job manager
// configuration, environment, metrics and logs) of the REST API in Flink's shapes. The engine
// process is the one job manager and the one task manager.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "ckpt/version.h"
#include "rest/rest_dashboard.h"
#include "rest/rest_json.h"
#include "rest/rest_process.h"

namespace ckpt::engine::rest {
namespace {

using nlohmann::json;

uint32_t TotalTasksOf(const JobRunner& job) {
  uint32_t n = 0;
  for (const Vertex& v : Vertices(job.job_graph())) n += v.parallelism;
  return n;
}

bool Running(const std::string& status) {
  return status == "RUNNING" || status == "RESTARTING" || status == "CANCELLING" ||
         status == "CREATED";
}

std::string RestartStrategy(const JobRunner& job) {
  return "Restart with fixed delay (" + std::to_string(job.restart_delay_ms()) + " ms). #" +
         std::to_string(job.max_restart_attempts()) + " restart attempts.";
}

// "Internal: task 'sum' failed: ..." -> "Internal".
std::string ExceptionName(const std::string& message) {
  const size_t colon = message.find(": ");
  return colon == std::string::npos ? message : message.substr(0, colon);
}

json ExceptionEntry(const JobFailureRecord& f) {
  return {{"exceptionName", ExceptionName(f.message)},
          {"stacktrace", f.message},
          {"timestamp", f.timestamp_ms},
          {"failureLabels", json::object()},
          {"concurrentExceptions", json::array()}};
}

// Flink's ResourceProfileInfo (MiB): the engine configures no per-slot memory.
json ResourceProfile(double cpu_cores) {
  return {{"cpuCores", cpu_cores},          {"taskHeapMemory", 0},
          {"taskOffHeapMemory", 0},         {"managedMemory", 0},
          {"networkMemory", 0},             {"extendedResources", json::object()}};
}

const char* ModeName(pb::CheckpointingMode m) {
  return m == pb::AT_LEAST_ONCE ? "AT_LEAST_ONCE" : "EXACTLY_ONCE";
}

const char* RetentionName(pb::RetentionPolicy r) {
  switch (r) {
    case pb::RETAIN_ON_CANCELLATION: return "RETAIN_ON_CANCELLATION";
    case pb::DELETE_ON_CANCELLATION: return "DELETE_ON_CANCELLATION";
    default: return "NO_EXTERNALIZED_CHECKPOINTS";
  }
}

std::string Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

json JobConfigJson(const JobRunner& job) {
  uint32_t parallelism = 0;
  for (const Vertex& v : Vertices(job.job_graph())) {
    parallelism = std::max(parallelism, v.parallelism);
  }
  return {{"jid", job.job_id_hex()},
          {"name", job.job_name()},
          {"execution-config",
           {{"execution-mode", "PIPELINED"},
            {"restart-strategy", RestartStrategy(job)},
            {"job-parallelism", parallelism},
            {"object-reuse-mode", false},
            {"user-config", json::object()}}}};
}

json JobExceptionsJson(const JobRunner& job, size_t max_exceptions) {
  const JobTimeline t = job.timeline();
  json entries = json::array();
  for (auto it = t.failures.rbegin(); it != t.failures.rend() && entries.size() < max_exceptions;
       ++it) {
    entries.push_back(ExceptionEntry(*it));
  }
  const bool truncated = t.failures_dropped > 0 || t.failures.size() > max_exceptions;
  json j = {{"root-exception", nullptr},
            {"timestamp", nullptr},
            {"all-exceptions", json::array()},
            {"truncated", truncated},
            {"exceptionHistory", {{"entries", entries}, {"truncated", truncated}}}};
  if (!t.failures.empty()) {
    j["root-exception"] = t.failures.back().message;
    j["timestamp"] = t.failures.back().timestamp_ms;
  }
  return j;
}

json JobAccumulatorsJson() {
  return {{"job-accumulators", json::array()},
          {"user-task-accumulators", json::array()},
          {"serialized-user-task-accumulators", json::object()}};
}

json TaskManagersJson(const JobRunner& job, const Endpoint& ep, int64_t now_ms) {
  const ProcessInfo p = ReadProcessInfo();
  const uint32_t slots = TotalTasksOf(job);
  const uint32_t free = Running(job.status_name()) ? 0 : slots;
  json tm = {{"id", TaskManagerId()},
             {"path", "ckpt-engine://" + ep.address + ":" + std::to_string(ep.port) +
                          "/taskmanager"},
             {"dataPort", -1},
             {"jmxPort", -1},
             // Flink's field holds the time of the last heartbeat; the engine process is its
             // own task manager, alive as long as it answers.
             {"timeSinceLastHeartbeat", now_ms},
             {"slotsNumber", slots},
             {"freeSlots", free},
             {"assignedTasks", slots - free},
             {"totalResource", ResourceProfile(p.cpu_cores)},
             {"freeResource", ResourceProfile(free == slots ? p.cpu_cores : 0)},
             {"hardware",
              {{"cpuCores", p.cpu_cores},
               {"physicalMemory", p.physical_memory_bytes},
               {"freeMemory", p.available_memory_bytes},
               {"managedMemory", 0}}},
             {"memoryConfiguration",
              {{"frameworkHeap", 0},  {"taskHeap", 0},        {"frameworkOffHeap", 0},
               {"taskOffHeap", 0},    {"networkMemory", 0},   {"managedMemory", 0},
               {"jvmMetaspace", 0},   {"jvmOverhead", 0},     {"totalFlinkMemory", 0},
               {"totalProcessMemory", 0}}}};
  return {{"taskmanagers", json::array({tm})}};
}

json TaskManagerDetailsJson(const JobRunner& job, const Endpoint& ep, int64_t now_ms) {
  json tm = TaskManagersJson(job, ep, now_ms)["taskmanagers"][0];
  const ProcessInfo p = ReadProcessInfo();
  tm["metrics"] = {{"heapUsed", p.heap_used_bytes},
                   {"heapCommitted", p.heap_committed_bytes},
                   {"heapMax", p.physical_memory_bytes},
                   {"nonHeapUsed", 0},
                   {"nonHeapCommitted", 0},
                   {"nonHeapMax", 0},
                   {"directCount", 0},
                   {"directUsed", 0},
                   {"directMax", 0},
                   {"mappedCount", 0},
                   {"mappedUsed", 0},
                   {"mappedMax", 0},
                   {"memorySegmentsAvailable", 0},
                   {"memorySegmentsTotal", 0},
                   {"nettyShuffleMemorySegmentsAvailable", 0},
                   {"nettyShuffleMemorySegmentsUsed", 0},
                   {"nettyShuffleMemorySegmentsTotal", 0},
                   {"nettyShuffleMemoryAvailable", 0},
                   {"nettyShuffleMemoryUsed", 0},
                   {"nettyShuffleMemoryTotal", 0},
                   {"garbageCollectors", json::array()}};
  const uint32_t used = tm["assignedTasks"].get<uint32_t>();
  json slots = json::array();
  if (used > 0) {
    slots.push_back({{"jobId", job.job_id_hex()}, {"resource", ResourceProfile(p.cpu_cores)}});
  }
  tm["allocatedSlots"] = slots;
  return tm;
}

json JobManagerConfigJson(const JobRunner& job, const Endpoint& ep) {
  const CheckpointCoordinatorOptions& o = job.checkpoint_options();
  const NetworkOptions& n = job.network_options();
  std::vector<std::pair<std::string, std::string>> kv = {
      {"rest.address", ep.address},
      {"rest.port", std::to_string(ep.port)},
      {"execution.checkpointing.interval", std::to_string(o.interval_ms) + " ms"},
      {"execution.checkpointing.mode", ModeName(o.mode)},
      {"execution.checkpointing.unaligned.enabled", Bool(o.mode == pb::UNALIGNED)},
      {"execution.checkpointing.aligned-checkpoint-timeout",
       std::to_string(n.aligned_checkpoint_timeout_ms) + " ms"},
      {"execution.checkpointing.timeout", std::to_string(o.timeout_ms) + " ms"},
      {"execution.checkpointing.min-pause", std::to_string(o.min_pause_ms) + " ms"},
      {"execution.checkpointing.max-concurrent-checkpoints", std::to_string(o.max_concurrent)},
      {"execution.checkpointing.tolerable-failed-checkpoints",
       std::to_string(o.tolerable_failures)},
      {"execution.checkpointing.externalized-checkpoint-retention", RetentionName(o.retention)},
      {"state.checkpoints.num-retained", std::to_string(o.num_retained)},
      {"state.checkpoints.dir", o.checkpoint_dir},
      {"state.savepoints.dir", o.savepoint_dir},
      {"state.backend.type", job.state_backend_name() == "rocksdb" ? "rocksdb" : "hashmap"},
      {"state.backend.incremental", Bool(job.incremental_checkpoints())},
      {"state.changelog.enabled", Bool(job.changelog_enabled())},
      {"restart-strategy.type", "fixed-delay"},
      {"restart-strategy.fixed-delay.attempts", std::to_string(job.max_restart_attempts())},
      {"restart-strategy.fixed-delay.delay", std::to_string(job.restart_delay_ms()) + " ms"},
      {"taskmanager.numberOfTaskSlots", std::to_string(TotalTasksOf(job))},
      {"taskmanager.memory.segment-size", std::to_string(n.buffer_bytes) + " bytes"},
      {"taskmanager.network.memory.buffers-per-channel", std::to_string(n.buffers_per_channel)},
      {"taskmanager.network.memory.max-overdraft-buffers-per-gate",
       std::to_string(n.max_overdraft_buffers_per_gate)},
      {"taskmanager.network.memory.buffer-debloat.enabled", Bool(n.debloat_enabled)},
      {"execution.buffer-timeout", std::to_string(n.buffer_timeout_ms) + " ms"},
      {"web.checkpoints.history", std::to_string(CheckpointStatsTracker::kDefaultHistorySize)}};
  std::sort(kv.begin(), kv.end());
  json out = json::array();
  for (const auto& [k, v] : kv) out.push_back({{"key", k}, {"value", v}});
  return out;
}

json JobManagerEnvironmentJson() {
  const ProcessInfo p = ReadProcessInfo();
  std::string compiler = "unknown compiler";
#if defined(__clang__)
  compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  compiler = std::string("GCC ") + __VERSION__;
#endif
  return {{"jvm",
           {{"version", std::string("ckpt-engine ") + kVersion + " (native, " + compiler + ")"},
            {"arch", p.arch + " " + p.os},
            {"options", p.argv}}},
          {"classpath", json::array()}};
}

namespace {

// The process metrics both roles have (the engine process is the job manager and the task
// manager).
std::map<std::string, uint64_t> ProcessMetricValues() {
  const ProcessInfo p = ReadProcessInfo();
  return {{"Status.JVM.CPU.Time", p.cpu_time_ns},
          {"Status.JVM.Threads.Count", p.threads},
          {"Status.JVM.Memory.Heap.Used", p.heap_used_bytes},
          {"Status.JVM.Memory.Heap.Committed", p.heap_committed_bytes},
          {"Status.JVM.Memory.Heap.Max", p.physical_memory_bytes},
          {"Status.ProcessTree.Memory.RSS", p.rss_bytes},
          {"System.Memory.Available", p.available_memory_bytes},
          {"System.Memory.Total", p.physical_memory_bytes}};
}

// MetricCollectionResponseBody: the ids, or the values of the ids `get` names that exist.
json SelectMetrics(const std::map<std::string, uint64_t>& values, const std::string& get) {
  json out = json::array();
  if (get.empty()) {
    for (const auto& [k, v] : values) out.push_back({{"id", k}});
    return out;
  }
  std::istringstream in(get);
  std::string id;
  while (std::getline(in, id, ',')) {
    auto it = values.find(id);
    if (it != values.end()) out.push_back({{"id", id}, {"value", std::to_string(it->second)}});
  }
  return out;
}

json LogsOf(const std::string& role) {
  json logs = json::array();
  for (const char* suffix : {".log", ".out"}) {
    const std::string name = role + suffix;
    std::optional<std::string> path = RegularFileOfFd(*LogNameFd(role, name));
    if (!path) continue;
    struct stat st;
    if (stat(path->c_str(), &st) != 0) continue;
    logs.push_back({{"name", name},
                    {"size", static_cast<int64_t>(st.st_size)},
                    {"mtime", static_cast<int64_t>(st.st_mtime) * 1000}});
  }
  return {{"logs", logs}};
}

// The kernel's scheduler state letter of /proc/PID/task/TID/stat, spelled out.
const char* TaskStateName(char state) {
  switch (state) {
    case 'R': return "RUNNING";
    case 'S': return "SLEEPING";
    case 'D': return "DISK_SLEEP";
    case 'T': return "STOPPED";
    case 't': return "TRACING_STOP";
    case 'Z': return "ZOMBIE";
    case 'I': return "IDLE";
    default: return "UNKNOWN";
  }
}

}  // namespace

json JobManagerMetricsJson(const JobRunner& job, const std::string& get) {
  const std::string s = job.status_name();
  const uint32_t slots = TotalTasksOf(job);
  std::map<std::string, uint64_t> values = ProcessMetricValues();
  values.insert({{"numRegisteredTaskManagers", 1},
                 {"numRunningJobs", Running(s) ? 1 : 0},
                 {"taskSlotsTotal", slots},
                 {"taskSlotsAvailable", Running(s) ? 0 : slots}});
  return SelectMetrics(values, get);
}

json TaskManagerMetricsJson(const std::string& get) {
  return SelectMetrics(ProcessMetricValues(), get);
}

std::optional<int> LogNameFd(const std::string& role, const std::string& name) {
  if (name == role + ".log") return 2;
  if (name == role + ".out") return 1;
  return std::nullopt;
}

json TaskManagerLogsJson() { return LogsOf("taskmanager"); }

json ThreadDumpJson() {
  json infos = json::array();
  std::error_code ec;
  std::vector<std::pair<long, std::filesystem::path>> tasks;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const std::string tid = e.path().filename().string();
    if (!tid.empty() && std::all_of(tid.begin(), tid.end(), ::isdigit)) {
      tasks.emplace_back(std::stol(tid), e.path());
    }
  }
  std::sort(tasks.begin(), tasks.end());
  for (const auto& [tid, dir] : tasks) {
    std::ifstream stat_file(dir / "stat");
    std::string stat;
    std::getline(stat_file, stat);  // one line
    // "TID (COMM) STATE ...": COMM may hold spaces and parentheses; it ends at the last ')'.
    const size_t open = stat.find('(');
    const size_t close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) {
      continue;  // the thread ended between the listing and the read
    }
    const std::string name = stat.substr(open + 1, close - open - 1);
    const char* state = TaskStateName(stat[close + 2]);
    infos.push_back({{"threadName", name},
                     {"stringifiedThreadInfo", "\"" + name + "\" Id=" + std::to_string(tid) +
                                                   " " + state + "\n"}});
  }
  return {{"threadInfos", infos}};
}

json FlameGraphDisabledJson() { return {{"endTimestamp", -2}}; }

json ApplicationsOverviewJson(const json& jobs_overview) {
  json apps = json::array();
  for (const json& j : jobs_overview.value("jobs", json::array())) {
    const std::string state = j.value("state", "");
    // ApplicationState has no RESTARTING, INITIALIZING, FAILING or SUSPENDED: the application
    // runs while its job does anything but end.
    std::string status = "RUNNING";
    if (state == "FINISHED" || state == "FAILED" || state == "CANCELED") status = state;
    if (state == "CANCELLING") status = "CANCELING";
    if (state == "CREATED") status = "CREATED";
    apps.push_back({{"id", j.value("jid", "")},
                    {"name", j.value("name", "")},
                    {"status", status},
                    {"start-time", j.value("start-time", int64_t{-1})},
                    {"end-time", j.value("end-time", int64_t{-1})},
                    {"duration", j.value("duration", int64_t{0})},
                    {"jobs", {{state, 1}}}});
  }
  return {{"applications", apps}};
}

json JobManagerLogsJson() { return LogsOf("jobmanager"); }

}  // namespace ckpt::engine::rest
