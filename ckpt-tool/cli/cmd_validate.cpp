// ckpt-tool validate SNAPSHOT [--deep] [--against JOB.json] [-n] [--since OLDER]: integrity and
// restorability findings with stable rule IDs and a verdict; the snapshot's capability table in
// JSON and SARIF, and in text with --capabilities.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <optional>

#include "cli_common.h"
#include "ckpt/ops/uids.h"
#include "ckpt/ops/validate.h"
#include "render.h"
#include "validate_text.h"

namespace ckpt::cli {
namespace {

struct ValidateArgs {
  std::string path;
  ops::ValidateOptions options;
  bool strict = false;
  bool capabilities = false;
  bool no_capabilities = false;
  bool verbose = false;
  bool list_rules = false;
  std::string uids_file;
};

CommandResult ListRules(CliContext& ctx, OutputFormat format) {
  std::ostream& out = ctx.out();
  if (format == OutputFormat::kJson) {
    for (const auto& r : ops::AllRules()) {
      out << JsonLine()
                 .Str("type", "rule")
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

std::string JsonStrings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ",") + JsonQuoted(v[i]);
  return out + "]";
}

// The directory the report's relative file locations are relative to.
std::string SnapshotDir(const std::string& path) {
  const std::string metadata = "_metadata";
  if (path == metadata) return ".";
  if (path.size() > metadata.size() &&
      path.compare(path.size() - metadata.size(), metadata.size(), metadata) == 0 &&
      path[path.size() - metadata.size() - 1] == '/') {
    return path.substr(0, path.size() - metadata.size() - 1);
  }
  return path;
}

CommandResult RunValidate(const ValidateArgs& args, CliContext& ctx) {
  const bool sarif = ctx.global.format == "sarif";
  auto format = sarif ? base::Result<OutputFormat>(OutputFormat::kJson) : ctx.format();
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  if (args.list_rules) return ListRules(ctx, *format);
  if (args.path.empty()) return CommandResult::Usage("validate: SNAPSHOT is required");
  auto where = ctx.LocateSnapshot(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  ops::ValidateOptions options = args.options;
  if (!options.since.empty()) {
    // --since names a second snapshot: both on the one filesystem that reaches them.
    auto both = ctx.LocateAll({args.path, options.since});
    if (!both.ok()) return CommandResult::Error(both.status());
    where->fs = both->fs;
    where->path = both->paths[0];
    options.since = both->paths[1];
  }
  auto uids = ReadUidsOption(ctx, args.uids_file);
  if (!uids.ok()) return CommandResult::Error(uids.status());
  auto report = ops::Validate(*where->fs, where->path, options,
                              ctx.MakeProgress(CliContext::ProgressUnit::kBytes));
  ctx.EndProgress();
  if (!report.ok()) return CommandResult::Error(report.status());
  ops::NameFindingsByUids(*uids, &report->findings);
  const ops::ValidateReport& r = *report;
  std::ostream& out = ctx.out();
  const std::string base_dir = SnapshotDir(where->path);
  if (sarif) {
    RenderValidateSarif(r, base_dir, out);
  } else switch (*format) {
    case OutputFormat::kText: {
      ValidateTextOptions text;
      text.verbose = args.verbose;
      text.strict = args.strict;
      text.capabilities = args.capabilities;
      text.deep = args.options.deep;
      RenderValidateText(r, args.path, text, out);
      break;
    }
    case OutputFormat::kJson: {
      RenderFindingsJson(r.findings, out);
      for (const auto& u : r.not_checked) out << UncheckedJson(u) << "\n";
      // Always the whole table: a consumer of the report must not depend on a display flag.
      for (const auto& c : r.capabilities) {
        out << JsonLine()
                   .Str("type", "capability")
                   .Str("capability", c.operation)
                   .Bool("supported", c.supported)
                   .Bool("undetermined", c.undetermined)
                   .Str("note", c.note)
                   .Raw("blocked_by", JsonStrings(c.blocked_by))
                   .Raw("unverified_by", JsonStrings(c.unverified_by))
                   .Build()
            << "\n";
      }
      std::vector<std::string> unchecked_ids;
      for (const auto& u : r.not_checked) unchecked_ids.push_back(u.rule_id);
      unchecked_ids.erase(std::unique(unchecked_ids.begin(), unchecked_ids.end()),
                          unchecked_ids.end());
      out << JsonLine()
                 .Str("type", "checked_rules")
                 .Raw("checked", JsonStrings(r.checked_rules))
                 .Raw("not_checked", JsonStrings(unchecked_ids))
                 .Build()
          << "\n";
      size_t errors = 0, warnings = 0;
      for (const auto& f : r.findings) {
        errors += f.severity == ops::Severity::kError;
        warnings += f.severity == ops::Severity::kWarning;
      }
      out << JsonLine()
                 .Str("type", "summary")
                 .Str("summary", r.snapshot_type)
                 .Uint("errors", errors)
                 .Uint("warnings", warnings)
                 .Uint("findings", r.findings.size())
                 .Uint("not_checked", r.not_checked.size())
                 .Uint("files_checked", r.files_checked)
                 .Uint("bytes_checked", r.bytes_checked)
                 .Uint("records_checked", r.records_checked)
                 .Build()
          << "\n";
      break;
    }
    case OutputFormat::kJunit:
      RenderFindingsJunit(r.findings, r.checked_rules, "ckpt-tool validate", out, r.not_checked);
      break;
    case OutputFormat::kGithubActions: {
      // Findings of the restore rules point into the job spec, at their operator's line.
      std::optional<GithubSpecFile> spec;
      if (!args.options.against_job.empty()) {
        auto positions = ops::JobSpecOperatorPositions(*where->fs, args.options.against_job);
        spec = GithubSpecFile{args.options.against_job, {}};
        if (positions.ok()) spec->operators = std::move(positions).value();
      }
      RenderFindingsGithub(r.findings, out, base_dir, r.not_checked, spec ? &*spec : nullptr);
      break;
    }
  }
  bool fail = ops::HasErrors(r.findings);
  if (args.strict) {
    for (const auto& f : r.findings) fail |= f.severity == ops::Severity::kWarning;
    fail |= !r.not_checked.empty();
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
  sub->add_option("--since", args->options.since,
                  "The snapshot this one replaces: warn where restoring this one re-reads a "
                  "source from an earlier position (CKPT-R001)");
  sub->add_flag("-n,--allow-non-restored-state", args->options.allow_non_restored_state,
                "With --against: state without a matching operator is dropped, not an error");
  sub->add_flag("--strict", args->strict,
                "Exit 1 on warnings too, and when a rule could not be checked on this host");
  auto* caps = sub->add_flag("--capabilities", args->capabilities,
                             "Text: also print the table of supported operations (JSON and SARIF "
                             "always carry it)");
  sub->add_flag("--no-capabilities", args->no_capabilities,
                "Text: no table of supported operations (the default; kept for scripts)")
      ->excludes(caps);
  sub->add_flag("-v,--verbose", args->verbose,
                "Text: list every finding, not only those that fail the check (errors; with "
                "--strict, warnings)");
  AddUidsOption(sub, &args->uids_file);
  SetExamples(sub,
              {"ckpt-tool validate /var/savepoints/savepoint-3f2a1b-0c9d8e7f6a5b",
               "ckpt-tool validate --deep chk-42 --verbose --capabilities",
               "ckpt-tool validate sp --against new-job.json --format junit -o validate.xml",
               "ckpt-tool validate sp --against new-job.json -n --format github-actions",
               "ckpt-tool validate chk-41 --since chk-42",
               "ckpt-tool validate sp --against new-job.json --format sarif -o validate.sarif",
               "Text output: the findings that fail the check, a count of the others, and "
               "'verdict:' on the restore (blocked by which rules, or undetermined).",
               "Exit status: 0 no errors, 1 errors found (or, with --strict, warnings or rules "
               "that could not be checked here), 2 usage or I/O error. A rule that cannot be "
               "checked on this host (e.g. the sink's output directory is elsewhere) is reported "
               "as not checked in every format, never as passed. Rules: docs/validate-rules.md"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunValidate(*args, ctx); }; });
}

}  // namespace ckpt::cli
