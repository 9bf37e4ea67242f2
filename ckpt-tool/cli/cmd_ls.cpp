// ckpt-tool ls ROOT|SNAPSHOT: jobs and their snapshots under a root, or one snapshot's operators.
#include <CLI/CLI.hpp>
#include <memory>

#include "cli_common.h"
#include "ckpt/base/text_escape.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/operator_label.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct LsArgs {
  std::string path;
  std::string uids_file;
};

void PrintRoot(const std::vector<ops::JobListing>& jobs, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    for (const auto& job : jobs) {
      for (const auto& s : job.snapshots) {
        // A snapshot that could not be read has no sizes: null, never 0.
        const bool known = s.health == ops::SnapshotHealth::kComplete;
        auto size = [known](uint64_t v) { return known ? std::to_string(v) : std::string("null"); };
        auto ms = [](int64_t v) { return v > 0 ? std::to_string(v) : std::string("null"); };
        JsonLine line;
        line.Str("job_id", s.job_id_hex).Str("path", s.path).Int("checkpoint_id", s.checkpoint_id);
        line.Str("kind", ops::SnapshotKindName(s.kind))
            .Raw("format", s.kind == ops::SnapshotKind::kSavepoint
                               ? JsonQuoted(std::string(ops::SavepointFormatName(s.savepoint_format)))
                               : "null")
            .Str("type", ops::CheckpointTypeName(s.checkpoint_type))
            .Str("mode", ops::CheckpointingModeName(s.mode))
            .Raw("trigger_timestamp", ms(s.trigger_timestamp_ms))
            .Raw("state_size", size(s.full_size_bytes))
            .Raw("checkpointed_size", size(s.checkpointed_size_bytes))
            .Raw("end_to_end_duration", ms(s.end_to_end_duration_ms))
            .Uint("operators", s.operator_count)
            .Str("status", ops::SnapshotHealthName(s.health));
        if (!s.problem.empty()) line.Str("problem", s.problem);
        out << line.Build() << "\n";
      }
    }
    return;
  }
  for (const auto& job : jobs) {
    out << "job " << base::EscapeForText(job.job_id_hex) << "\n";
    TextTable t({"PATH", "ID", "KIND", "FORMAT", "TYPE", "MODE", "TRIGGERED", "FULL SIZE",
                 "CHECKPOINTED", "STATUS"},
                {false, true, false, false, false, false, false, true, true, false});
    for (const auto& s : job.snapshots) {
      const bool known = s.health == ops::SnapshotHealth::kComplete;
      t.AddRow({s.path, std::to_string(s.checkpoint_id),
                known ? std::string(ops::SnapshotKindName(s.kind)) : "-",
                known && s.kind == ops::SnapshotKind::kSavepoint
                    ? std::string(ops::SavepointFormatName(s.savepoint_format))
                    : "-",
                known ? std::string(ops::CheckpointTypeName(s.checkpoint_type)) : "-",
                known ? std::string(ops::CheckpointingModeName(s.mode)) : "-",
                IsoTime(s.trigger_timestamp_ms), known ? SizeText(s.full_size_bytes) : "-",
                known ? SizeText(s.checkpointed_size_bytes) : "-",
                std::string(ops::SnapshotHealthName(s.health))});
    }
    t.Print(out);
    for (const auto& s : job.snapshots) {
      if (!s.problem.empty()) out << "  " << base::EscapeForText(s.path) << ": " << base::EscapeForText(s.problem) << "\n";
    }
  }
  if (jobs.empty()) out << "no checkpoints or savepoints found\n";
}

