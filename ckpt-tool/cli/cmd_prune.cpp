// ckpt-tool prune ROOT [--keep-last N] [--older-than DURATION] [--deep] [--dry-run | --yes
// [--verify]] [--verbose]: delete subsumed checkpoints and orphaned files, showing the plan
// first (each snapshot's verdict and what is freed per category; every step and kept file with
// --verbose); with --verify, check afterwards that what was kept still opens and restores.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "ckpt/ops/prune.h"
#include "cli_common.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct PruneArgs {
  std::string root;
  uint32_t keep_last = 1;
  std::string older_than;
  std::string min_age;
  bool deep = false;
  bool dry_run = false;
  bool yes = false;
  bool verify = false;
  bool verbose = false;
};

// What the removals of one category free: files removed and their bytes.
struct PruneFreed {
  size_t files = 0;
  uint64_t bytes = 0;
};

// The category of a removed file: the snapshot whose directory holds it decides.
std::string_view PruneCategoryOf(const ops::PrunePlan& plan, const std::string& path) {
  for (const auto& s : plan.snapshots) {
    if (path.size() <= s.path.size() || path.compare(0, s.path.size(), s.path) != 0 ||
        path[s.path.size()] != '/') {
      continue;
    }
    if (s.verdict == ops::SnapshotVerdict::kSubsumed) return "subsumed checkpoints";
    if (s.verdict == ops::SnapshotVerdict::kIncomplete) return "incomplete checkpoints";
  }
  return "orphaned files";
}

