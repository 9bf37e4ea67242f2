// ckpt-tool history ROOT [--job JOB_ID]: each job's snapshots in id order with status, type,
// trigger time, end-to-end duration, sizes and in-flight data, then the job's summary (counts;
// min / avg / p50 / p99 / max of duration and sizes), as Flink's Checkpoints tab shows them.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>

#include "ckpt/base/text_escape.h"
#include "ckpt/ops/history.h"
#include "cli_common.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct HistoryArgs {
  std::string root;
  std::string job;
};

// A summary value as a JSON number: integral values without a fraction, others with three
// decimals (deterministic; no exponent).
std::string HistoryJsonNumber(double v) {
  char buf[64];
  if (std::nearbyint(v) == v) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f", v);
  }
  return buf;
}

std::string HistoryMetricJson(const ops::MetricSummary& m) {
  return JsonLine()
      .Uint("count", m.count)
      .Raw("min", HistoryJsonNumber(m.min))
      .Raw("avg", HistoryJsonNumber(m.avg))
      .Raw("p50", HistoryJsonNumber(m.p50))
      .Raw("p99", HistoryJsonNumber(m.p99))
      .Raw("max", HistoryJsonNumber(m.max))
      .Build();
}

std::string HistoryTypeText(const ops::SnapshotEntry& e) {
  if (e.health != ops::SnapshotHealth::kComplete) return "-";
  if (e.kind == ops::SnapshotKind::kSavepoint) {
    return "savepoint (" + std::string(ops::SavepointFormatName(e.savepoint_format)) + ")";
  }
  return std::string(ops::CheckpointTypeName(e.checkpoint_type));
}

void PrintHistoryJson(const std::vector<ops::JobHistory>& jobs, std::ostream& out) {
  for (const ops::JobHistory& job : jobs) {
    for (const ops::HistoryRow& r : job.rows) {
      const ops::SnapshotEntry& e = r.entry;
      JsonLine line;
      line.Str("job_id", e.job_id_hex).Str("path", e.path).Int("checkpoint_id", e.checkpoint_id);
      line.Str("kind", ops::SnapshotKindName(e.kind))
          .Raw("format", e.kind == ops::SnapshotKind::kSavepoint
                             ? JsonQuoted(std::string(ops::SavepointFormatName(e.savepoint_format)))
                             : "null")
          .Str("type", ops::CheckpointTypeName(e.checkpoint_type))
          .Str("mode", ops::CheckpointingModeName(e.mode))
          .Int("trigger_timestamp", e.trigger_timestamp_ms)
          .Uint("state_size", e.full_size_bytes)
          .Uint("checkpointed_size", e.checkpointed_size_bytes);
      if (r.duration_ms >= 0) {
        line.Int("end_to_end_duration", r.duration_ms);
      } else {
        line.Null("end_to_end_duration");
      }
      line.Str("status", ops::SnapshotHealthName(e.health));
      if (!e.problem.empty()) line.Str("problem", e.problem);
      if (r.metrics) {
        line.Uint("processed_data", r.metrics->processed_data)
            .Uint("persisted_data", r.metrics->persisted_data)
            .Bool("unaligned", r.metrics->is_unaligned)
            .Int("alignment_timeout", r.metrics->alignment_timeout)
            .Uint("num_subtasks", r.metrics->num_subtasks)
            .Uint("num_acknowledged_subtasks", r.metrics->num_acknowledged_subtasks);
      }
      if (!r.restored_from.empty()) line.Str("restored_from", r.restored_from);
      out << line.Build() << "\n";
    }
    const ops::HistorySummary& s = job.summary;
    JsonLine summary;
    summary.Uint("total", s.total)
        .Uint("completed", s.completed)
        .Uint("failed", s.failed)
        .Uint("incomplete", s.incomplete)
        .Uint("restored", s.restored)
        .Uint("savepoints", s.savepoints)
        .Raw("end_to_end_duration", HistoryMetricJson(s.duration_ms))
        .Raw("checkpointed_size", HistoryMetricJson(s.checkpointed_size_bytes))
        .Raw("state_size", HistoryMetricJson(s.full_size_bytes));
    if (s.latest_completed) {
      summary.Str("latest_completed", job.rows[*s.latest_completed].entry.path);
    } else {
      summary.Null("latest_completed");
    }
    out << JsonLine().Str("job_id", job.job_id_hex).Raw("summary", summary.Build()).Build() << "\n";
  }
}

