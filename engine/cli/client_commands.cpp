// ckpt-engine list | checkpoints | checkpoint | savepoint | stop | cancel | dispose: Flink's CLI
// verbs over the REST API, printing what Flink's CLI prints ("Savepoint completed. Path: ...")
// plus the exact command that resumes from the savepoint.
#include "client_commands.h"

#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/ops/live.h"
#include "engine_state_file.h"
#include "engine_text_style.h"
#include "run_command.h"

namespace ckpt::engine::cli {
namespace {

struct Target {
  std::unique_ptr<ops::LiveClient> client;
  std::vector<std::string> engine_argv;  // from the state file, when it names this engine
};

base::Result<Target> Connect(const ClientArgs& a) {
  Target t;
  std::string address = a.address;
  base::Result<EngineStateRecord> state = ReadEngineState();
  if (address.empty()) {
    if (!state.ok()) return state.status();
    address = state->address;
  }
  CKPT_ASSIGN_OR_RETURN(t.client, ops::LiveClient::Create(address));
  if (state.ok() && state->address == t.client->address()) t.engine_argv = state->argv;
  return t;
}

std::string Time(int64_t ms) {
  const std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&s, &tm);
  std::ostringstream out;
  out << std::put_time(&tm, "%d.%m.%Y %H:%M:%S");
  return out.str();
}

std::string Bytes(uint64_t n) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(u == 0 ? 0 : 1) << v << " " << units[u];
  return out.str();
}

int Fail(const std::string& verb, const base::Status& st) {
  std::cerr << StyledErr("ckpt-engine " + verb + ": " + st.ToString(), clistyle::Tone::kError)
            << "\n";
  const bool unreachable = st.code() == base::StatusCode::kIOError ||
                           st.code() == base::StatusCode::kNotFound;
  return unreachable && st.message().find("HTTP") == std::string::npos ? 2 : 1;
}

void PrintResume(const Target& t, const std::string& savepoint) {
  if (!t.engine_argv.empty()) {
    std::cout << StyledOut("Resume with:", clistyle::Tone::kHint) << " "
              << ResumeCommand(t.engine_argv, savepoint) << "\n";
  } else {
    std::cout << StyledOut("Resume with:", clistyle::Tone::kHint)
              << " ckpt-engine run JOB.json -s " << savepoint << "\n";
  }
}

int List(const ClientArgs& a) {
  base::Result<Target> t = Connect(a);
  if (!t.ok()) return Fail("list", t.status());
  std::cout << "Waiting for response..." << std::endl;
  base::Result<std::vector<ops::LiveJob>> jobs = t->client->JobsOverview();
  if (!jobs.ok()) return Fail("list", jobs.status());
  std::vector<ops::LiveJob> running, done;
  for (const ops::LiveJob& j : *jobs) {
    const std::string& s = j.state;
    (s == "RUNNING" || s == "RESTARTING" || s == "CREATED" || s == "CANCELLING" ? running : done)
        .push_back(j);
  }
  auto print = [](const ops::LiveJob& j) {
    std::cout << Time(j.start_time_ms) << " : " << j.id << " : " << j.name << " ("
              << StyledStatus(j.state) << ")\n";
  };
  if (running.empty()) {
    std::cout << "No running jobs.\n";
  } else {
    std::cout << "------------------ Running/Restarting Jobs -------------------\n";
    for (const ops::LiveJob& j : running) print(j);
    std::cout << "--------------------------------------------------------------\n";
  }
  if (!done.empty()) {
    std::cout << "---------------------- Terminated Jobs -----------------------\n";
    for (const ops::LiveJob& j : done) print(j);
    std::cout << "--------------------------------------------------------------\n";
  }
  return 0;
}

int Checkpoints(const ClientArgs& a) {
  base::Result<Target> t = Connect(a);
  if (!t.ok()) return Fail("checkpoints", t.status());
  base::Result<ops::LiveCheckpoints> st = t->client->Checkpoints(a.job_id);
  if (!st.ok()) return Fail("checkpoints", st.status());
  const ops::LiveCheckpointCounts& c = st->counts;
  std::cout << "Checkpoints of job " << a.job_id << ": triggered " << c.total
            << ", in progress " << c.in_progress << ", completed " << c.completed << ", failed "
            << c.failed << ", restored " << c.restored << "\n";
  std::cout << std::left << std::setw(6) << "ID" << std::setw(12) << "STATUS" << std::setw(22)
            << "TYPE" << std::setw(21) << "TRIGGERED" << std::setw(10) << "DURATION"
            << std::setw(14) << "CHECKPOINTED" << std::setw(12) << "FULL SIZE" << "PATH\n";
  for (const ops::LiveCheckpoint& h : st->history) {
    // The status padded by hand: the escapes of a coloured word take no columns.
    const std::string pad(h.status.size() < 12 ? 12 - h.status.size() : 0, ' ');
    std::cout << std::left << std::setw(6) << h.id << StyledStatus(h.status) << pad << std::setw(22)
              << h.type << std::setw(21) << Time(h.trigger_ms) << std::setw(10)
              << (std::to_string(h.duration_ms) + " ms") << std::setw(14)
              << Bytes(static_cast<uint64_t>(h.checkpointed_bytes)) << std::setw(12)
              << Bytes(static_cast<uint64_t>(h.state_bytes))
              << (!h.external_path.empty() ? h.external_path : h.failure_message) << "\n";
  }
  return 0;
}

