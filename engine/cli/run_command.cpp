// `ckpt-engine run`: builds JobRunnerOptions from flags, runs the job, and turns SIGINT/SIGTERM
// into stop-with-savepoint (a second signal cancels), printing the savepoint path and the exact
// command to resume, as Flink's CLI does.
#include "run_command.h"

#include <signal.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/rest/rest_archive.h"
#include "ckpt/format/job_spec.h"
#include "engine_text_style.h"
#include "rest_endpoint.h"

namespace ckpt::engine::cli {
namespace {

std::string Quote(const std::string& s) {
  if (s.find_first_of(" \t'\"$\\") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int Usage(const std::string& message) {
  std::cerr << StyledErr("ckpt-engine run: " + message, clistyle::Tone::kError) << "\n";
  return 2;
}

// Exit code for errors found before the job runs: the user's input is wrong (2) unless the
// failure is I/O or internal.
int SetupError(const base::Status& st) {
  std::cerr << StyledErr("ckpt-engine run: " + st.ToString(), clistyle::Tone::kError) << "\n";
  return st.code() == base::StatusCode::kInternal ? 1 : 2;
}

// The filesystems of a run's locations (EngineRunResolveLocations).
struct EngineRunFs {
  base::Fs* job_file = nullptr;  // where the job spec is read from
  base::Fs* storage = nullptr;   // checkpoints, savepoints and the snapshot restored from
};

// A job id: 32 hex digits.
bool IsJobId(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Rewrites the locations of `a` in place to their paths on their filesystems, decided by
// base::ResolveFs (bare paths and file: URIs are POSIX): the job file on its own; the checkpoint
// and savepoint directories, -s and --from-latest on the one filesystem the engine writes
// through; --state-local-dir must be local (base::LocalPathOf). InvalidArgument naming the
// option and the scheme otherwise, or when the storage locations are on different filesystems.
base::Result<EngineRunFs> EngineRunResolveLocations(RunArgs* a) {
  EngineRunFs out;
  base::Result<base::ResolvedLocation> job = base::ResolveFs(a->job_file);
  if (!job.ok()) return job.status().WithContext("job spec");
  out.job_file = job->fs;
  a->job_file = std::move(job->path);
  const std::pair<const char*, std::string*> storage[] = {
      {"--checkpoint-dir", &a->checkpoint_dir}, {"--savepoint-dir", &a->savepoint_dir},
      {"-s", &a->restore_path}, {"--from-latest", &a->from_latest}};
  for (const auto& [option, value] : storage) {
    if (value->empty()) continue;
    // A bare job id names <checkpoint-dir>/<id> (ResolveFromLatest), wherever that is.
    if (value == &a->from_latest && IsJobId(*value) && !a->checkpoint_dir.empty() &&
        !std::filesystem::exists(*value)) {
      continue;
    }
    base::Result<base::ResolvedLocation> where = base::ResolveFs(*value);
    if (!where.ok()) return where.status().WithContext(option);
    if (out.storage != nullptr && out.storage != where->fs) {
      return base::Status::InvalidArgument(std::string(option) + " '" + *value +
                                           "' is on another filesystem than the other "
                                           "checkpoint and savepoint locations");
    }
    out.storage = where->fs;
    *value = std::move(where->path);
  }
  if (out.storage == nullptr) out.storage = &base::Fs::Default();
  if (!a->archive_dir.empty()) {  // the history server reads it as local files
    base::Result<std::string> local = base::LocalPathOf(a->archive_dir);
    if (!local.ok()) return local.status().WithContext("--archive-dir");
    a->archive_dir = std::move(*local);
  }
  if (!a->state_local_dir.empty()) {
    base::Result<std::string> local = base::LocalPathOf(a->state_local_dir);
    if (!local.ok()) return local.status().WithContext("--state-local-dir");
    a->state_local_dir = std::move(*local);
  }
  return out;
}

// `dir` without a trailing '/' and, for a local path, lexically normal; a URI (s3://bucket/key,
// as the storage Fs takes it) is kept as written: normalizing would fold its "//".
std::string NormalDir(const std::string& dir) {
  std::string out = dir.find("://") != std::string::npos
                        ? dir
                        : std::filesystem::path(dir).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/' && !out.ends_with("://")) out.pop_back();
  return out;
}

}  // namespace

base::Result<std::pair<std::string, std::string>> ResolveFromLatest(const RunArgs& a,
                                                                    base::Fs& fs) {
  // A bare job id names <checkpoint-dir>/<job-id>; anything else is the job directory itself.
  if (IsJobId(a.from_latest) && !fs.Stat(a.from_latest).ok()) {
    if (a.checkpoint_dir.empty()) {
      return base::Status::InvalidArgument("job id " + a.from_latest +
                                           " given without --checkpoint-dir: pass "
                                           "--checkpoint-dir DIR (the job is resumed from "
                                           "DIR/" + a.from_latest + ") or the job directory");
    }
    return std::make_pair(a.checkpoint_dir, a.from_latest);
  }
  const std::string job_dir = NormalDir(a.from_latest);
  const std::string id = base::BaseName(job_dir);
  if (!IsJobId(id)) {
    return base::Status::InvalidArgument(
        "'" + a.from_latest + "' is neither a job id (32 hex digits) nor a job directory " +
        "<checkpoint-dir>/<job-id>");
  }
  std::string root = job_dir.find('/') == std::string::npos ? "." : base::DirName(job_dir);
  if (!a.checkpoint_dir.empty() && NormalDir(a.checkpoint_dir) != NormalDir(root)) {
    // Checkpoints continue where the job's are; a different --checkpoint-dir would split them.
    return base::Status::InvalidArgument("job directory " + job_dir +
                                         " is not under --checkpoint-dir " + a.checkpoint_dir);
  }
  return std::make_pair(root, id);
}

CLI::App* AddRunCommand(CLI::App& app, RunArgs& a) {
  CLI::App* run = app.add_subcommand("run", "Run a job spec (JSON) on the reference engine");
  run->add_option("job", a.job_file, "Job spec file (JSON)")->required();
  run->add_option("--checkpoint-dir", a.checkpoint_dir,
                  "Checkpoint storage root (<dir>/<job id>/chk-<n>)");
  run->add_option("--savepoint-dir", a.savepoint_dir,
                  "Where savepoints go (default: <checkpoint-dir>/savepoints; else, restoring from "
                  "S3, beside the restored snapshot; else ./savepoints)");
  run->add_option("--interval", a.interval_ms, "Checkpoint interval in ms (0 = off)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--mode", a.mode, "Checkpointing mode")
      ->check(CLI::IsMember({"aligned", "unaligned", "aligned-with-timeout", "at-least-once"}));
  run->add_option("-p,--parallelism", a.parallelism, "Default parallelism")
      ->check(CLI::PositiveNumber);
  run->add_option("-s,--from-savepoint", a.restore_path,
                  "Restore from a savepoint or checkpoint (its directory or _metadata)");
  run->add_flag("-n,--allow-non-restored-state", a.allow_non_restored_state,
                "Skip snapshot state that maps to no operator of the job");
  run->add_option("--claim-mode", a.claim_mode, "Ownership of the restored snapshot")
      ->check(CLI::IsMember({"claim", "no-claim"}));
  run->add_option("--from-latest", a.from_latest,
                  "Resume from the newest usable snapshot (checkpoint, or savepoint it took or "
                  "restored from) of a job: JOB_ID (in <checkpoint-dir>/<job-id>) or the job "
                  "directory");
  run->add_flag("--allow-empty-start", a.allow_empty_start,
                "With --from-latest: start without state when no usable snapshot is found");
  run->add_option("--stop-with-savepoint-after", a.stop_with_savepoint_after_s,
                  "Stop with a savepoint after this many seconds")
      ->check(CLI::NonNegativeNumber);
  run->add_flag("--drain", a.drain, "With a stop: advance event time to the end first");
  run->add_option("--num-retained", a.num_retained, "Completed checkpoints to retain")
      ->check(CLI::PositiveNumber);
  run->add_option("--retention", a.retention, "Checkpoint retention on cancellation")
      ->check(CLI::IsMember({"retain-on-cancellation", "delete-on-cancellation",
                             "no-externalized"}));
  run->add_option("--max-restarts", a.max_restarts, "Restart attempts after failures")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--restart-delay", a.restart_delay_ms, "Delay between restarts in ms")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--state-backend", a.state_backend,
                  "Keyed state backend (default: the spec's state_backend, else heap)")
      ->check(CLI::IsMember({"heap", "rocksdb"}));
  run->add_option("--incremental", a.incremental,
                  "RocksDB incremental checkpoints (default: the spec's incremental, else false)")
      ->check(CLI::IsMember({"true", "false"}));
  run->add_option("--changelog", a.changelog,
                  "Changelog state backend (default: the spec's changelog, else off)")
      ->check(CLI::IsMember({"on", "off"}));
  run->add_option("--changelog-materialization-interval",
                  a.changelog_materialization_interval_ms,
                  "Changelog: minimum ms between materializations (default: the spec's "
                  "changelog_materialization_interval_ms, else 10000)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--state-local-dir", a.state_local_dir,
                  "RocksDB working directory (default: the spec's state_local_dir, else the "
                  "system temp directory)");
  run->add_option("--network-buffer-bytes", a.network_buffer_bytes,
                  "Bytes per network buffer (default 32768; records larger than a buffer span "
                  "buffers)")
      ->check(CLI::Range(int64_t{16}, int64_t{1} << 30));
  run->add_option("--buffers-per-channel", a.buffers_per_channel,
                  "Credits per input channel (default 2)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
  run->add_option("--max-overdraft-buffers-per-gate", a.max_overdraft_buffers_per_gate,
                  "Buffers a task may borrow beyond its pool for one record (default 5)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 16));
  run->add_option("--buffer-timeout", a.buffer_timeout_ms,
                  "Ms after which a partly filled output buffer is sent (Flink's "
                  "execution.buffer-timeout; default 5; 0: after every record; -1: only when "
                  "full or when the task must wait)")
      ->check(CLI::Range(int64_t{-1}, int64_t{1} << 40));
  run->add_option("--max-subtasks-per-channel-state-file", a.max_subtasks_per_channel_state_file,
                  "Subtasks sharing one channel-state file of an unaligned checkpoint (default: the "
                  "spec's max_subtasks_per_channel_state_file, else 5)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
  run->add_option("--aligned-checkpoint-timeout", a.aligned_checkpoint_timeout_ms,
                  "--mode aligned-with-timeout: ms after its trigger when an aligned checkpoint "
                  "switches to unaligned (default: the spec's aligned_checkpoint_timeout_ms, "
                  "else 0: at its first barrier)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  run->add_flag("--debloat", a.debloat,
                "Buffer debloating: size in-flight buffers to --debloat-target of throughput "
                "(default: the spec's debloat, else off)");
  run->add_option("--debloat-target", a.debloat_target_ms,
                  "ms of throughput the in-flight buffers of an input gate hold (default: the "
                  "spec's debloat_target_ms, else 1000)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  run->add_option("--debloat-period", a.debloat_period_ms,
                  "ms between buffer-size recalculations (default: the spec's debloat_period_ms, "
                  "else 200)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  run->add_option("--min-buffer-bytes", a.min_buffer_bytes,
                  "Smallest debloated buffer size (default: the spec's min_buffer_bytes, else 256)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  AddRestOptions(*run, a);
  run->add_option("--archive-dir", a.archive_dir,
                  "Archive the job's REST answers as DIR/<job id> (Flink's HistoryServer "
                  "format, jobmanager.archive.fs.dir) after each completed checkpoint and when "
                  "the job ends; serve them with 'ckpt-engine history-server'");
  run->footer(
      "Examples:\n"
      "  ckpt-engine run examples/keyed_sum_2pc.json --checkpoint-dir /tmp/ckpt --interval 1000\n"
      "  ckpt-engine run job.json --checkpoint-dir /tmp/ckpt --rest-port 8081\n"
      "  ckpt-engine run job.json -s /tmp/sp/savepoint-1a2b3c-0123456789ab -p 2\n"
      "  ckpt-engine run job.json --from-latest /tmp/ckpt/<job-id>\n"
      "  ckpt-engine run job.json --checkpoint-dir /tmp/ckpt --from-latest <job-id>\n"
      "SIGINT/SIGTERM stop the job with a savepoint and print the command to resume; when no\n"
      "savepoint can be taken (the job is restarting) or on a second signal, the job is\n"
      "cancelled and its checkpoints are kept for --from-latest. Failures and restarts are\n"
      "logged on stderr with their cause; restarts are bounded (--max-restarts, default 3).");
  return run;
}

std::string ResumeCommand(const std::vector<std::string>& argv, const std::string& savepoint) {
  static const char* const kWithValue[] = {"-s", "--from-savepoint", "--from-latest",
                                           "--stop-with-savepoint-after", "--claim-mode"};
  std::string out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& w = argv[i];
    bool skip_value = false, skip = w == "--drain" || w == "--allow-empty-start";
    for (const char* opt : kWithValue) {
      const std::string o(opt);
      if (w == o) skip = skip_value = true;
      if (w.rfind(o + "=", 0) == 0) skip = true;
    }
    if (skip) {
      if (skip_value) ++i;
      continue;
    }
    out += (out.empty() ? "" : " ") + Quote(w);
  }
  return out + " -s " + Quote(savepoint);
}

int Run(const RunArgs& given, const std::vector<std::string>& argv) {
  RunArgs a = given;
  base::Result<EngineRunFs> located = EngineRunResolveLocations(&a);
  if (!located.ok()) return SetupError(located.status());
  base::Fs& fs = *located->storage;
  base::Result<pb::JobSpec> spec = format::ReadJobSpecFile(*located->job_file, a.job_file);
  if (!spec.ok()) return SetupError(spec.status());

  JobRunnerOptions o;
  o.fs = &fs;
  o.checkpoint_dir = a.checkpoint_dir;
  o.savepoint_dir = a.savepoint_dir;
  if (a.interval_ms >= 0) o.interval_ms = static_cast<uint64_t>(a.interval_ms);
  if (a.mode == "aligned") o.mode = pb::ALIGNED_EXACTLY_ONCE;
  if (a.mode == "at-least-once") o.mode = pb::AT_LEAST_ONCE;
  if (a.mode == "unaligned") o.mode = pb::UNALIGNED;
  if (a.mode == "aligned-with-timeout") o.mode = pb::ALIGNED_WITH_TIMEOUT;
  // Flags that have a field in the spec's checkpointing section override it there (the engine
  // takes the spec's value over its default).
  pb::CheckpointSpec* cp = spec->mutable_checkpointing();
  if (a.aligned_checkpoint_timeout_ms >= 0) {
    cp->set_aligned_checkpoint_timeout_ms(static_cast<uint64_t>(a.aligned_checkpoint_timeout_ms));
  }
  if (a.debloat) cp->set_debloat(true);
  if (a.debloat_target_ms > 0) cp->set_debloat_target_ms(static_cast<uint64_t>(a.debloat_target_ms));
  if (a.debloat_period_ms > 0) cp->set_debloat_period_ms(static_cast<uint64_t>(a.debloat_period_ms));
  if (a.min_buffer_bytes > 0) cp->set_min_buffer_bytes(static_cast<uint32_t>(a.min_buffer_bytes));
  if (a.network_buffer_bytes > 0) o.network.buffer_bytes = static_cast<size_t>(a.network_buffer_bytes);
  if (a.buffers_per_channel > 0) o.network.buffers_per_channel = static_cast<uint32_t>(a.buffers_per_channel);
  if (a.max_overdraft_buffers_per_gate >= 0) {
    o.network.max_overdraft_buffers_per_gate = static_cast<uint32_t>(a.max_overdraft_buffers_per_gate);
  }
  if (a.buffer_timeout_ms >= -1) o.network.buffer_timeout_ms = a.buffer_timeout_ms;
  o.task_metrics = a.task_metrics == "on";
  if (a.max_subtasks_per_channel_state_file > 0) {
    cp->set_max_subtasks_per_channel_state_file(
        static_cast<uint32_t>(a.max_subtasks_per_channel_state_file));
  }
  if (a.parallelism > 0) o.parallelism = a.parallelism;
  if (a.num_retained > 0) o.num_retained = a.num_retained;
  if (a.retention == "retain-on-cancellation") o.retention = pb::RETAIN_ON_CANCELLATION;
  if (a.retention == "delete-on-cancellation") o.retention = pb::DELETE_ON_CANCELLATION;
  if (a.retention == "no-externalized") o.retention = pb::NO_EXTERNALIZED;
  if (a.max_restarts >= 0) o.max_restart_attempts = static_cast<uint32_t>(a.max_restarts);
  if (a.restart_delay_ms >= 0) o.restart_delay_ms = static_cast<uint64_t>(a.restart_delay_ms);
  if (!a.state_backend.empty()) o.state_backend = a.state_backend;
  if (!a.incremental.empty()) o.incremental = a.incremental == "true";
  if (!a.changelog.empty()) o.changelog = a.changelog == "on";
  if (!a.state_local_dir.empty()) o.state_local_dir = a.state_local_dir;
  if (a.changelog_materialization_interval_ms >= 0) {
    o.changelog_materialization_interval_ms =
        static_cast<uint64_t>(a.changelog_materialization_interval_ms);
  }
  o.allow_non_restored_state = a.allow_non_restored_state;
  o.claim_mode = a.claim_mode == "claim" ? pb::CLAIM : pb::NO_CLAIM;
  o.restore_path = a.restore_path;
  o.allow_empty_start = a.allow_empty_start;
  o.log = [](const std::string& line) { std::cerr << line << std::endl; };
  if (!a.from_latest.empty()) {
    if (!a.restore_path.empty()) return Usage("-s and --from-latest are mutually exclusive");
    base::Result<std::pair<std::string, std::string>> job = ResolveFromLatest(a, fs);
    if (!job.ok()) return SetupError(job.status().WithContext("--from-latest"));
    o.job_id_hex = job->second;
    if (o.checkpoint_dir.empty()) o.checkpoint_dir = job->first;
    o.restore_from_latest = true;
  }
  if (o.savepoint_dir.empty() && !o.checkpoint_dir.empty()) {
    o.savepoint_dir = base::JoinPath(o.checkpoint_dir, "savepoints");
  } else if (o.savepoint_dir.empty() && &fs != &base::Fs::Default() && !o.restore_path.empty()) {
    // Restoring from an object store without a checkpoint directory: a local ./savepoints would
    // be on another filesystem than the snapshot, so savepoints go beside the restored one.
    std::string snapshot = NormalDir(o.restore_path);
    if (base::BaseName(snapshot) == "_metadata") snapshot = base::DirName(snapshot);
    o.savepoint_dir = base::DirName(snapshot);
  } else if (o.savepoint_dir.empty()) {
    o.savepoint_dir = "savepoints";
  }

  // Signals go to one waiting thread only (blocked before any engine thread starts).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR2);  // our own wake-up of the signal thread at the end
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const std::string job_name = spec->name();
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(std::move(*spec), o);
  if (!runner.ok() && RestorePlan::IsRestoreRefusal(runner.status())) {
    // The snapshot does not fit the job: the job fails (exit 1) before it starts, as it would
    // on every attempt.
    std::cerr << StyledErr("ckpt-engine run: " + runner.status().ToString(),
                           clistyle::Tone::kError)
              << "\n";
    return 1;
  }
  if (!runner.ok()) return SetupError(runner.status());
  JobRunner& job = **runner;
  for (const std::string& line : job.restore_report()) std::cout << line << "\n";
  if (!job.restore_path().empty()) {
    std::cout << "Restoring from " << job.restore_path() << " (claim mode "
              << (job.restore_claim_mode() == pb::CLAIM ? "CLAIM" : "NO_CLAIM") << ")\n";
  }
  std::cout << "Job " << job.job_id_hex() << " '" << job_name << "' (" << a.job_file
            << ") started";
  if (!job.job_dir().empty()) std::cout << "; checkpoints in " << job.job_dir();
  std::cout << std::endl;
  // Before the job starts: an archive of another run of this job id is never overwritten.
  std::unique_ptr<JobArchiver> archiver;
  if (!a.archive_dir.empty()) {
    JobArchiverOptions ao;
    ao.dir = a.archive_dir;
    ao.endpoint.address = a.rest_address;
    ao.log = [](const std::string& line) {
      std::cerr << StyledErr(line, clistyle::Tone::kWarning) << std::endl;
    };
    base::Result<std::unique_ptr<JobArchiver>> started = JobArchiver::Start(job, ao);
    if (!started.ok()) return SetupError(started.status());
    archiver = std::move(*started);
  }
  if (base::Status st = job.Start(); !st.ok()) return SetupError(st);
  base::Result<std::unique_ptr<RestEndpoint>> rest = RestEndpoint::Start(job, a, argv);
  if (!rest.ok()) {
    job.Cancel();
    job.Wait();
    return SetupError(rest.status());
  }
  if (archiver && *rest) {
    ArchiveEndpoint ep;
    ep.address = a.rest_address;
    ep.port = (*rest)->port();
    archiver->SetEndpoint(ep);
  }

  std::atomic<bool> stopping{false};
  std::atomic<bool> cancelled_by_signal{false};
  auto stop = [&](const char* why) {
    std::cout << why << ": stopping the job with a savepoint..." << std::endl;
    if (!job.running()) {
      // Restarting after a failure (or already finishing): no savepoint can be taken, and
      // waiting for one could be forever. Stop now, keeping the checkpoints.
      std::cerr << StyledErr(std::string(why) +
                                 ": the job is not running (restarting or finishing), so no "
                                 "savepoint can be taken: cancelling it; its checkpoints are kept "
                                 "(resume with --from-latest)",
                             clistyle::Tone::kWarning)
                << std::endl;
      cancelled_by_signal = true;
      job.Suspend();
      return;
    }
    base::Result<std::string> sp = job.StopWithSavepoint(a.drain);
    if (!sp.ok()) {
      std::cerr << StyledErr("Stop-with-savepoint failed: " + sp.status().ToString() +
                                 "; cancelling the job, its checkpoints are kept (resume with "
                                 "--from-latest)",
                             clistyle::Tone::kError)
                << std::endl;
      cancelled_by_signal = true;
      job.Suspend();
      return;
    }
    std::cout << "Savepoint " << StyledOut("completed", clistyle::Tone::kGood) << ". Path: " << *sp
              << "\n"
              << StyledOut("Resume with:", clistyle::Tone::kHint) << " " << ResumeCommand(argv, *sp)
              << std::endl;
  };
  // One stop at a time, on its own thread so a second signal can still cancel; joined before the
  // final report so the savepoint lines always come first.
  std::mutex stop_mu;
  std::thread stop_thread;
  auto request_stop = [&](const char* why) {
    std::lock_guard<std::mutex> lock(stop_mu);
    if (stopping.load()) return;
    if (stop_thread.joinable()) stop_thread.join();  // an earlier stop that failed
    stopping = true;
    stop_thread = std::thread([&stop, why] { stop(why); });
  };
  std::thread signal_thread([&] {
    int sig = 0;
    while (sigwait(&signals, &sig) == 0) {
      if (sig == SIGUSR2) return;
      if (*rest && (*rest)->KeepingAlive()) {  // the job ended: the signal ends the endpoint
        (*rest)->ReleaseKeepAlive();
        continue;
      }
      if (stopping.load()) {
        std::cerr << StyledErr("Second signal: cancelling the job; its checkpoints are kept "
                               "(resume with --from-latest)",
                               clistyle::Tone::kWarning)
                  << std::endl;
        cancelled_by_signal = true;
        job.Suspend();
        continue;
      }
      request_stop(sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
  });
  std::thread timer;
  if (a.stop_with_savepoint_after_s >= 0) {
    timer = std::thread([&] {
      auto until = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<int64_t>(a.stop_with_savepoint_after_s * 1000));
      while (std::chrono::steady_clock::now() < until && !stopping.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      request_stop("--stop-with-savepoint-after");
    });
  }

  JobResult r = job.Wait();
  if (archiver && cancelled_by_signal) {
    // Suspended for a resume (Flink archives no SUSPENDED job): the archive of the last
    // checkpoint stays, and the run resuming the job replaces it.
    std::cout << "Job suspended: not archived; " << archiver->path()
              << " keeps the archive of its last completed checkpoint, if any" << std::endl;
    archiver.reset();
  }
  if (archiver) {
    // Replaces the archive of the last checkpoint; before a kept-alive endpoint waits.
    base::Result<std::string> archived = archiver->Finish();
    if (archived.ok()) {
      std::cout << "Job archived: " << *archived << std::endl;
    } else {
      std::cerr << StyledErr("ckpt-engine run: cannot archive the job: " +
                                 archived.status().ToString(),
                             clistyle::Tone::kWarning)
                << std::endl;
    }
  }
  if (*rest) (*rest)->Finish();  // after clients saw their operations (a REST stop) complete
  if (timer.joinable()) timer.join();
  {
    std::lock_guard<std::mutex> lock(stop_mu);
    if (stop_thread.joinable()) stop_thread.join();
    stopping = true;
  }
  pthread_kill(signal_thread.native_handle(), SIGUSR2);
  signal_thread.join();

  std::cout << "Job finished: "
            << (r.outcome == JobOutcome::kFinished ? StyledStatus("FINISHED")
                : r.outcome == JobOutcome::kStopped
                    ? StyledOut("STOPPED", clistyle::Tone::kGood) + " with savepoint " +
                          r.savepoint_path
                : r.outcome == JobOutcome::kCancelled ? StyledStatus("CANCELED")
                                                      : StyledStatus("FAILED"))
            << "; restarts " << r.restarts << "; checkpoints completed "
            << r.checkpoints.completed << ", failed " << r.checkpoints.failed << std::endl;
  if (r.outcome == JobOutcome::kFailed) {
    std::cerr << StyledErr("ckpt-engine run: " + r.status.ToString(), clistyle::Tone::kError)
              << "\n";
    return 1;
  }
  if (r.outcome == JobOutcome::kCancelled) return cancelled_by_signal ? 130 : 1;
  return 0;
}

}  // namespace ckpt::engine::cli
