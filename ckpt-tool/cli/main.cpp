// ckpt-tool: offline inspection, validation and repair of checkpoints and savepoints.
// main parses arguments (CLI11), runs the one command the user chose, and alone maps its outcome
// to the exit code: 0 clean, 1 findings or differences, 2 usage or I/O error.
#include <unistd.h>

#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>

#include "ckpt/cli_support/cli_help.h"
#include "ckpt/cli_support/style.h"
#include "ckpt/cli_support/suggest.h"
#include "ckpt/s3/s3_fs.h"
#include "ckpt/version.h"
#include "cli_common.h"
#include "ckpt/ops/logging.h"
#include "render.h"

namespace ckpt::cli {
// Verb registration: one declaration and one table entry per cmd_<verb>.cpp.
void AddLsCommand(CLI::App& app, CliContext& ctx);
void AddShowCommand(CLI::App& app, CliContext& ctx);
void AddFilesCommand(CLI::App& app, CliContext& ctx);
void AddDumpCommand(CLI::App& app, CliContext& ctx);
void AddValidateCommand(CLI::App& app, CliContext& ctx);
void AddStatsCommand(CLI::App& app, CliContext& ctx);
void AddHistoryCommand(CLI::App& app, CliContext& ctx);
void AddGrowthCommand(CLI::App& app, CliContext& ctx);
void AddDiagnoseCommand(CLI::App& app, CliContext& ctx);
void AddPositionsCommand(CLI::App& app, CliContext& ctx);
void AddCompletionCommand(CLI::App& app, CliContext& ctx);
void AddHelpCommand(CLI::App& app, CliContext& ctx);
// ops-write verbs (helper t2) register below this line.
void AddDiffCommand(CLI::App& app, CliContext& ctx);
void AddPruneCommand(CLI::App& app, CliContext& ctx);
void AddRemapCommand(CLI::App& app, CliContext& ctx);
void AddRelocateCommand(CLI::App& app, CliContext& ctx);
void AddRescaleCommand(CLI::App& app, CliContext& ctx);
}  // namespace ckpt::cli

namespace {

using Registrar = void (*)(CLI::App&, ckpt::cli::CliContext&);
constexpr Registrar kVerbs[] = {
    &ckpt::cli::AddLsCommand,
    &ckpt::cli::AddShowCommand,
    &ckpt::cli::AddFilesCommand,
    &ckpt::cli::AddDumpCommand,
    &ckpt::cli::AddValidateCommand,
    &ckpt::cli::AddStatsCommand,
    &ckpt::cli::AddHistoryCommand,
    &ckpt::cli::AddGrowthCommand,
    &ckpt::cli::AddDiagnoseCommand,
    &ckpt::cli::AddPositionsCommand,
    // ops-write verbs (helper t2) go here.
    &ckpt::cli::AddDiffCommand,
    &ckpt::cli::AddPruneCommand,
    &ckpt::cli::AddRemapCommand,
    &ckpt::cli::AddRelocateCommand,
    &ckpt::cli::AddRescaleCommand,
    &ckpt::cli::AddHelpCommand,
    &ckpt::cli::AddCompletionCommand,  // last: it walks the verbs registered before it
};

ckpt::base::CancelToken* g_cancel = nullptr;

extern "C" void OnInterrupt(int /*sig*/) {
  if (g_cancel != nullptr) g_cancel->Cancel();
}

int ExitCode(ckpt::cli::Outcome outcome) {
  switch (outcome) {
    case ckpt::cli::Outcome::kClean: return 0;
    case ckpt::cli::Outcome::kFindings: return 1;
    case ckpt::cli::Outcome::kError: return 2;
  }
  return 2;
}

std::string VerbName(const CLI::App& app) {
  const auto subs = app.get_subcommands();
  return subs.empty() ? std::string() : subs.front()->get_name();
}

// With a machine-readable --format, a usage error still yields a well-formed report (on stdout
// or -o FILE, as the report would have been) besides the stderr line.
void EmitErrorReport(ckpt::cli::CliContext& ctx, const CLI::App& app, const std::string& error) {
  if (ctx.global.format == "text") return;
  if (!ctx.OpenOutput().ok()) return;
  ckpt::cli::RenderErrorReport(ctx.global.format, VerbName(app), error, ctx.out());
  (void)ctx.CloseOutput();
}

}  // namespace

