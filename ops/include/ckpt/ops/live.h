// The live client: Flink-shaped REST endpoints (a `ckpt-engine run --rest-port` endpoint or a
// Flink JobManager) read into plain structs, for ckpt-engine's client verbs and the inspector's
// live Checkpoints view. The Parse* functions turn one captured answer body into its struct and
// are pure (thread-safe); LiveClient adds the HTTP transport and is immutable after Create, so one
// instance may be used from several threads at once (each call opens its own connection).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"

namespace ckpt::ops {

// One job of GET /jobs/overview.
struct LiveJob {
  std::string id;     // "jid": 32 hex digits
  std::string name;
  std::string state;  // RUNNING, FINISHED, CANCELED, ...
  int64_t start_time_ms = 0;  // "start-time"; 0 when absent
};

// One vertex (chain of operators) of GET /jobs/:jobid.
struct LiveVertex {
  std::string id;
  std::string name;
  int parallelism = 0;
};

// One checkpoint or savepoint of the statistics' history or "latest" (an absent field is 0/"").
struct LiveCheckpoint {
  int64_t id = 0;
  std::string status;  // COMPLETED, IN_PROGRESS, FAILED
  bool is_savepoint = false;
  std::string type;  // checkpoint_type: CHECKPOINT, UNALIGNED_CHECKPOINT, SAVEPOINT, ...
  int64_t trigger_ms = 0, latest_ack_ms = 0, duration_ms = 0;
  int64_t checkpointed_bytes = 0, state_bytes = 0, processed_bytes = 0, persisted_bytes = 0;
  int subtasks = 0, acknowledged = 0;
  std::string external_path;  // completed: a plain path (ckpt-engine) or a URI (Flink)
  bool discarded = false;     // completed, then subsumed and deleted
  std::string failure_message;  // failed
};

struct LiveCheckpointCounts {
  int64_t restored = 0, total = 0, in_progress = 0, completed = 0, failed = 0;
};

// One metric of the statistics' "summary". Percentiles Flink cannot compute (sent as "NaN")
// and absent ones are NaN.
struct LiveSummaryRow {
  std::string metric;     // checkpointed_size, state_size, end_to_end_duration, ...
  double values[8] = {};  // min, max, avg, p50, p90, p95, p99, p999
};

// GET /jobs/:jobid/checkpoints.
struct LiveCheckpoints {
  LiveCheckpointCounts counts;
  std::vector<LiveSummaryRow> summary;  // in the order listed in LiveSummaryMetrics()
  std::vector<LiveCheckpoint> history;  // newest first, as sent
  std::optional<LiveCheckpoint> latest_completed, latest_savepoint, latest_failed;
  int64_t restored_id = -1;  // latest.restored.id; -1 when nothing was restored
  std::string restored_path;
};

// Per vertex of one checkpoint (GET /jobs/:jobid/checkpoints/details/:id "tasks").
struct LiveTaskStats {
  std::string vertex_id;
  std::string status;
  int subtasks = 0, acknowledged = 0;
  int64_t duration_ms = 0, checkpointed_bytes = 0, state_bytes = 0, processed_bytes = 0,
          persisted_bytes = 0;
};

// One subtask of one vertex of one checkpoint (.../details/:id/subtasks/:vertexid).
struct LiveSubtaskStats {
  int index = 0;
  std::string status;  // "completed", or "pending_or_failed" (then only the index is known)
  int64_t ack_ms = 0, duration_ms = 0, state_bytes = 0, checkpointed_bytes = 0;
  int64_t sync_ms = 0, async_ms = 0, alignment_ms = 0, start_delay_ms = 0;
  int64_t processed_bytes = 0, persisted_bytes = 0;
  bool unaligned = false;
};

// Every leaf of GET /jobs/:jobid/checkpoints/config as "path" -> text, sorted by path
// ("externalization.enabled" -> "true"; null is "—", an array its compact JSON).
using LiveConfig = std::vector<std::pair<std::string, std::string>>;

// The status of an asynchronous operation (checkpoint, savepoint, stop, disposal trigger).
struct LiveOperation {
  bool completed = false;        // status.id == "COMPLETED"
  std::string location;          // operation.location (savepoints)
  int64_t checkpoint_id = 0;     // operation.checkpointId (checkpoints)
  std::optional<std::string> failure;  // operation.failure-cause: its stack-trace, else its JSON
};

// The metrics the summary knows, in their row order.
const std::vector<std::string>& LiveSummaryMetrics();

// Largest answer body read or parsed (64 MiB); a bigger one is Corruption.
inline constexpr size_t kLiveMaxBodyBytes = size_t{64} << 20;

// Parsers of one answer body. `where` names the request in error messages (e.g.
// "GET /jobs/ab12/checkpoints"); "" names the endpoint's pattern instead. Each returns
// Corruption naming `where` and the field when the body is not JSON, not an object, nested
// deeper than 64 levels, larger than kLiveMaxBodyBytes, lacks a required field or has a field of
// the wrong type. Absent optional fields (and JSON null) read as 0, "" or false.
// Required: jobs[].jid, name, state.
base::Result<std::vector<LiveJob>> ParseJobsOverview(std::string_view json,
                                                     std::string_view where = "");
// Required: vertices[].id, name.
base::Result<std::vector<LiveVertex>> ParseJobVertices(std::string_view json,
                                                       std::string_view where = "");
// Required: counts; history[].id and status.
base::Result<LiveCheckpoints> ParseCheckpointingStatistics(std::string_view json,
                                                           std::string_view where = "");
base::Result<LiveConfig> ParseCheckpointConfig(std::string_view json, std::string_view where = "");
// Required: tasks (an object keyed by vertex id); rows sorted by vertex id.
base::Result<std::vector<LiveTaskStats>> ParseCheckpointDetails(std::string_view json,
                                                                std::string_view where = "");
// Required: subtasks[].index.
base::Result<std::vector<LiveSubtaskStats>> ParseSubtaskDetails(std::string_view json,
                                                                std::string_view where = "");
// The "request-id" of a trigger answer (required).
base::Result<std::string> ParseTriggerId(std::string_view json, std::string_view where = "");
// An operation's status answer. Required: status.id.
base::Result<LiveOperation> ParseOperationStatus(std::string_view json,
                                                 std::string_view where = "");

// The text of an error answer: Flink's {"errors": [...]} entries joined by "; ", or the body
// itself when it has none. `brief` keeps of each entry only its message line, without a Java
// exception's class name and stack trace ("...RestHandlerException: Could not find X\n\tat ..."
// is "Could not find X").
std::string LiveErrorText(std::string_view body, bool brief);

struct LiveClientOptions {
  // Seconds to wait for the TCP connection. Default: 5.
  int connect_timeout_s = 5;
  // Seconds to wait for an answer (and for sending a request). Default: 30.
  int read_timeout_s = 30;
  // Error answers: each Flink error's message line only (LiveErrorText brief). Default: false,
  // every error as sent.
  bool brief_errors = false;
  // Milliseconds between two status requests in AwaitOperation. Default: 100.
  int poll_interval_ms = 100;
};

// Where a savepoint goes and in which format (savepoint and stop-with-savepoint triggers).
struct LiveSavepointRequest {
  std::string target_dir;   // "" = the cluster's default savepoint directory
  std::string format_type = "CANONICAL";  // CANONICAL or NATIVE
  bool drain = false;       // stop only: advance event time to the end first
};

class LiveClient {
 public:
  // `address`: http://HOST:PORT or HOST:PORT. InvalidArgument if it is not one.
  static base::Result<std::unique_ptr<LiveClient>> Create(const std::string& address,
                                                          const LiveClientOptions& options = {});
  ~LiveClient();