void PrintHistorySummaryText(const ops::JobHistory& job, std::ostream& out) {
  const ops::HistorySummary& s = job.summary;
  out << "snapshots: " << s.completed << " completed (" << s.savepoints << " savepoints), "
      << s.failed << " failed, " << s.incomplete << " incomplete, " << s.restored
      << " restored\n";
  if (s.completed > 0) {
    TextTable t({"OVER " + std::to_string(s.completed) + " COMPLETED", "MIN", "AVG", "P50", "P99",
                 "MAX"},
                {false, true, true, true, true, true});
    auto ms = [](double v) { return HistoryJsonNumber(std::round(v)) + " ms"; };
    auto bytes = [](double v) { return SizeText(static_cast<uint64_t>(std::llround(v))); };
    const ops::MetricSummary& d = s.duration_ms;
    const ops::MetricSummary& c = s.checkpointed_size_bytes;
    const ops::MetricSummary& f = s.full_size_bytes;
    t.AddRow({"end-to-end duration", ms(d.min), ms(d.avg), ms(d.p50), ms(d.p99), ms(d.max)});
    t.AddRow({"checkpointed size", bytes(c.min), bytes(c.avg), bytes(c.p50), bytes(c.p99),
              bytes(c.max)});
    t.AddRow({"full size", bytes(f.min), bytes(f.avg), bytes(f.p50), bytes(f.p99), bytes(f.max)});
    t.Print(out);
  }
  if (!s.latest_completed) return;
  const ops::HistoryRow& latest = job.rows[*s.latest_completed];
  out << "latest: " << base::EscapeForText(latest.entry.path) << " (id "
      << latest.entry.checkpoint_id << ", mode " << ops::CheckpointingModeName(latest.entry.mode);
  if (latest.metrics) {
    out << ", " << (latest.metrics->is_unaligned ? "unaligned" : "aligned")
        << ", alignment timeout " << latest.metrics->alignment_timeout << " ms, "
        << latest.metrics->num_acknowledged_subtasks << "/" << latest.metrics->num_subtasks
        << " subtasks acknowledged";
  }
  if (!latest.restored_from.empty()) {
    out << ", restored from " << base::EscapeForText(latest.restored_from);
  }
  out << ")\n";
}

void PrintHistoryText(const std::vector<ops::JobHistory>& jobs, std::ostream& out) {
  bool first = true;
  for (const ops::JobHistory& job : jobs) {
    if (!first) out << "\n";
    first = false;
    out << "job " << base::EscapeForText(job.job_id_hex) << "\n";
    TextTable t({"ID", "PATH", "STATUS", "TYPE", "TRIGGERED", "END-TO-END", "CHECKPOINTED",
                 "FULL SIZE", "PROCESSED", "PERSISTED", "UNALIGNED"},
                {true, false, false, false, false, true, true, true, true, true, false});
    for (const ops::HistoryRow& r : job.rows) {
      const ops::SnapshotEntry& e = r.entry;
      const bool complete = e.health == ops::SnapshotHealth::kComplete;
      t.AddRow({std::to_string(e.checkpoint_id), e.path,
                std::string(ops::SnapshotHealthName(e.health)), HistoryTypeText(e),
                IsoTime(e.trigger_timestamp_ms),
                r.duration_ms >= 0 ? std::to_string(r.duration_ms) + " ms" : "-",
                complete ? SizeText(e.checkpointed_size_bytes) : "-",
                complete ? SizeText(e.full_size_bytes) : "-",
                r.metrics ? SizeText(r.metrics->processed_data) : "-",
                r.metrics ? SizeText(r.metrics->persisted_data) : "-",
                r.metrics ? (r.metrics->is_unaligned ? "yes" : "no") : "-"});
    }
    t.Print(out);
    for (const ops::HistoryRow& r : job.rows) {
      if (!r.entry.problem.empty()) {
        out << "  " << base::EscapeForText(r.entry.path) << ": "
            << base::EscapeForText(r.entry.problem) << "\n";
      }
    }
    PrintHistorySummaryText(job, out);
  }
  if (jobs.empty()) out << "no checkpoints or savepoints found\n";
}

CommandResult RunHistory(const HistoryArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "history");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  ops::HistoryOptions options;
  options.job_id_hex = args.job;
  auto where = ctx.Locate(args.root);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto jobs = ops::LoadHistory(*where->fs, where->path, options, ctx.MakeProgress());
  ctx.EndProgress();
  if (!jobs.ok()) return CommandResult::Error(jobs.status());
  if (*format == OutputFormat::kJson) {
    PrintHistoryJson(*jobs, ctx.out());
  } else {
    PrintHistoryText(*jobs, ctx.out());
  }
  // As ls: a corrupt snapshot makes the history not clean (an incomplete one does not: a
  // checkpoint being written has no _metadata yet).
  for (const ops::JobHistory& job : *jobs) {
    if (job.summary.failed > 0) return CommandResult::Findings();
  }
  return CommandResult::Clean();
}

}  // namespace

void AddHistoryCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<HistoryArgs>();
  CLI::App* sub = app.add_subcommand(
      "history",
      "Checkpoint history of each job under a root: every snapshot with status, type, trigger "
      "time, end-to-end duration, sizes and in-flight data, then counts and min / avg / p50 / "
      "p99 / max of duration and sizes (Flink's Checkpoints tab)");
  sub->add_option("root", args->root, "Checkpoint root (searched three levels down) or job "
                                      "directory. Exit 1 if a listed snapshot is corrupt")
      ->required();
  sub->add_option("--job", args->job, "Only the job with this ID (32 hex digits)");
  SetExamples(sub, {"ckpt-tool history /var/checkpoints",
                    "ckpt-tool history /var/checkpoints --job <job-id> --format json"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunHistory(*args, ctx); }; });
}

}  // namespace ckpt::cli
