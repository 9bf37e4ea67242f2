// ckpt-tool validate SNAPSHOT [--deep] [--against JOB.json] [-n]: integrity and restorability
// findings with stable rule IDs, plus the snapshot type's capability table.
#include <CLI/CLI.hpp>
#include <memory>

#include "cli_common.h"
#include "ckpt/ops/validate.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct ValidateArgs {
  std::string path;
  ops::ValidateOptions options;
  bool strict = false;
  bool no_capabilities = false;
  bool list_rules = false;
};

CommandResult ListRules(CliContext& ctx, OutputFormat format) {
  std::ostream& out = ctx.out();
  if (format == OutputFormat::kJson) {
    for (const auto& r : ops::AllRules()) {
      out << JsonLine()
                 .Str("rule", r.id)
                 .Str("severity", ops::SeverityName(r.severity))
                 .Str("what", r.what)
                 .Str("hint", r.hint)
                 .Build()
          << "\n";
    }
    return CommandResult::Clean();
  }
  TextTable t({"RULE", "SEVERITY", "WHAT"});
  for (const auto& r : ops::AllRules()) {
    t.AddRow({r.id, std::string(ops::SeverityName(r.severity)), r.what});
  }
  t.Print(out);
  return CommandResult::Clean();
}

void PrintCapabilitiesText(const ops::ValidateReport& r, std::ostream& out) {
  out << "\nSupported operations for a " << r.snapshot_type << ":\n";
  TextTable t({"OPERATION", "SUPPORTED", "NOTE"});
  for (const auto& c : r.capabilities) {
    t.AddRow({c.operation, c.supported ? "yes" : "no", c.note.empty() ? "" : c.note});
  }
  t.Print(out);
}

CommandResult RunValidate(const ValidateArgs& args, CliContext& ctx) {
  auto format = ctx.format();
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  if (args.list_rules) return ListRules(ctx, *format);
  if (args.path.empty()) return CommandResult::Usage("validate: SNAPSHOT is required");
  auto report = ops::Validate(*ctx.fs, args.path, args.options, ctx.MakeProgress());
  ctx.EndProgress();
  if (!report.ok()) return CommandResult::Error(report.status());
  const ops::ValidateReport& r = *report;
  std::ostream& out = ctx.out();
  switch (*format) {
    case OutputFormat::kText:
      out << "validate " << args.path;
      if (!r.snapshot_type.empty()) out << ": " << r.snapshot_type;
      out << "\n";
      RenderFindingsText(r.findings, out);
      out << r.files_checked << " file(s), " << r.bytes_checked << " bytes checked";
      if (args.options.deep) out << ", " << r.records_checked << " record(s) decoded";
      out << "\n";
      if (!args.no_capabilities && !r.capabilities.empty()) PrintCapabilitiesText(r, out);
      break;
    case OutputFormat::kJson: {
      RenderFindingsJson(r.findings, out);
      if (!args.no_capabilities) {
        for (const auto& c : r.capabilities) {
          out << JsonLine()
                     .Str("capability", c.operation)
                     .Bool("supported", c.supported)
                     .Str("note", c.note)
                     .Build()
              << "\n";
        }
      }
      size_t errors = 0, warnings = 0;
      for (const auto& f : r.findings) {
        errors += f.severity == ops::Severity::kError;
        warnings += f.severity == ops::Severity::kWarning;
      }
      out << JsonLine()
                 .Str("summary", r.snapshot_type)
                 .Uint("errors", errors)
                 .Uint("warnings", warnings)
                 .Uint("findings", r.findings.size())
                 .Uint("files_checked", r.files_checked)
                 .Uint("bytes_checked", r.bytes_checked)
                 .Uint("records_checked", r.records_checked)
                 .Build()
          << "\n";
      break;
    }
    case OutputFormat::kJunit:
      RenderFindingsJunit(r.findings, r.checked_rules, "ckpt-tool validate", out);
      break;
    case OutputFormat::kGithubActions:
      RenderFindingsGithub(r.findings, out);
      break;
  }
  bool fail = ops::HasErrors(r.findings);
  if (args.strict) {
    for (const auto& f : r.findings) fail |= f.severity == ops::Severity::kWarning;
  }
  return fail ? CommandResult::Findings() : CommandResult::Clean();
}

}  // namespace

void AddValidateCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Check a snapshot's integrity (and with --against, whether a new job can restore it)");
  sub->add_option("snapshot", args->path, "Snapshot directory or its _metadata file");
  sub->add_flag("--list-rules", args->list_rules, "Print every rule ID with severity and meaning");
  sub->add_flag("--deep", args->options.deep,
                "Decode every record and check each key lies in its key group");
  sub->add_option("--against", args->options.against_job,
                  "Job spec (JSON) to check restorability against (Flink's restore rules)")
      ->check(CLI::ExistingFile);
  sub->add_flag("-n,--allow-non-restored-state", args->options.allow_non_restored_state,
                "With --against: state without a matching operator is dropped, not an error");
  sub->add_flag("--strict", args->strict, "Exit 1 on warnings too");
  sub->add_flag("--no-capabilities", args->no_capabilities,
                "Do not print the table of supported operations");
  SetExamples(sub,
              {"ckpt-tool validate /var/savepoints/savepoint-3f2a1b-0c9d8e7f6a5b",
               "ckpt-tool validate --deep chk-42",
               "ckpt-tool validate sp --against new-job.json --format junit -o validate.xml",
               "ckpt-tool validate sp --against new-job.json -n --format github-actions",
               "Exit status: 0 no errors, 1 errors found (or warnings with --strict), 2 usage or "
               "I/O error. Rules: docs/validate-rules.md"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunValidate(*args, ctx); }; });
}

}  // namespace ckpt::cli
