// What the verbs that write a new snapshot (relocate, remap, rescale-max-parallelism) share:
// the flags that name the output and ask for its validation report, and the parts of their
// reports that say where the output went, whether it was written, and why not. Stateless
// functions; thread-safe.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli_common.h"
#include "render.h"

namespace CLI {
class App;
}  // namespace CLI

namespace ckpt::cli {

// The run of relocate or rescale-max-parallelism: a usage error unless the --format is text or
// json; else `options` gets --dry-run, --verify and the progress, `call(options)` calls the ops
// function and `print(result, format, out)` renders its successful result (RunSnapshotWriter).
template <typename Options, typename Call, typename Print>
CommandResult RunWriteVerb(CliContext& ctx, std::string_view verb, bool dry_run, bool verify,
                           Options options, Call&& call, Print&& print) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, verb);
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  options.dry_run = dry_run;
  options.verify_output = verify;
  return RunSnapshotWriter(
      ctx,
      [&](base::Progress progress) {
        options.progress = std::move(progress);
        return call(options);
      },
      [&](const auto& result, std::ostream& out) { print(result, *format, out); });
}

// Adds the required `--to DIR` option (the output directory, which must not exist) to `sub`.
void AddOutputDirOption(CLI::App* sub, std::string* to);
// Adds the `--verify` flag (print the output's validation report) to `sub`.
void AddVerifyFlag(CLI::App* sub, bool* verify);

// Where a written snapshot came from and went, and whether it was written.
struct WriteOutcome {
  std::string_view source_dir;
  std::string_view output_dir;
  bool dry_run = false;
  bool written = false;
  std::string_view refused;  // why it was not written (empty: it was, or a dry run)
};
// The WriteOutcome of a RelocateResult, RemapResult or RescaleResult (views into `r`).
template <typename Result>
WriteOutcome OutcomeOf(const Result& r) {
  return {r.source_dir, r.output_dir, r.dry_run, r.written, r.refused};
}

// JSON members "source_dir", "output_dir".
JsonLine& AddDirsJson(const WriteOutcome& o, JsonLine& line);
// JSON members "dry_run", "written", "refused".
JsonLine& AddWrittenJson(const WriteOutcome& o, JsonLine& line);
// One JSON line {"warning":W} per warning.
void PrintWarningsJson(const std::vector<std::string>& warnings, std::ostream& out);

// Text: "`would` SOURCE -> OUTPUT" for a dry run, else with `done` once written, `not_done`
// otherwise (each phrase ends with its own space), without a newline.
void PrintWriteHeadline(const WriteOutcome& o, std::string_view would, std::string_view done,
                        std::string_view not_done, std::ostream& out);
// Text: a line "warning: W" per warning, then the refusal, if any, on a line of its own.
void PrintWarningsAndRefusal(const std::vector<std::string>& warnings, const WriteOutcome& o,
                             std::ostream& out);

}  // namespace ckpt::cli
