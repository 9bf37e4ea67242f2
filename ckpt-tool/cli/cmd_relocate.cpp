// ckpt-tool relocate SNAPSHOT --to DIR: a self-contained copy (a checkpoint becomes a savepoint).
#include <CLI/CLI.hpp>
#include <memory>

#include "ckpt/base/checksum.h"
#include "ckpt/ops/relocate.h"
#include "cli_common.h"
#include "render.h"
#include "write_verb.h"

namespace ckpt::cli {
namespace {

struct RelocateArgs {
  std::string snapshot;
  std::string to;
  bool dry_run = false;
  bool verify = false;
};

void PrintRelocateResult(const ops::RelocateResult& r, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    for (const auto& f : r.files) {
      out << JsonLine()
                 .Str("source", f.source_path)
                 .Str("output", f.output_path)
                 .Str("scope", f.original_scope)
                 .Uint("size_bytes", f.size_bytes)
                 .Str("checksum_xxh3", base::ChecksumHex(f.checksum_xxh3))
                 .Build()
          << "\n";
    }
    JsonLine summary;
    AddDirsJson(OutcomeOf(r), summary)
        .Int("checkpoint_id", r.checkpoint_id)
        .Bool("converted_checkpoint", r.converted_checkpoint)
        .Str("output_type", r.output_type);
    AddWrittenJson(OutcomeOf(r), summary)
        .Uint("files", r.files.size())
        .Uint("total_bytes", r.total_bytes)
        .Uint("bytes_copied", r.bytes_copied);
    out << summary.Build() << "\n";
    RenderVerificationJson(r.verification, out);
    return;
  }
  PrintWriteHeadline(OutcomeOf(r), "would relocate ", "relocated ", "not relocated ", out);
  out << (r.converted_checkpoint ? " (checkpoint " + std::to_string(r.checkpoint_id) +
                                       " becomes a self-contained savepoint)"
                                 : "")
      << "\noutput: " << r.output_type << "\n";
  TextTable t({"OUTPUT FILE", "FROM", "SCOPE", "SIZE", "XXH3"}, {false, false, false, true, false});
  for (const auto& f : r.files) {
    t.AddRow({f.output_path, f.source_path, f.original_scope, SizeText(f.size_bytes),
              base::ChecksumHex(f.checksum_xxh3)});
  }
  if (!t.empty()) t.Print(out);
  PrintWarningsAndRefusal({}, OutcomeOf(r), out);
  if (r.dry_run) {
    out << "would write " << r.files.size() << " files, " << SizeText(r.total_bytes)
        << " (dry run: nothing written)";
  } else if (r.written) {
    out << "wrote " << r.files.size() << " files, " << SizeText(r.total_bytes) << ", "
        << r.copies_verified_by << " verified; _metadata written last";
  } else {
    out << "nothing written (the output would have " << r.files.size() << " files, "
        << SizeText(r.total_bytes) << ")";
  }
  out << "\n";
  RenderVerificationText(r.verification, out);
}

CommandResult Run(const RelocateArgs& args, CliContext& ctx) {
  auto where = ctx.LocateAll({args.snapshot, args.to});
  if (!where.ok()) return CommandResult::Error(where.status());
  const auto relocate = [&](const ops::RelocateOptions& options) {
    return ops::Relocate(*where->fs, where->paths[0], where->paths[1], options);
  };
  return RunWriteVerb(ctx, "relocate", args.dry_run, args.verify, ops::RelocateOptions(), relocate,
                      PrintRelocateResult);
}

}  // namespace

void AddRelocateCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RelocateArgs>();
  CLI::App* sub = app.add_subcommand(
      "relocate",
      "Copy a savepoint, or turn a retained checkpoint into a self-contained savepoint "
      "(shared files copied in, checksums verified, _metadata written last)");
  sub->add_option("snapshot", args->snapshot, "Snapshot directory or _metadata file")->required();
  AddOutputDirOption(sub, &args->to);
  sub->add_flag("--dry-run", args->dry_run, "Show what would be copied; write nothing");
  AddVerifyFlag(sub, &args->verify);
  SetExamples(sub, {"ckpt-tool relocate /ckpt/<job>/chk-42 --to /savepoints/from-chk-42",
                    "ckpt-tool relocate /savepoints/sp-1 --to /mnt/backup/sp-1 --dry-run"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return Run(*args, ctx); }; });
}

}  // namespace ckpt::cli