void PrintOperators(const std::vector<ops::OperatorRow>& rows, const ops::MetadataRow& metadata,
                    OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    for (const auto& r : rows) {
      out << JsonLine()
                 .Int("checkpoint_id", r.checkpoint_id)
                 .Str("operator_id", r.uid_hash)
                 .Str("operator_name", r.operator_name)
                 .Raw("operator_uid", UidJson(r.uid, r.uid_origin))
                 .Str("operator_uid_origin", ops::UidOriginName(r.uid_origin))
                 .Str("operator_uid_hash", r.uid_hash)
                 .Uint("operator_parallelism", r.parallelism)
                 .Uint("operator_max_parallelism", r.max_parallelism)
                 .Uint("operator_subtask_state_count", r.subtask_state_count)
                 .Uint("operator_coordinator_state_size_in_bytes", r.coordinator_state_bytes)
                 .Uint("operator_total_size_in_bytes", r.total_bytes)
                 .Build()
          << "\n";
    }
    // `_metadata` on its own line: its bytes that are no operator's inline state.
    out << JsonLine()
               .Int("checkpoint_id", metadata.checkpoint_id)
               .Str("file", "_metadata")
               .Uint("size_in_bytes", metadata.own_bytes)
               .Uint("file_size_in_bytes", metadata.file_bytes)
               .Uint("inline_state_size_in_bytes", metadata.inline_state_bytes)
               .Build()
        << "\n";
    return;
  }
  TextTable t({"CHECKPOINT", "OPERATOR", "UID", "UID HASH", "PARALLELISM", "MAX PARALLELISM",
               "SUBTASK STATES", "COORDINATOR BYTES", "TOTAL BYTES"},
              {true, false, false, false, true, true, true, true, true});
  bool not_recorded = false;
  for (const auto& r : rows) {
    not_recorded |= r.uid_origin == ops::UidOrigin::kNotRecorded;
    t.AddRow({std::to_string(r.checkpoint_id), ops::OperatorLabel(r.operator_name, r.uid, r.uid_hash),
              UidCell(r.uid, r.uid_origin), r.uid_hash, std::to_string(r.parallelism),
              std::to_string(r.max_parallelism), std::to_string(r.subtask_state_count),
              SizeText(r.coordinator_state_bytes), SizeText(r.total_bytes)});
  }
  // The rest of `_metadata` (its inline state is in the operators' rows): the rows add up to
  // the bytes on disk.
  t.AddRow({std::to_string(metadata.checkpoint_id), "_metadata", "", "", "", "", "", "",
            SizeText(metadata.own_bytes)});
  t.Print(out);
  out << UidNotRecordedNote(not_recorded);
}

CommandResult RunLs(const LsArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "ls");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  auto where = ctx.Locate(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto uids = ReadUidsOption(ctx, args.uids_file);
  if (!uids.ok()) return CommandResult::Error(uids.status());
  auto result = ops::Ls(*where->fs, where->path, *uids);
  if (!result.ok()) return CommandResult::Error(result.status());
  if (result->is_snapshot) {
    PrintOperators(result->operators, result->metadata, *format, ctx.out());
    return CommandResult::Clean();
  }
  PrintRoot(result->jobs, *format, ctx.out());
  // A root holding a corrupt snapshot is not a clean listing (incomplete ones are: a
  // checkpoint being written has no _metadata yet).
  return ops::CorruptCount(result->jobs) > 0 ? CommandResult::Findings() : CommandResult::Clean();
}

}  // namespace

void AddLsCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<LsArgs>();
  CLI::App* sub = app.add_subcommand(
      "ls", "List jobs and snapshots under a checkpoint root, or the operators of one snapshot");
  sub->add_option("path", args->path, "Checkpoint root (searched three levels down), job "
                                      "directory, snapshot directory or _metadata file. Exit 1 "
                                      "if a listed snapshot is corrupt")
      ->required();
  AddUidsOption(sub, &args->uids_file);
  SetExamples(sub, {"ckpt-tool ls /var/checkpoints",
                    "ckpt-tool ls /var/savepoints/savepoint-3f2a1b-0c9d8e7f6a5b",
                    "ckpt-tool ls --format json /var/checkpoints/<job>/chk-42"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunLs(*args, ctx); }; });
}

}  // namespace ckpt::cli
