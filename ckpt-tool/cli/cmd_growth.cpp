// ckpt-tool growth ROOT: why a job's checkpoint storage keeps growing. Per retained checkpoint
// the bytes it introduced and how many of them the latest still references; the latest's needs
// against what is stored (space amplification); orphaned and not-yet-deletable bytes; each
// operator's referenced bytes over the checkpoints.
#include <CLI/CLI.hpp>
#include <memory>

#include "ckpt/ops/growth.h"
#include "cli_common.h"
#include "growth_render.h"

namespace ckpt::cli {
namespace {

struct GrowthArgs {
  std::string root;
};

CommandResult RunGrowth(const GrowthArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "growth");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  auto where = ctx.Locate(args.root);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto report = ops::ComputeGrowth(*where->fs, where->path, ctx.MakeProgress());
  ctx.EndProgress();
  if (!report.ok()) return CommandResult::Error(report.status());
  if (*format == OutputFormat::kJson) {
    PrintGrowthJson(*report, ctx.out());
  } else {
    PrintGrowthText(*report, ctx.out());
  }
  // As history: an unreadable `_metadata` in the chain makes the answer not clean.
  for (const ops::JobGrowth& job : report->jobs) {
    if (job.unreadable_files > 0) return CommandResult::Findings();
  }
  return CommandResult::Clean();
}

}  // namespace

void AddGrowthCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<GrowthArgs>();
  CLI::App* sub = app.add_subcommand(
      "growth",
      "Why a job's checkpoint storage keeps growing: per retained checkpoint the bytes it "
      "introduced and how many of them the latest still references; the latest's needs against "
      "the bytes stored (space amplification); orphaned and not-yet-deletable bytes; each "
      "operator's referenced bytes over the checkpoints");
  sub->add_option("root", args->root,
                  "Job checkpoint directory (chk-N/, shared/, taskowned/) or a root holding job "
                  "directories. Exit 1 if a checkpoint's _metadata cannot be read")
      ->required();
  SetExamples(sub, {"ckpt-tool growth /var/checkpoints/<job-id>",
                    "ckpt-tool growth s3://bucket/checkpoints/<job-id> --format json"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunGrowth(*args, ctx); }; });
}

}  // namespace ckpt::cli