  // "http://HOST:PORT".
  const std::string& address() const { return address_; }

  // Errors of every call: IOError "cannot reach ADDRESS (METHOD PATH): ..." when the endpoint
  // cannot be reached or does not answer in time; for a 4xx/5xx answer a status by its code
  // (400 InvalidArgument, 404 NotFound, 409 FailedPrecondition, else Internal) with the message
  // "METHOD PATH: HTTP CODE: " and LiveErrorText of the body; Corruption from the parsers (or
  // for a body over kLiveMaxBodyBytes).
  base::Result<std::vector<LiveJob>> JobsOverview() const;
  base::Result<std::vector<LiveVertex>> JobVertices(const std::string& job_id) const;
  base::Result<LiveCheckpoints> Checkpoints(const std::string& job_id) const;
  base::Result<LiveConfig> CheckpointConfig(const std::string& job_id) const;
  base::Result<std::vector<LiveTaskStats>> CheckpointDetails(const std::string& job_id,
                                                             int64_t checkpoint_id) const;
  base::Result<std::vector<LiveSubtaskStats>> SubtaskDetails(const std::string& job_id,
                                                             int64_t checkpoint_id,
                                                             const std::string& vertex_id) const;

  // Triggers return the status path of the started operation, for AwaitOperation.
  // POST /jobs/:jobid/checkpoints: a checkpoint, FULL when `full`, else as configured.
  base::Result<std::string> TriggerCheckpoint(const std::string& job_id, bool full) const;
  // POST /jobs/:jobid/savepoints (the job keeps running).
  base::Result<std::string> TriggerSavepoint(const std::string& job_id,
                                             const LiveSavepointRequest& request) const;
  // POST /jobs/:jobid/stop: stop with a savepoint.
  base::Result<std::string> TriggerStop(const std::string& job_id,
                                        const LiveSavepointRequest& request) const;
  // POST /savepoint-disposal.
  base::Result<std::string> TriggerDisposal(const std::string& savepoint_path) const;
  // PATCH /jobs/:jobid?mode=cancel.
  base::Status CancelJob(const std::string& job_id) const;

  // GET `status_path` once.
  base::Result<LiveOperation> OperationStatus(const std::string& status_path) const;
  // Polls `status_path` every poll_interval_ms until the operation completed and returns it.
  // Internal with the failure cause when it failed; IOError "the operation did not complete
  // within N s (PATH)" after `timeout_s`.
  base::Result<LiveOperation> AwaitOperation(const std::string& status_path, int timeout_s) const;

 private:
  LiveClient(std::string address, const LiveClientOptions& options);
  // One request; the body of a 2xx answer, or the error status described above.
  base::Result<std::string> Send(const char* method, const std::string& path,
                                 const std::string& body) const;

  std::string address_;
  LiveClientOptions options_;
};

}  // namespace ckpt::ops
