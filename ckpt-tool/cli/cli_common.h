// Shared frame of the ckpt-tool CLI: global options, the per-run context each verb's command
// binds to, outcomes that main maps to exit codes, and output/progress plumbing.
// Registration pattern: each cmd_<verb>.cpp defines
//     void Add<Verb>Command(CLI::App& app, CliContext& ctx);
// which adds a subcommand, binds its flags to an args struct it owns (a shared_ptr captured by
// the callback) and, in the subcommand's callback, sets `ctx.run` to a function that calls ONE
// ops function and renders the result to ctx.out(). main.cpp lists the Add* functions; main alone
// turns the returned Outcome into an exit code. Single-threaded except the progress callback.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/fs_resolver.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/base/status.h"
#include "ckpt/ops/finding.h"

namespace CLI {
class App;
}  // namespace CLI
namespace ckpt::clihelp {
struct ExtraSection;
}  // namespace ckpt::clihelp

namespace ckpt::cli {

enum class OutputFormat { kText, kJson, kJunit, kGithubActions };

// What a command run amounted to; main maps it: kClean 0, kFindings 1, kError 2.
enum class Outcome { kClean, kFindings, kError };

struct CommandResult {
  Outcome outcome = Outcome::kClean;
  std::string error;  // kError: printed to stderr by main as "ckpt-tool: <error>"

  static CommandResult Clean() { return {}; }
  static CommandResult Findings() { return {Outcome::kFindings, {}}; }
  // kError from a failed status (message carries code and context, escaped for a terminal:
  // base::EscapeForText).
  static CommandResult Error(const base::Status& status);
  static CommandResult Usage(std::string message) { return {Outcome::kError, std::move(message)}; }
};

// Options every verb accepts (registered on the root app; subcommands fall through to them).
struct GlobalOptions {
  std::string format = "text";  // --format text|json|junit|github-actions. Default: text
  std::string output;           // -o FILE. Default: stdout
  bool quiet = false;           // -q: no progress bar, no logs. Default: off
  std::string color = "auto";   // --color auto|always|never (clistyle::ColorMode). Default: auto
  bool bytes = false;           // --bytes: text sizes as exact byte counts. Default: human sizes
};

// The locations one command was given (CliContext::LocateAll), on their one filesystem.
struct Located {
  base::Fs* fs = nullptr;          // never null on success
  std::vector<std::string> paths;  // one per argument, in order, as `fs` names them
};

class CliContext {
 public:
  CliContext();
  ~CliContext();
  CliContext(const CliContext&) = delete;
  CliContext& operator=(const CliContext&) = delete;

  GlobalOptions global;
  // The filesystem of the CLI's own local outputs (-o FILE, help --man-dir). Snapshot and
  // output locations named on the command line go through Locate/LocateAll instead.
  base::Fs* fs = &base::Fs::Default();
  // Set by the chosen subcommand's callback during parsing; main runs it once.
  std::function<CommandResult()> run;
  // The root app (for completion and help text).
  CLI::App* root = nullptr;
  // Cancelled by SIGINT (installed by main) so long ops stop cleanly.
  base::CancelToken cancel;

  // The filesystem a location named on the command line (a snapshot, a checkpoint root) lives
  // on and its path there, by base::ResolveFs, the one place that decides it: a bare path or a
  // file: URI is on the POSIX filesystem, its path unchanged or with the scheme removed.
  // InvalidArgument naming the scheme and the built-in ones for any other scheme.
  base::Result<base::ResolvedLocation> Locate(std::string_view arg) const;
  // As Locate for a verb that takes one snapshot: InvalidArgument (exit 2) naming what `arg`
  // is instead (a checkpoint root, a directory with no snapshot, a state file), with the path
  // the user most likely meant (ops::CheckSnapshotTarget).
  base::Result<base::ResolvedLocation> LocateSnapshot(std::string_view arg) const;
  // As Locate for the several locations one operation reads and writes through one Fs (a
  // snapshot and its --to, the two sides of diff). An empty argument (an option not given)
  // stays "" and does not count. Arguments on different filesystems (a snapshot on S3, --to a
  // local directory) share base::ResolvingFs(), their paths the arguments as given.
  // InvalidArgument as Locate.
  base::Result<Located> LocateAll(std::initializer_list<std::string_view> args) const;