// The text summary: snapshots deleted and kept by verdict, then the files and bytes freed per
// category by the first `steps` steps (all of them for a plan), and the total.
void PrintPruneSummary(const ops::PrunePlan& plan, bool executed, size_t steps, std::ostream& out) {
  std::map<std::string_view, size_t> kept_by_verdict;
  size_t deleted = 0;
  for (const auto& s : plan.snapshots) {
    if (s.verdict == ops::SnapshotVerdict::kSubsumed) {
      ++deleted;
    } else {
      ++kept_by_verdict[ops::SnapshotVerdictName(s.verdict)];
    }
  }
  std::string kept;
  for (const auto& [verdict, n] : kept_by_verdict) {
    kept += (kept.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(verdict);
  }
  out << "\nsnapshots: " << deleted << (executed ? " deleted" : " to delete") << " (subsumed), "
      << plan.snapshots.size() - deleted << " kept" << (kept.empty() ? "" : " (" + kept + ")")
      << "\n";
  std::map<std::string_view, PruneFreed> freed;
  PruneFreed total;
  size_t aborted = 0;
  for (size_t i = 0; i < steps && i < plan.steps.size(); ++i) {
    const auto& st = plan.steps[i];
    if (st.action == ops::PruneAction::kAbortUpload) ++aborted;
    if (st.action != ops::PruneAction::kRemoveFile) continue;
    PruneFreed& f = freed[PruneCategoryOf(plan, st.path)];
    ++f.files;
    f.bytes += st.size_bytes;
    ++total.files;
    total.bytes += st.size_bytes;
  }
  if (!freed.empty()) {
    TextTable t({executed ? "FREED" : "TO FREE", "FILES", "BYTES"}, {false, true, true});
    for (const auto& [category, f] : freed) {
      t.AddRow({std::string(category), std::to_string(f.files), SizeText(f.bytes)});
    }
    t.Print(out);
  }
  out << (executed ? "freed " : "would free ") << total.files << " files, "
      << SizeText(total.bytes) << " in " << std::min(steps, plan.steps.size()) << " steps; "
      << plan.kept.size() << " files kept\n";
  if (aborted > 0) {
    out << aborted << (executed ? " open multipart uploads aborted" : " open multipart uploads to abort")
        << " (their parts' size is not listed by the store)\n";
  }
}

// The --verify report: one line per kept snapshot checked (nothing without --verify).
void PrintPruneVerificationJson(const std::optional<ops::PruneVerification>& v, std::ostream& out) {
  if (!v) return;
  for (const auto& s : v->snapshots) {
    JsonLine line;
    line.Str("verified", s.path)
        .Str("verdict", ops::SnapshotVerdictName(s.verdict))
        .Bool("opens", s.opens);
    if (s.restorable) {
      line.Bool("restorable", *s.restorable);
    } else {
      line.Null("restorable");
    }
    if (!s.problem.empty()) line.Str("problem", s.problem);
    out << line.Build() << "\n";
  }
}

void PrintPruneVerificationText(const std::optional<ops::PruneVerification>& v, std::ostream& out) {
  if (!v) return;
  out << "\nverified " << v->snapshots.size() << " kept snapshots";
  if (v->snapshots.empty()) out << " (nothing was deleted in their jobs)";
  out << "\n";
  if (v->snapshots.empty()) return;
  TextTable t({"SNAPSHOT", "VERDICT", "OPENS", "RESTORES", "PROBLEM"});
  t.SetVerdictColumn(2);
  t.SetVerdictColumn(3);
  for (const auto& s : v->snapshots) {
    t.AddRow({s.path, std::string(ops::SnapshotVerdictName(s.verdict)), s.opens ? "yes" : "no",
              s.restorable ? (*s.restorable ? "yes" : "no") : "-", OrDash(s.problem)});
  }
  t.Print(out);
}

void PrintJson(const ops::PrunePlan& plan, bool executed, size_t steps_done, std::ostream& out) {
  for (const auto& s : plan.snapshots) {
    out << JsonLine()
               .Str("snapshot", s.path)
               .Int("checkpoint_id", s.checkpoint_id)
               .Str("verdict", ops::SnapshotVerdictName(s.verdict))
               .Str("reason", s.reason)
               .Build()
        << "\n";
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& st = plan.steps[i];
    JsonLine line;
    line.Uint("step", i + 1)
        .Str("action", ops::PruneActionName(st.action))
        .Str("path", st.path)
        .Uint("size_bytes", st.size_bytes)
        .Str("reason", st.reason)
        .Bool("done", executed && i < steps_done);
    if (st.action == ops::PruneAction::kAbortUpload) line.Str("upload_id", st.upload_id);
    out << line.Build() << "\n";
  }
  for (const auto& k : plan.kept) {
    out << JsonLine().Str("kept", k.path).Str("reason", k.reason).Build() << "\n";
  }
  for (const auto& n : plan.notes) out << JsonLine().Str("note", n).Build() << "\n";
  out << JsonLine()
             .Str("root", plan.root)
             .Bool("dry_run", !executed)
             .Uint("steps", plan.steps.size())
             .Uint("steps_done", steps_done)
             .Uint("files_to_delete", plan.files_to_delete)
             .Uint("bytes_to_free", plan.bytes_to_free)
             .Uint("uploads_to_abort", plan.uploads_to_abort)
             .Build()
      << "\n";
}

void PrintPruneFileLists(const ops::PrunePlan& plan, std::ostream& out);

void PrintText(const ops::PrunePlan& plan, bool executed, size_t steps_done, bool verbose,
               std::ostream& out) {
  out << "prune " << plan.root
      << (executed ? "" : " (dry run: nothing deleted; pass --yes to delete)") << "\n\n";
  TextTable snaps({"SNAPSHOT", "ID", "VERDICT", "WHY"}, {false, true, false, false});
  for (const auto& s : plan.snapshots) {
    snaps.AddRow({s.path, s.checkpoint_id < 0 ? "-" : std::to_string(s.checkpoint_id),
                  std::string(ops::SnapshotVerdictName(s.verdict)), s.reason});
  }
  if (snaps.empty()) {
    out << "no checkpoints or savepoints found\n";
  } else {
    snaps.Print(out);
  }
  PrintPruneSummary(plan, executed, executed ? steps_done : plan.steps.size(), out);
  if (!verbose) {
    if (!plan.steps.empty() || !plan.kept.empty()) {
      out << "(--verbose lists every step and every kept file)\n";
    }
  } else {
    PrintPruneFileLists(plan, out);
  }
  for (const auto& n : plan.notes) out << "note: " << n << "\n";
  if (executed && steps_done < plan.steps.size()) {
    out << "stopped after " << steps_done << " of " << plan.steps.size() << " steps\n";
  }
}

// --verbose: every step of the plan and every kept file with its reason.
void PrintPruneFileLists(const ops::PrunePlan& plan, std::ostream& out) {
  out << "\n";
  TextTable steps({"STEP", "ACTION", "PATH", "SIZE", "WHY"}, {true, false, false, true, false});
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& st = plan.steps[i];
    steps.AddRow({std::to_string(i + 1), std::string(ops::PruneActionName(st.action)), st.path,
                  st.action == ops::PruneAction::kRemoveFile ? SizeText(st.size_bytes) : "",
                  st.reason});
  }
  if (!steps.empty()) steps.Print(out);
  if (!plan.kept.empty()) {
    out << "\nkept " << plan.kept.size() << " files\n";
    TextTable kept({"PATH", "WHY"});
    for (const auto& k : plan.kept) kept.AddRow({k.path, k.reason});
    kept.Print(out);
  }
}

