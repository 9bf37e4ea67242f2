// ckpt-tool remap SNAPSHOT --to OUT (--map OLD=NEW... | --against JOB.json [--by-name]):
// a new savepoint whose operator IDs match a new job version.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "ckpt/base/text_escape.h"
#include "ckpt/ops/mapping.h"
#include "ckpt/ops/operator_label.h"
#include "ckpt/ops/remap.h"
#include "cli_common.h"
#include "render.h"
#include "write_verb.h"

namespace ckpt::cli {
namespace {

struct RemapArgs {
  std::string snapshot;
  std::string to;
  std::vector<std::string> maps;
  std::string against;
  bool by_name = false;
  std::vector<std::string> uid_prefix;
  std::vector<std::string> uid_suffix;
  std::vector<std::string> drop;
  bool dry_run = false;
  bool verify = false;
  bool copy = false;
};

// True when the plan renames or drops an operator (else the output equals the input).
bool RemapChangesAnything(const ops::RemapResult& r) {
  for (const auto& e : r.operators) {
    if (e.action != ops::RemapAction::kKeep) return true;
  }
  return false;
}

// The one stderr line of a remap whose requests matched nothing: each unmatched request as the
// user wrote it, so a script that only watches stderr and the exit status sees why.
void PrintRemapUnmatchedError(const ops::RemapResult& r) {
  std::string list;
  for (const auto& u : r.unmatched) list += (list.empty() ? "" : ", ") + u;
  std::cerr << "ckpt-tool: remap: " << (r.dry_run ? "" : "nothing written: ")
            << base::EscapeForText(list) << " matched no operator of "
            << base::EscapeForText(r.source_dir) << "\n";
}

void Print(const ops::RemapResult& r, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    for (const auto& e : r.operators) {
      out << JsonLine()
                 .Str("action", ops::RemapActionName(e.action))
                 .Str("name", e.name)
                 .Str("old_id", e.old_id_hex)
                 .Str("old_uid", e.old_uid)
                 .Str("new_id", e.new_id_hex)
                 .Str("new_uid", e.new_uid)
                 .Str("reason", e.reason)
                 .Uint("subtasks_with_state", e.subtasks_with_state)
                 .Uint("states", e.states)
                 .Bool("coordinator_state", e.has_coordinator_state)
                 .Uint("state_bytes", e.state_bytes)
                 .Build()
          << "\n";
    }
    for (const auto& u : r.unmatched) out << JsonLine().Str("unmatched", u).Build() << "\n";
    PrintWarningsJson(r.warnings, out);
    RenderVerificationJson(r.verification, out);
    JsonLine summary;
    AddDirsJson(OutcomeOf(r), summary);
    AddWrittenJson(OutcomeOf(r), summary)
        .Uint("files", r.files)
        .Uint("total_bytes", r.total_bytes)
        .Uint("bytes_copied", r.bytes_copied)
        .Uint("files_linked", r.files_linked);
    out << summary.Build() << "\n";
    return;
  }
  PrintWriteHeadline(OutcomeOf(r), "remap plan (dry run: nothing written): ", "remapped ",
                     "not remapped ", out);
  out << "\n";
  TextTable t({"ACTION", "OPERATOR", "OLD ID", "OLD UID", "NEW ID", "NEW UID", "SUBTASKS",
               "COORDINATOR", "BYTES", "WHY"},
              {false, false, false, false, false, false, true, false, true, false});
  for (const auto& e : r.operators) {
    t.AddRow({std::string(ops::RemapActionName(e.action)),
              ops::OperatorLabel(e.name, e.old_uid, e.old_id_hex), e.old_id_hex,
              OrDash(e.old_uid), OrDash(e.new_id_hex), OrDash(e.new_uid),
              std::to_string(e.subtasks_with_state), e.has_coordinator_state ? "yes" : "no",
              SizeText(e.state_bytes), OrDash(e.reason)});
  }
  t.Print(out);
  for (const auto& u : r.unmatched) out << "unmatched: " << u << " matched no operator\n";
  if (r.unmatched.empty() && !RemapChangesAnything(r)) {
    out << "no operator changes: the output is a copy of the input\n";
  }
  PrintWarningsAndRefusal(r.warnings, OutcomeOf(r), out);
  if (r.dry_run && !r.unmatched.empty()) {
    // The real run refuses such a plan: it would write nothing, not the plan's files.
    out << "would write nothing: " << r.unmatched.size()
        << " request(s) matched no operator (dry run: nothing written)";
  } else if (r.dry_run) {
    out << "would write " << r.files << " files, " << SizeText(r.total_bytes)
        << " (dry run: nothing written)";
  } else if (r.written) {
    out << "output: " << r.files << " files, " << SizeText(r.total_bytes) << " ("
        << r.files_linked << " hard-linked, " << SizeText(r.bytes_copied) << " copied), "
        << r.copies_verified_by << " verified; _metadata written last";
  } else {
    out << "nothing written (the output would have " << r.files << " files, "
        << SizeText(r.total_bytes) << ")";
  }
  out << "\n";
  RenderVerificationText(r.verification, out);
}

CommandResult Run(const RemapArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "remap");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  ops::RemapOptions options;
  for (const auto& m : args.maps) {
    auto p = ops::ParseMapping(m, "--map");
    if (!p.ok()) return CommandResult::Usage(p.status().message());
    options.mappings.push_back(std::move(p).value());
  }
  for (const auto& m : args.uid_prefix) {
    auto p = ops::ParseUidRewrite(m, "--uid-prefix");
    if (!p.ok()) return CommandResult::Usage(p.status().message());
    options.uid_prefix_rewrites.push_back(std::move(p).value());
  }
  for (const auto& m : args.uid_suffix) {
    auto p = ops::ParseUidRewrite(m, "--uid-suffix");
    if (!p.ok()) return CommandResult::Usage(p.status().message());
    options.uid_suffix_rewrites.push_back(std::move(p).value());
  }
  auto where = ctx.LocateAll({args.snapshot, args.to, args.against});
  if (!where.ok()) return CommandResult::Error(where.status());
  options.against_job_path = where->paths[2];
  options.by_name = args.by_name;
  options.drop = args.drop;
  options.dry_run = args.dry_run;
  options.verify_output = args.verify;
  options.copy_files = args.copy;
  options.progress = ctx.MakeProgress(CliContext::ProgressUnit::kBytes);
  auto result = ops::Remap(*where->fs, where->paths[0], where->paths[1], options);
  ctx.EndProgress();
  if (!result.ok()) {
    if (result.status().code() == base::StatusCode::kInvalidArgument) {
      return CommandResult::Usage(result.status().ToString());
    }
    return CommandResult::Error(result.status());
  }
  Print(*result, *format, ctx.out());
  if (!result->unmatched.empty()) PrintRemapUnmatchedError(*result);
  // Something the user asked for did not happen, or the output will not restore cleanly.
  if (!result->unmatched.empty() || !result->warnings.empty()) return CommandResult::Findings();
  if (!result->dry_run && !result->written) return CommandResult::Findings();
  if (result->verification && ops::HasErrors(result->verification->findings)) {
    return CommandResult::Findings();
  }
  return CommandResult::Clean();
}

}  // namespace

void AddRemapCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RemapArgs>();
  CLI::App* sub = app.add_subcommand(
      "remap",
      "Write a NEW savepoint whose operator IDs match a new job version; every kind of state "
      "moves, coordinator state included. The input is never modified. If a --map, --drop, "
      "--uid-prefix or --uid-suffix matched no operator, the full plan is shown, nothing is "
      "written, stderr names the requests that matched nothing and the exit is 1 (also with "
      "--dry-run: a typo is caught before the real run); exit 1 also if the output still has "
      "state the new job cannot take");
  sub->add_option("snapshot", args->snapshot, "Snapshot directory or _metadata file")->required();
  AddOutputDirOption(sub, &args->to);
  auto* map = sub->add_option("--map", args->maps,
                              "OLD=NEW; OLD is an ID, uid or name (prefix id:/uid:/name: to "
                              "force), NEW an ID or uid. Repeatable");
  auto* against = sub->add_option("--against", args->against,
                                  "Job spec (JSON) to map onto: unchanged IDs stay, others match "
                                  "by uid rewrite, then by the spec's operator id");
  map->excludes(against);
  sub->add_flag("--by-name", args->by_name, "With --against: match by operator name")
      ->needs(against);
  sub->add_option("--uid-prefix", args->uid_prefix,
                  "OLD=NEW: replace the uid prefix OLD by NEW (\"=v2-\" adds one). Repeatable");
  sub->add_option("--uid-suffix", args->uid_suffix,
                  "OLD=NEW: replace the uid suffix OLD by NEW. Repeatable");
  sub->add_option("--drop", args->drop, "Leave out this operator's state (ID, uid or name)");
  sub->add_flag("--dry-run", args->dry_run, "Show the plan; write nothing");
  sub->add_flag("--copy", args->copy,
                "Copy the state files instead of hard-linking them (by default the output's files "
                "are hard links to the input's where the filesystem allows: no bytes written)");
  AddVerifyFlag(sub, &args->verify);
  SetExamples(sub,
              {"ckpt-tool remap sp-1 --to sp-1-v2 --map orders=orders-v2 --map enrich=enrich-v2",
               "ckpt-tool remap sp-1 --to sp-1-v2 --against job-v2.json --dry-run",
               "ckpt-tool remap sp-1 --to sp-1-v2 --against job-v2.json --by-name --drop old-sink",
               "ckpt-tool remap sp-1 --to sp-1-v2 --uid-prefix v1-=v2-"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return Run(*args, ctx); }; });
}

}  // namespace ckpt::cli