  // The parsed --format. InvalidArgument for an unknown name.
  base::Result<OutputFormat> format() const;
  // Like format(), but InvalidArgument unless the format is one of `allowed` (a verb whose
  // output is not findings supports only text and json).
  base::Result<OutputFormat> FormatAmong(std::initializer_list<OutputFormat> allowed,
                                         std::string_view verb) const;

  // The report stream: stdout, or -o FILE written through Fs (opened by OpenOutput).
  std::ostream& out();
  // Opens -o FILE if given. IOError if it cannot be created.
  base::Status OpenOutput();
  // Flushes and closes -o FILE. IOError if a write failed.
  base::Status CloseOutput();

  // Progress for long work: one updating line on stderr (done/total, rate, ETA and the path at
  // work, elided in its middle to fit the terminal) when stderr is a TTY, the report is text
  // and not --quiet; never in a pipe. `unit` says what the ops function counts (kBytes: sizes
  // and a byte rate). Always wired to `cancel`.
  enum class ProgressUnit { kItems, kBytes };
  base::Progress MakeProgress(ProgressUnit unit = ProgressUnit::kItems);
  // Whether the report goes to stdout and stdout is a terminal (where a verb that streams its
  // report must not draw a progress line between its lines).
  bool ReportOnTerminal() const;
  // Clears the progress line (call before printing results).
  void EndProgress();

 private:
  struct OutputState;
  std::unique_ptr<OutputState> output_;
  size_t bar_width_ = 0;  // columns of the progress line on screen; 0: none shown
};

// The run of a verb that writes a snapshot and can --verify it (relocate, remap,
// rescale-max-parallelism): `op(progress)` calls its ops function, `print(result, out)` renders a
// successful result; the outcome is kFindings when the --verify report has an error.
template <typename Op, typename Print>
CommandResult RunSnapshotWriter(CliContext& ctx, Op&& op, Print&& print) {
  auto result = op(ctx.MakeProgress(CliContext::ProgressUnit::kBytes));
  ctx.EndProgress();
  if (!result.ok()) return CommandResult::Error(result.status());
  print(*result, ctx.out());
  if (result->verification && ops::HasErrors(result->verification->findings)) {
    return CommandResult::Findings();
  }
  return CommandResult::Clean();
}

// Adds `--uids FILE` to a verb that names operators: the uids of the user's job (one per line,
// or a job spec) that name the operators of a snapshot whose metadata records no uid (Apache
// Flink) by their uid hash (ops::LoadOptions::uids).
void AddUidsOption(CLI::App* sub, std::string* file);
// The uids in --uids FILE (ops::ParseUidList); empty when `file` is empty. IOError / NotFound /
// InvalidArgument naming the file.
base::Result<std::vector<std::string>> ReadUidsOption(const CliContext& ctx,
                                                      const std::string& file);

// Adds examples to a subcommand's --help footer.
void SetExamples(CLI::App* sub, std::vector<std::string> examples);

std::string_view OutputFormatName(OutputFormat f);

// Table cells: `s`, or `fallback` when it is empty.
inline std::string OrDash(const std::string& s, const char* fallback = "-") {
  return s.empty() ? fallback : s;
}

// `v` joined with `sep` between the items.
std::string Join(const std::vector<std::string>& v, std::string_view sep);

// The --format values `verb` supports (what its command passes to FormatAmong; sarif for
// validate only). Empty for verbs whose output has no format (help, completion).
// Shown in the verb's --help and man page.
std::vector<std::string> VerbFormats(std::string_view verb);

// The "Global options" section of a verb's --help and man page: --format with the values the
// verb supports, -o, -q. Defined in cmd_help.cpp.
clihelp::ExtraSection GlobalOptionsSection(const CLI::App* verb);

}  // namespace ckpt::cli