// Flink's `flink checkpoint JOB [-full]`.
int Checkpoint(const ClientArgs& a) {
  base::Result<Target> t = Connect(a);
  if (!t.ok()) return Fail("checkpoint", t.status());
  const std::string type = a.full ? "FULL" : "CONFIGURED";
  std::cout << "Triggering checkpoint for job " << a.job_id << "." << std::endl;
  base::Result<std::string> status_path = t->client->TriggerCheckpoint(a.job_id, a.full);
  if (!status_path.ok()) return Fail("checkpoint", status_path.status());
  std::cout << "Waiting for response..." << std::endl;
  base::Result<ops::LiveOperation> op = t->client->AwaitOperation(*status_path, a.timeout_s);
  if (!op.ok()) return Fail("checkpoint", op.status());
  std::cout << "Checkpoint(" << type << ") " << op->checkpoint_id << " for job " << a.job_id
            << " " << StyledOut("completed", clistyle::Tone::kGood) << ".\n";
  return 0;
}

// A path the user typed, as the engine must receive it: a relative path is resolved here, against
// the directory the command runs in, as the user meant it (the engine's own working directory is
// another). Absolute paths and URIs (file:, s3:, ...) go as typed.
std::string ClientSidePath(const std::string& typed) {
  if (typed.empty() || typed.front() == '/' || !base::SchemeOf(typed).empty()) return typed;
  std::error_code ec;
  std::filesystem::path full = std::filesystem::absolute(typed, ec);
  if (ec) return typed;  // the engine names what is wrong with it
  std::string out = full.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

int SavepointOrStop(const ClientArgs& a, bool stop) {
  const std::string verb = stop ? "stop" : "savepoint";
  base::Result<Target> t = Connect(a);
  if (!t.ok()) return Fail(verb, t.status());
  ops::LiveSavepointRequest request;
  request.format_type = a.type == "native" ? "NATIVE" : "CANONICAL";
  request.target_dir = ClientSidePath(a.target_dir);
  request.drain = a.drain;
  base::Result<std::string> status_path = base::Status::Internal("unset");
  if (stop) {
    std::cout << "Suspending job \"" << a.job_id << "\" with a " << a.type << " savepoint."
              << std::endl;
    status_path = t->client->TriggerStop(a.job_id, request);
  } else {
    std::cout << "Triggering " << a.type << " savepoint for job " << a.job_id << "." << std::endl;
    status_path = t->client->TriggerSavepoint(a.job_id, request);
  }
  if (!status_path.ok()) return Fail(verb, status_path.status());
  std::cout << "Waiting for response..." << std::endl;
  base::Result<ops::LiveOperation> op = t->client->AwaitOperation(*status_path, a.timeout_s);
  if (!op.ok()) return Fail(verb, op.status());
  std::cout << "Savepoint " << StyledOut("completed", clistyle::Tone::kGood)
            << ". Path: " << op->location << "\n";
  PrintResume(*t, op->location);
  return 0;
}

int Cancel(const ClientArgs& a) {
  base::Result<Target> t = Connect(a);
  if (!t.ok()) return Fail("cancel", t.status());
  std::cout << "Cancelling job " << a.job_id << "." << std::endl;
  if (base::Status st = t->client->CancelJob(a.job_id); !st.ok()) return Fail("cancel", st);
  std::cout << "Cancelled job " << a.job_id << ".\n";
  return 0;
}

int Dispose(const ClientArgs& a) {
  base::Result<Target> t = Connect(a);
  if (!t.ok()) return Fail("dispose", t.status());
  const std::string path = ClientSidePath(a.path);
  std::cout << "Disposing savepoint '" << path << "'." << std::endl;
  base::Result<std::string> status_path = t->client->TriggerDisposal(path);
  if (!status_path.ok()) return Fail("dispose", status_path.status());
  std::cout << "Waiting for response..." << std::endl;
  base::Result<ops::LiveOperation> op = t->client->AwaitOperation(*status_path, a.timeout_s);
  if (!op.ok()) return Fail("dispose", op.status());
  std::cout << "Savepoint '" << path << "' disposed.\n";
  return 0;
}

void AddAddress(CLI::App* c, ClientArgs& a) {
  c->add_option("-m,--address", a.address,
                "REST endpoint http://HOST:PORT (default: the running engine's, from its state "
                "file)");
}

}  // namespace

