// ckpt-tool rescale-max-parallelism SNAPSHOT --max-parallelism N --to DIR: keyed state
// re-assigned to the key groups of a new max parallelism (FLINK-13093), written as a new savepoint.
#include <CLI/CLI.hpp>
#include <memory>

#include "ckpt/ops/operator_label.h"
#include "ckpt/ops/rescale.h"
#include "cli_common.h"
#include "render.h"
#include "write_verb.h"

namespace ckpt::cli {
namespace {

struct RescaleArgs {
  std::string snapshot;
  std::string to;
  int32_t max_parallelism = 0;
  std::vector<std::string> operators;
  bool dry_run = false;
  bool verify = false;
};

void PrintRescaleResult(const ops::RescaleResult& r, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    for (const auto& o : r.operators) {
      out << JsonLine()
                 .Str("operator_id", o.operator_id)
                 .Str("uid", o.uid)
                 .Str("name", o.name)
                 .Int("parallelism", o.parallelism)
                 .Int("old_max_parallelism", o.old_max_parallelism)
                 .Int("new_max_parallelism", o.new_max_parallelism)
                 .Str("key_serializer", o.key_serializer)
                 .Uint("keyed_entries", o.keyed_entries)
                 .Uint("entries_moved_subtask", o.keys_moved_subtask)
                 .Build()
          << "\n";
    }
    JsonLine summary;
    AddDirsJson(OutcomeOf(r), summary).Int("checkpoint_id", r.checkpoint_id);
    AddWrittenJson(OutcomeOf(r), summary)
        .Uint("operators", r.operators.size())
        .Uint("files_copied", r.files_copied)
        .Uint("bytes_copied", r.bytes_copied)
        .Uint("bytes_written", r.bytes_written);
    out << summary.Build() << "\n";
    PrintWarningsJson(r.warnings, out);
    RenderVerificationJson(r.verification, out);
    return;
  }
  PrintWriteHeadline(OutcomeOf(r), "would rescale ", "rescaled ", "not rescaled ", out);
  out << "\n";
  TextTable t({"OPERATOR", "ID", "UID", "PARALLELISM", "MAX PARALLELISM", "KEY", "ENTRIES",
               "MOVED SUBTASK"},
              {false, false, false, true, false, false, true, true});
  for (const auto& o : r.operators) {
    t.AddRow({ops::OperatorLabel(o.name, o.uid, o.operator_id), o.operator_id,
              o.uid.empty() ? "-" : o.uid, std::to_string(o.parallelism),
              std::to_string(o.old_max_parallelism) + " -> " + std::to_string(o.new_max_parallelism),
              o.key_serializer.empty() ? "-" : o.key_serializer, std::to_string(o.keyed_entries),
              std::to_string(o.keys_moved_subtask)});
  }
  if (!t.empty()) t.Print(out);
  PrintWarningsAndRefusal(r.warnings, OutcomeOf(r), out);
  if (r.dry_run) {
    // A dry run encodes no new state, so it knows no byte count to promise.
    out << "would rescale " << r.operators.size() << " operator(s) and copy " << r.files_copied
        << " file(s) (dry run: nothing written)";
  } else if (r.written) {
    out << r.operators.size() << " operator(s) rescaled, " << r.files_copied
        << " file(s) copied, " << SizeText(r.bytes_written) << " written; _metadata written last";
  } else {
    out << "nothing written (" << r.operators.size() << " operator(s) would be rescaled)";
  }
  out << "\n";
  RenderVerificationText(r.verification, out);
}

CommandResult Run(const RescaleArgs& args, CliContext& ctx) {
  ops::RescaleOptions options;
  options.new_max_parallelism = args.max_parallelism;
  options.operators = args.operators;
  auto where = ctx.LocateAll({args.snapshot, args.to});
  if (!where.ok()) return CommandResult::Error(where.status());
  const auto rescale = [&](const ops::RescaleOptions& o) {
    return ops::RescaleMaxParallelism(*where->fs, where->paths[0], where->paths[1], o);
  };
  return RunWriteVerb(ctx, "rescale-max-parallelism", args.dry_run, args.verify, std::move(options),
                      rescale, PrintRescaleResult);
}

}  // namespace

void AddRescaleCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RescaleArgs>();
  CLI::App* sub = app.add_subcommand(
      "rescale-max-parallelism",
      "Write a new savepoint whose keyed state is re-assigned to the key groups of a new max "
      "parallelism (canonical savepoints of either format; the input is never modified)");
  sub->add_option("snapshot", args->snapshot, "Savepoint directory or _metadata file")->required();
  sub->add_option("--max-parallelism", args->max_parallelism, "The new max parallelism (1..32768)")
      ->required();
  AddOutputDirOption(sub, &args->to);
  sub->add_option("--operator", args->operators,
                  "Only this operator (ID, uid or name; repeatable). Default: every operator");
  sub->add_flag("--dry-run", args->dry_run, "Re-assign every key and report; write nothing");
  AddVerifyFlag(sub, &args->verify);
  SetExamples(sub, {"ckpt-tool rescale-max-parallelism /savepoints/sp-1 --max-parallelism 256 --to /savepoints/sp-1-256",
                    "ckpt-tool rescale-max-parallelism /savepoints/sp-1 --max-parallelism 512 --to /tmp/x --dry-run"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return Run(*args, ctx); }; });
}

}  // namespace ckpt::cli
