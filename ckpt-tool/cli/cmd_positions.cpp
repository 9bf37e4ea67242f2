// ckpt-tool positions SNAPSHOT: where each source resumes reading when the snapshot is
// restored (Kafka partitions and offsets, file splits, the engine's sequence splits), and what
// each transactional sink commits or aborts then (docs/positions.md). Exit 1 when a
// connector's state could not be decoded (a finding), 0 otherwise.
#include <CLI/CLI.hpp>
#include <memory>

#include "cli_common.h"
#include "ckpt/ops/positions.h"
#include "render_positions.h"

namespace ckpt::cli {
namespace {

struct PositionsArgs {
  std::string path;
};

CommandResult RunPositions(const PositionsArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "positions");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  auto where = ctx.LocateSnapshot(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto snapshot = ops::LoadSnapshot(*where->fs, where->path);
  if (!snapshot.ok()) return CommandResult::Error(snapshot.status());
  auto report = ops::ComputePositions(*where->fs, *snapshot, ctx.MakeProgress());
  ctx.EndProgress();
  if (!report.ok()) return CommandResult::Error(report.status());
  if (*format == OutputFormat::kJson) {
    RenderPositionsJson(*report, ctx.out());
  } else {
    RenderPositionsText(*report, ctx.out());
  }
  return report->findings.empty() ? CommandResult::Clean() : CommandResult::Findings();
}

}  // namespace

void AddPositionsCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<PositionsArgs>();
  CLI::App* sub = app.add_subcommand(
      "positions",
      "Show where each source resumes reading on restore (Kafka offsets, file splits) and what "
      "each transactional sink commits or aborts");
  sub->add_option("snapshot", args->path, "Snapshot directory or its _metadata file")->required();
  SetExamples(sub, {"ckpt-tool positions /var/checkpoints/<job>/chk-42",
                    "ckpt-tool positions --format json savepoint-3f2a1b-0c9d8e7f6a5b | jq "
                    "'.operators[].splits[] | {topic, partition, next_offset}'"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunPositions(*args, ctx); }; });
}

}  // namespace ckpt::cli