std::vector<CLI::App*> AddClientCommands(CLI::App& app, ClientArgs& a) {
  std::vector<CLI::App*> out;
  CLI::App* list = app.add_subcommand("list", "List the jobs of a running engine (or cluster)");
  AddAddress(list, a);
  list->footer("Examples:\n  ckpt-engine list\n  ckpt-engine list --address http://127.0.0.1:8081");
  out.push_back(list);
  CLI::App* cps = app.add_subcommand("checkpoints", "Show a running job's checkpoint history");
  cps->add_option("job", a.job_id, "Job id (32 hex digits)")->required();
  AddAddress(cps, a);
  cps->footer("Examples:\n  ckpt-engine checkpoints 0123456789abcdef0123456789abcdef");
  out.push_back(cps);
  CLI::App* cp = app.add_subcommand("checkpoint", "Trigger a checkpoint of a running job");
  cp->add_option("job", a.job_id, "Job id (32 hex digits)")->required();
  cp->add_flag("--full", a.full,
               "A full, self-contained checkpoint even when checkpoints are incremental");
  cp->add_option("--timeout", a.timeout_s, "Seconds to wait for completion (default 600)");
  AddAddress(cp, a);
  cp->footer("Examples:\n  ckpt-engine checkpoint <job-id>\n  ckpt-engine checkpoint <job-id> --full");
  out.push_back(cp);
  CLI::App* sp = app.add_subcommand("savepoint", "Trigger a savepoint of a running job");
  sp->add_option("job", a.job_id, "Job id (32 hex digits)")->required();
  sp->add_option("dir", a.target_dir,
                 "Target directory; a relative one is taken from the current "
                 "directory (default: the engine's --savepoint-dir)");
  sp->add_option("-t,--type", a.type, "Savepoint format")
      ->check(CLI::IsMember({"canonical", "native"}));
  sp->add_option("--timeout", a.timeout_s, "Seconds to wait for completion (default 600)");
  AddAddress(sp, a);
  sp->footer("Examples:\n  ckpt-engine savepoint <job-id> /tmp/savepoints\n"
             "  ckpt-engine savepoint <job-id> --type native");
  out.push_back(sp);
  CLI::App* stop = app.add_subcommand("stop", "Stop a running job with a savepoint");
  stop->add_option("job", a.job_id, "Job id (32 hex digits)")->required();
  stop->add_option("-p,--savepoint-path", a.target_dir,
                   "Target directory; a relative one is taken from the current "
                   "directory (default: the engine's --savepoint-dir)");
  stop->add_flag("-d,--drain", a.drain, "Advance event time to the end before the savepoint");
  stop->add_option("-t,--type", a.type, "Savepoint format")
      ->check(CLI::IsMember({"canonical", "native"}));
  stop->add_option("--timeout", a.timeout_s, "Seconds to wait for completion (default 600)");
  AddAddress(stop, a);
  stop->footer("Examples:\n  ckpt-engine stop <job-id> --savepoint-path /tmp/savepoints");
  out.push_back(stop);
  CLI::App* cancel = app.add_subcommand("cancel", "Cancel a running job");
  cancel->add_option("job", a.job_id, "Job id (32 hex digits)")->required();
  AddAddress(cancel, a);
  cancel->footer("Examples:\n  ckpt-engine cancel <job-id>");
  out.push_back(cancel);
  CLI::App* dispose = app.add_subcommand("dispose", "Dispose (delete) a savepoint");
  dispose
      ->add_option("path", a.path,
                   "The savepoint directory (a relative one is taken from the current directory)")
      ->required();
  dispose->add_option("--timeout", a.timeout_s, "Seconds to wait for completion (default 600)");
  AddAddress(dispose, a);
  dispose->footer("Examples:\n  ckpt-engine dispose /tmp/savepoints/savepoint-1a2b3c-0123456789ab");
  out.push_back(dispose);
  return out;
}

int RunClientCommand(const CLI::App& cmd, const ClientArgs& a) {
  const std::string& n = cmd.get_name();
  if (n == "list") return List(a);
  if (n == "checkpoints") return Checkpoints(a);
  if (n == "checkpoint") return Checkpoint(a);
  if (n == "savepoint") return SavepointOrStop(a, false);
  if (n == "stop") return SavepointOrStop(a, true);
  if (n == "cancel") return Cancel(a);
  if (n == "dispose") return Dispose(a);
  return 2;
}

}  // namespace ckpt::engine::cli
