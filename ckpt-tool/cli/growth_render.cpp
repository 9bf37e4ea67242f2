#include "growth_render.h"

#include <cstdio>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/text_escape.h"
#include "render.h"

namespace ckpt::cli {
namespace {

// A ratio or rate with three decimals (deterministic; no exponent).
std::string GrowthNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// "+1.2 MiB" / "-300 B" per checkpoint.
std::string GrowthRateText(double bytes_per_checkpoint) {
  const bool negative = bytes_per_checkpoint < 0;
  const auto magnitude =
      static_cast<uint64_t>((negative ? -bytes_per_checkpoint : bytes_per_checkpoint) + 0.5);
  return std::string(negative ? "-" : "+") + SizeText(magnitude) + "/checkpoint";
}

std::string JobName(const ops::JobGrowth& job) {
  return job.job_rel.empty() ? std::string(".") : job.job_rel;
}

void PrintJobText(const ops::JobGrowth& job, std::ostream& out) {
  out << "job " << base::EscapeForText(JobName(job));
  // The job's id when its directory is not named after it.
  if (!job.job_id_hex.empty() && base::BaseName(JobName(job)) != job.job_id_hex) {
    out << " (" << base::EscapeForText(job.job_id_hex) << ")";
  }
  out << "\n";
  TextTable t({"ID", "PATH", "INTRODUCED", "OF IT SHARED", "REFERENCED", "STILL REFERENCED"},
              {true, false, true, true, true, true});
  for (const ops::GrowthCheckpoint& c : job.checkpoints) {
    t.AddRow({std::to_string(c.checkpoint_id), c.path,
              SizeText(c.introduced_bytes) + " (" + std::to_string(c.introduced_files) + ")",
              SizeText(c.introduced_shared_bytes),
              SizeText(c.referenced_bytes) + " (" + std::to_string(c.referenced_files) + ")",
              SizeText(c.still_referenced_bytes)});
  }
  if (job.checkpoints.empty()) {
    out << "no retained checkpoint\n";
  } else {
    t.Print(out);
    out << "latest " << base::EscapeForText(job.checkpoints.back().path) << " needs "
        << SizeText(job.needed_bytes) << " (" << job.needed_files << " files); stored "
        << SizeText(job.stored_bytes) << " (" << job.stored_files << " files); amplification "
        << GrowthNumber(job.amplification) << "x\n";
  }
  out << "not yet deletable (only older retained checkpoints): "
      << SizeText(job.not_yet_deletable_bytes) << " (" << job.not_yet_deletable_files
      << " files)\n";
  out << "orphaned (no retained checkpoint references them): " << SizeText(job.orphaned_bytes)
      << " (" << job.orphaned_files << " files)\n";
  if (job.unreadable_files > 0) {
    out << "in checkpoints with an unreadable _metadata: " << SizeText(job.unreadable_bytes)
        << " (" << job.unreadable_files << " files)\n";
  }
  if (job.task_owned_unreferenced_files > 0) {
    out << "unreferenced in taskowned/ (the job's own): "
        << SizeText(job.task_owned_unreferenced_bytes) << " ("
        << job.task_owned_unreferenced_files << " files)\n";
  }
  if (!job.operators.empty()) {
    TextTable ops_table({"OPERATOR", "FIRST", "LAST", "GROWTH"}, {false, true, true, true});
    for (const ops::GrowthOperator& op : job.operators) {
      ops_table.AddRow({op.label, SizeText(op.bytes.front()), SizeText(op.bytes.back()),
                        GrowthRateText(op.growth_bytes_per_checkpoint)});
    }
    ops_table.Print(out);
  }
  for (const std::string& note : job.notes) out << "note: " << base::EscapeForText(note) << "\n";
}

}  // namespace

void PrintGrowthText(const ops::GrowthReport& report, std::ostream& out) {
  bool first = true;
  for (const ops::JobGrowth& job : report.jobs) {
    if (!first) out << "\n";
    first = false;
    PrintJobText(job, out);
  }
  if (report.jobs.empty()) out << "no job directories found\n";
}

void PrintGrowthJson(const ops::GrowthReport& report, std::ostream& out) {
  for (const ops::JobGrowth& job : report.jobs) {
    const std::string name = JobName(job);
    for (const ops::GrowthCheckpoint& c : job.checkpoints) {
      out << JsonLine()
                 .Str("job", name)
                 .Str("path", c.path)
                 .Int("checkpoint_id", c.checkpoint_id)
                 .Uint("introduced_files", c.introduced_files)
                 .Uint("introduced_bytes", c.introduced_bytes)
                 .Uint("introduced_shared_bytes", c.introduced_shared_bytes)
                 .Uint("referenced_files", c.referenced_files)
                 .Uint("referenced_bytes", c.referenced_bytes)
                 .Uint("still_referenced_bytes", c.still_referenced_bytes)
                 .Build()
          << "\n";
    }
    for (const ops::GrowthOperator& op : job.operators) {
      std::string bytes = "[";
      for (size_t i = 0; i < op.bytes.size(); ++i) {
        if (i > 0) bytes += ",";
        bytes += std::to_string(op.bytes[i]);
      }
      bytes += "]";
      out << JsonLine()
                 .Str("job", name)
                 .Str("operator_id", op.id_hex)
                 .Str("operator", op.label)
                 .Raw("bytes", bytes)
                 .Raw("growth_bytes_per_checkpoint", GrowthNumber(op.growth_bytes_per_checkpoint))
                 .Build()
          << "\n";
    }
    std::string notes = "[";
    for (size_t i = 0; i < job.notes.size(); ++i) {
      if (i > 0) notes += ",";
      notes += JsonQuoted(job.notes[i]);
    }
    notes += "]";
    JsonLine summary;
    summary.Uint("checkpoints", job.checkpoints.size());
    if (job.checkpoints.empty()) {
      summary.Null("latest");
    } else {
      summary.Str("latest", job.checkpoints.back().path);
    }
    summary.Uint("needed_bytes", job.needed_bytes)
        .Uint("needed_files", job.needed_files)
        .Uint("stored_bytes", job.stored_bytes)
        .Uint("stored_files", job.stored_files)
        .Raw("amplification", GrowthNumber(job.amplification))
        .Uint("not_yet_deletable_bytes", job.not_yet_deletable_bytes)
        .Uint("not_yet_deletable_files", job.not_yet_deletable_files)
        .Uint("orphaned_bytes", job.orphaned_bytes)
        .Uint("orphaned_files", job.orphaned_files)
        .Uint("unreadable_bytes", job.unreadable_bytes)
        .Uint("unreadable_files", job.unreadable_files)
        .Uint("task_owned_unreferenced_bytes", job.task_owned_unreferenced_bytes)
        .Uint("task_owned_unreferenced_files", job.task_owned_unreferenced_files)
        .Raw("notes", notes);
    JsonLine line;
    line.Str("job", name);
    if (job.job_id_hex.empty()) {
      line.Null("job_id");
    } else {
      line.Str("job_id", job.job_id_hex);
    }
    out << line.Raw("summary", summary.Build()).Build() << "\n";
  }
}

}  // namespace ckpt::cli
