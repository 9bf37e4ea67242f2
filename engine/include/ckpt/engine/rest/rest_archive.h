// The job archive of Flink's HistoryServer (FsJobArchivist): one file <archive dir>/<job id>
// holding {"archive": [{"path": "/jobs/<id>/...", "json": "<the REST answer as a string>"}, ...]},
// the answers of every path Flink's JsonArchivists archive, computed by the same functions the
// live REST endpoint answers with. JobArchiver keeps a running job's archive current: rewritten
// after each completed checkpoint (so a crash leaves the archive of the last checkpoint) and
// replaced by the final one when the job ends. Functions are thread-safe; JobArchiver's methods
// are called from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/job_runner.h"

namespace ckpt::engine {

// One archived REST answer: the URL path (no /v1 prefix, no placeholders) and its JSON body.
struct ArchivedJson {
  std::string path;
  std::string json;
};

// Where the archived answers say the job ran (vertex details, task managers name it).
struct ArchiveEndpoint {
  std::string address = "127.0.0.1";
  int port = 0;
  // The endpoint's start (epoch ms): the job's start when its timeline has none.
  int64_t start_ms = 0;
};

// The answers Flink's HistoryServer serves for `job` now, in Flink's archivists' paths:
// /jobs/overview (this job only), /jobs/:jid, /jobs/:jid/{config,exceptions,accumulators,plan},
// /jobs/:jid/jobmanager/{config,environment}, per vertex /jobs/:jid/vertices/:vid
// {,/taskmanagers,/accumulators,/subtasks/accumulators,/subtasktimes,/subtasks/:index
// {,/attempts/:attempt}},
// /jobs/:jid/checkpoints, /jobs/:jid/checkpoints/config, and per checkpoint of the history (and
// the latest completed, savepoint, failed and restored ones)
// /jobs/:jid/checkpoints/details/:cid{,/subtasks/:vid}. `now_ms`: the time durations of a
// running job are measured to.
std::vector<ArchivedJson> ArchiveOfJob(const JobRunner& job, const ArchiveEndpoint& endpoint,
                                       int64_t now_ms);

// The archive file's text (Flink's FsJobArchivist layout).
std::string EncodeJobArchive(const std::vector<ArchivedJson>& entries);

// Parses an archive file's text. Corruption naming `file` when it is not JSON, has no "archive"
// array, or an entry lacks a string "path" or "json".
base::Result<std::vector<ArchivedJson>> DecodeJobArchive(std::string_view text,
                                                         const std::string& file);

struct JobArchiverOptions {
  // The archive directory (created if missing). Required.
  std::string dir;
  // Filesystem of `dir`. Default: base::Fs::Default().
  base::Fs* fs = nullptr;
  ArchiveEndpoint endpoint;
  // How often the background thread looks for a newly completed checkpoint. Default: 100 ms.
  int64_t poll_ms = 100;
  // Receives a line when an archive cannot be written (the job goes on). Default: none.
  std::function<void(const std::string&)> log;
};

// Writes the archive of one job: <dir>/<job id>, atomically (temporary file, rename), after
// each completed checkpoint on a thread of its own, and at Finish().
class JobArchiver {
 public:
  // Checks that <dir>/<job id> does not exist, or is the archive a run of this job that did not
  // end left (the job RUNNING in it: a crash after a checkpoint; replaced, and a line logged);
  // AlreadyExists naming it otherwise: an ended run's archive, or a file that is none, is never
  // overwritten. Creates `dir` (IOError) and starts watching `job`, which must outlive the
  // archiver.
  static base::Result<std::unique_ptr<JobArchiver>> Start(const JobRunner& job,
                                                          JobArchiverOptions options);
  ~JobArchiver();  // stops the thread; writes nothing more

  // Stops watching and writes the final archive (the job has ended). Returns the file written,
  // or the error of writing it.
  base::Result<std::string> Finish();
  // The endpoint the archived answers name from now on (once the REST endpoint is bound).
  void SetEndpoint(const ArchiveEndpoint& endpoint);
  // The archive file: <dir>/<job id>.
  const std::string& path() const;
  // Archives written so far (for tests and logs).
  uint64_t writes() const;

  class Impl;

 private:
  explicit JobArchiver(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::engine