CommandResult Run(const PruneArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "prune");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  if (args.yes && args.dry_run) return CommandResult::Usage("--yes and --dry-run are exclusive");
  if (args.verify && !args.yes) {
    return CommandResult::Usage("--verify checks what a prune left behind: it needs --yes");
  }
  ops::PruneOptions options;
  options.keep_last = args.keep_last;
  options.deep = args.deep;
  options.verify_output = args.verify;
  if (!args.older_than.empty()) {
    auto d = ops::ParseDuration(args.older_than);
    if (!d.ok()) return CommandResult::Usage(d.status().message());
    options.older_than_ms = *d;
  }
  if (!args.min_age.empty()) {
    auto d = ops::ParseDuration(args.min_age);
    if (!d.ok()) return CommandResult::Usage(d.status().message());
    options.min_orphan_age_ms = *d;
  }
  auto where = ctx.Locate(args.root);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto plan = ops::PlanPrune(*where->fs, where->path, options);
  if (!plan.ok()) {
    if (plan.status().code() == base::StatusCode::kInvalidArgument) {
      return CommandResult::Usage(plan.status().message());
    }
    return CommandResult::Error(plan.status());
  }
  size_t done = 0;
  base::Status executed;
  std::optional<ops::PruneVerification> verification;
  if (args.yes) {
    ops::PruneVerification verified;
    executed = ops::ExecutePrune(*where->fs, *plan, ctx.MakeProgress(), &done,
                                 args.verify ? &verified : nullptr);
    ctx.EndProgress();
    // Only a verification that ran (every step done) is reported.
    if (args.verify && done == plan->steps.size() &&
        (executed.ok() || executed.code() == base::StatusCode::kCorruption)) {
      verification = std::move(verified);
    }
  }
  if (*format == OutputFormat::kJson) {
    PrintJson(*plan, args.yes, done, ctx.out());
    PrintPruneVerificationJson(verification, ctx.out());
  } else {
    PrintText(*plan, args.yes, done, args.verbose, ctx.out());
    PrintPruneVerificationText(verification, ctx.out());
  }
  // As the --verify of remap, relocate and rescale: a verification that found damage is a
  // finding (exit 1), shown in the report.
  if (verification && !verification->ok()) return CommandResult::Findings();
  if (!executed.ok()) return CommandResult::Error(executed);
  return CommandResult::Clean();
}

}  // namespace

void AddPruneCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<PruneArgs>();
  CLI::App* sub = app.add_subcommand(
      "prune",
      "Delete checkpoints beyond retention and orphaned files in shared/ and chk-* that no "
      "retained _metadata references; on an object store, also abort the multipart uploads "
      "stopped jobs left open in their checkpoint storage. Dry run unless --yes. Never deletes a "
      "savepoint, a referenced file, or a file younger than the age guard or of unknown age");
  sub->add_option("root", args->root, "Checkpoint root (job directories below) or a job directory")
      ->required();
  sub->add_option("--keep-last", args->keep_last,
                  "Restorable checkpoints kept per job, newest first (>= 1); one whose files "
                  "are missing or damaged is kept and not counted")
      ->default_str("1");
  sub->add_option("--older-than", args->older_than,
                  "Delete only checkpoints completed longer ago than DURATION (30m, 12h, 7d); "
                  "also the age guard for orphan files");
  sub->add_option("--min-orphan-age", args->min_age,
                  "Age guard for orphan files when --older-than is not given")
      ->default_str("1h");
  sub->add_flag("--deep", args->deep,
                "Count a checkpoint only if validate --deep (every record decoded) also says "
                "it restores");
  sub->add_flag("--dry-run", args->dry_run, "Only show the plan (the default)");
  sub->add_flag("-y,--yes", args->yes, "Execute the plan");
  sub->add_flag("-v,--verbose", args->verbose,
                "Text: also list every step (each file removed, with its size and reason) and "
                "every kept file; by default the plan shows each snapshot's verdict and what is "
                "freed per category");
  sub->add_flag("--verify", args->verify,
                "With --yes: afterwards, check that every kept snapshot still opens and each "
                "job's newest retained checkpoint still restores (exit 1 if not)");
  SetExamples(sub, {"ckpt-tool prune /var/checkpoints                      # show the plan",
                    "ckpt-tool prune /var/checkpoints --keep-last 3 --yes",
                    "ckpt-tool prune /var/checkpoints --yes --verify",
                    "ckpt-tool prune /var/checkpoints/<job> --older-than 7d --format json"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return Run(*args, ctx); }; });
}

}  // namespace ckpt::cli
