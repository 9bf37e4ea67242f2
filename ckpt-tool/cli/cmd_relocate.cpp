// ckpt-tool relocate SNAPSHOT --to DIR: a self-contained copy (a checkpoint becomes a savepoint).
#include <CLI/CLI.hpp>
#include <memory>

#include "ckpt/base/checksum.h"
#include "ckpt/ops/relocate.h"
#include "cli_common.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct RelocateArgs {
  std::string snapshot;
  std::string to;
  bool dry_run = false;
  bool verify = false;
};

void Print(const ops::RelocateResult& r, OutputFormat format, std::ostream& out) {
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
    out << JsonLine()
               .Str("source_dir", r.source_dir)
               .Str("output_dir", r.output_dir)
               .Int("checkpoint_id", r.checkpoint_id)
               .Bool("converted_checkpoint", r.converted_checkpoint)
               .Str("output_type", r.output_type)
               .Bool("dry_run", r.dry_run)
               .Bool("written", r.written)
               .Str("refused", r.refused)
               .Uint("files", r.files.size())
               .Uint("total_bytes", r.total_bytes)
               .Uint("bytes_copied", r.bytes_copied)
               .Build()
        << "\n";
    RenderVerificationJson(r.verification, out);
    return;
  }
  out << (r.dry_run ? "would relocate " : r.written ? "relocated " : "not relocated ")
      << r.source_dir << " -> " << r.output_dir
      << (r.converted_checkpoint ? " (checkpoint " + std::to_string(r.checkpoint_id) +
                                       " becomes a self-contained savepoint)"
                                 : "")
      << "\noutput: " << r.output_type << "\n";
  TextTable t({"OUTPUT FILE", "FROM", "SCOPE", "SIZE", "XXH3"}, {false, false, false, true, false});
  for (const auto& f : r.files) {
    t.AddRow({f.output_path, f.source_path, f.original_scope, std::to_string(f.size_bytes),
              base::ChecksumHex(f.checksum_xxh3)});
  }
  if (!t.empty()) t.Print(out);
  if (!r.refused.empty()) out << r.refused << "\n";
  out << r.files.size() << " files, " << HumanBytes(r.total_bytes);
  if (r.dry_run) {
    out << " (dry run: nothing written)";
  } else if (r.written) {
    out << ", " << r.copies_verified_by << " verified; _metadata written last";
  }
  out << "\n";
  RenderVerificationText(r.verification, out);
}

CommandResult Run(const RelocateArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "relocate");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  ops::RelocateOptions options;
  options.dry_run = args.dry_run;
  options.verify_output = args.verify;
  auto where = ctx.LocateAll({args.snapshot, args.to});
  if (!where.ok()) return CommandResult::Error(where.status());
  return RunSnapshotWriter(
      ctx,
      [&](base::Progress progress) {
        options.progress = std::move(progress);
        return ops::Relocate(*where->fs, where->paths[0], where->paths[1], options);
      },
      [&](const ops::RelocateResult& r, std::ostream& out) { Print(r, *format, out); });
}

}  // namespace

void AddRelocateCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RelocateArgs>();
  CLI::App* sub = app.add_subcommand(
      "relocate",
      "Copy a savepoint, or turn a retained checkpoint into a self-contained savepoint "
      "(shared files copied in, checksums verified, _metadata written last)");
  sub->add_option("snapshot", args->snapshot, "Snapshot directory or _metadata file")->required();
  sub->add_option("--to", args->to,
                  "Output directory: must not exist, nor lie inside the input or a checkpoint "
                  "directory (chk-N/, shared/, taskowned/)")->required();
  sub->add_flag("--dry-run", args->dry_run, "Show what would be copied; write nothing");
  sub->add_flag("--verify", args->verify,
                "Print the output's validation report (every output is validated before it is "
                "published; with an error nothing is written and the exit is 1)");
  SetExamples(sub, {"ckpt-tool relocate /ckpt/<job>/chk-42 --to /savepoints/from-chk-42",
                    "ckpt-tool relocate /savepoints/sp-1 --to /mnt/backup/sp-1 --dry-run"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return Run(*args, ctx); }; });
}

}  // namespace ckpt::cli
