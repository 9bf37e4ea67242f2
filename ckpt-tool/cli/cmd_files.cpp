// ckpt-tool files SNAPSHOT: every referenced file with size, checksum, owner and existence.
// Exit 1 when a referenced file is missing or has another size (a finding, not an error).
#include <CLI/CLI.hpp>
#include <memory>

#include "cli_common.h"
#include "ckpt/base/checksum.h"
#include "ckpt/ops/files.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct FilesArgs {
  std::string path;
};

std::string Status(const ops::FileRow& r) {
  if (!r.exists) return "missing";
  if (static_cast<uint64_t>(r.actual_size) != r.size_bytes) {
    return "size " + std::to_string(r.actual_size) + " != recorded";
  }
  return "ok";
}

CommandResult RunFiles(const FilesArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "files");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  auto where = ctx.LocateSnapshot(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto snapshot = ops::LoadSnapshot(*where->fs, where->path);
  if (!snapshot.ok()) return CommandResult::Error(snapshot.status());
  auto rows = ops::ListFiles(*where->fs, *snapshot);
  if (!rows.ok()) return CommandResult::Error(rows.status());
  bool problems = false;
  std::ostream& out = ctx.out();
  if (*format == OutputFormat::kJson) {
    for (const auto& r : *rows) {
      std::string refs = "[";
      for (const auto& w : r.referenced_by) refs += (refs.size() > 1 ? "," : "") + JsonQuoted(w);
      refs += "]";
      JsonLine line;
      line.Uint("index", r.index)
          .Str("path", r.path)
          .Str("location", r.location)
          .Str("scope", ops::FileScopeName(r.scope))
          .Str("kind", ops::FileKindName(r.kind))
          .Str("owner", r.owner)
          .Uint("size_bytes", r.size_bytes)
          // 0: none recorded (Apache Flink records no checksum and no creator).
          .Raw("checksum_xxh3",
               r.checksum_xxh3 != 0 ? JsonQuoted(base::ChecksumHex(r.checksum_xxh3)) : "null")
          .Raw("created_by_checkpoint_id", r.created_by_checkpoint_id != 0
                                               ? std::to_string(r.created_by_checkpoint_id)
                                               : "null")
          .Bool("exists", r.exists);
      if (r.exists) line.Int("actual_size", r.actual_size); else line.Null("actual_size");
      line.Raw("referenced_by", refs);
      out << line.Build() << "\n";
      problems |= Status(r) != "ok";
    }
  } else {
    TextTable t({"#", "LOCATION", "KIND", "OWNER", "SIZE", "XXH3", "EXISTS", "REFERENCED BY"},
                {true, false, false, false, true, false, false, false});
    uint64_t total = 0;
    for (const auto& r : *rows) {
      std::string refs;
      for (const auto& w : r.referenced_by) refs += (refs.empty() ? "" : " ") + w;
      t.AddRow({std::to_string(r.index), r.location, std::string(ops::FileKindName(r.kind)),
                r.owner, SizeText(r.size_bytes),
                r.checksum_xxh3 != 0 ? base::ChecksumHex(r.checksum_xxh3) : kUnknownText,
                Status(r), refs.empty() ? "-" : refs});
      total += r.size_bytes;
      problems |= Status(r) != "ok";
    }
    t.Print(out);
    out << rows->size() << " file(s), " << SizeText(total) << "\n";
  }
  return problems ? CommandResult::Findings() : CommandResult::Clean();
}

}  // namespace

void AddFilesCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<FilesArgs>();
  CLI::App* sub = app.add_subcommand(
      "files", "List every file a snapshot references: size, checksum, owner, whether it exists");
  sub->add_option("snapshot", args->path, "Snapshot directory or its _metadata file")->required();
  SetExamples(sub, {"ckpt-tool files /var/checkpoints/<job>/chk-42",
                    "ckpt-tool files --format json savepoint-3f2a1b-0c9d8e7f6a5b | jq 'select(.exists|not)'"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunFiles(*args, ctx); }; });
}

}  // namespace ckpt::cli