int main(int argc, char** argv) {
  namespace clistyle = ckpt::clistyle;
  ckpt::ops::SilenceLibraryLogs();  // only ops' own messages reach stderr
  ckpt::s3::RegisterS3Schemes();    // s3://, s3a://, s3p:// locations (format/s3/README.md)
  using ckpt::cli::CliContext;
  CliContext ctx;
  CLI::App app{"ckpt-tool: inspect, validate and repair stream-processing checkpoints and "
               "savepoints offline (no JVM, no cluster)",
               "ckpt-tool"};
  // Help wrapped at 80 columns; each verb's --help lists the global options it accepts. Set
  // before the verbs are added (subcommands copy the formatter).
  auto formatter = std::make_shared<ckpt::clihelp::HelpFormatter>();
  formatter->set_extra_section(
      [](const CLI::App* verb) { return ckpt::cli::GlobalOptionsSection(verb); });
  app.formatter(formatter);
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", std::string("ckpt-tool ") + ckpt::kVersion);
  app.add_option("--format", ctx.global.format,
                 "Output format: text, json (JSON lines / protobuf JSON), junit, "
                 "github-actions, sarif (validate only)")
      ->check(CLI::IsMember({"text", "json", "junit", "github-actions", "sarif"}))
      ->default_str("text");
  app.add_option("-o,--output", ctx.global.output, "Write the report to FILE instead of stdout");
  app.add_flag("-q,--quiet", ctx.global.quiet, "No progress bar or logs on stderr");
  app.add_option("--color", ctx.global.color, std::string(clistyle::kColorOptionHelp))
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
  app.add_flag("--bytes", ctx.global.bytes,
               "Sizes in text output as exact byte counts instead of KiB/MiB/GiB");
  ctx.root = &app;
  for (Registrar add : kVerbs) add(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped verb or option names the closest known ones.
    const std::string unknown =
        ckpt::clihelp::UnknownNameMessage(app, std::vector<std::string>(argv + 1, argv + argc), e);
    if (!unknown.empty()) {
      std::cerr << "ckpt-tool: " << unknown << "\n";
      EmitErrorReport(ctx, app, unknown);
      return 2;
    }
    // --help and --version are "errors" with exit code 0 in CLI11; every real parse error is a
    // usage error (2).
    const int code = app.exit(e);
    if (code != 0) EmitErrorReport(ctx, app, e.what());
    return code == 0 ? 0 : 2;
  }
  if (!ctx.run) return 2;
  const clistyle::ColorMode color =
      clistyle::ParseColorMode(ctx.global.color).value_or(clistyle::ColorMode::kAuto);
  const bool to_stdout = ctx.global.output.empty() || ctx.global.output == "-";
  ckpt::cli::SetTextStyle(
      {.color = ctx.global.format == "text" &&
                clistyle::ColorEnabled(color, to_stdout ? STDOUT_FILENO : -1),
       .exact_bytes = ctx.global.bytes});
  const bool color_errors = clistyle::ColorEnabled(color, STDERR_FILENO);

  g_cancel = &ctx.cancel;
  std::signal(SIGINT, OnInterrupt);

  ckpt::base::Status opened = ctx.OpenOutput();
  if (!opened.ok()) {
    std::cerr << clistyle::Paint("ckpt-tool: " + opened.ToString(), clistyle::Tone::kError,
                                 color_errors)
              << "\n";
    return 2;
  }
  ckpt::cli::CommandResult result = ctx.run();
  ctx.EndProgress();
  if (result.outcome == ckpt::cli::Outcome::kError) {
    ckpt::cli::RenderErrorReport(ctx.global.format, VerbName(app), result.error, ctx.out());
  }
  ckpt::base::Status closed = ctx.CloseOutput();
  if (!closed.ok() && result.outcome != ckpt::cli::Outcome::kError) {
    result = ckpt::cli::CommandResult::Error(closed);
  }
  if (result.outcome == ckpt::cli::Outcome::kError && !result.error.empty()) {
    std::cerr << clistyle::Paint("ckpt-tool: " + result.error, clistyle::Tone::kError,
                                 color_errors)
              << "\n";
  }
  return ExitCode(result.outcome);
}
