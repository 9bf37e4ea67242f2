// validate: the driver. Reads `_metadata` through format's typed defect result (so each kind of
// damage has its own rule), then runs the structure, file and restore rule groups.
#include "ckpt/ops/validate.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "formats/snapshot_format.h"
#include "model/snapshot_raw.h"
#include "validate/validate_internal.h"

namespace ckpt::ops {
namespace internal {

namespace {
const RuleInfo* FindRule(const std::string& id) {
  for (const auto& r : AllRules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}
}  // namespace

void ValidateContext::Add(const std::string& rule, Location location, std::string message) {
  // One severity per rule, whatever the host or options: a different verdict is another rule.
  const RuleInfo* info = FindRule(rule);
  Finding f;
  f.rule_id = rule;
  f.severity = info != nullptr ? info->severity : Severity::kError;
  f.location = std::move(location);
  f.message = std::move(message);
  f.hint = info != nullptr ? info->hint : "";
  report_->findings.push_back(std::move(f));
  Checked(rule);
}

void ValidateContext::Checked(const std::string& rule) { report_->checked_rules.push_back(rule); }

void ValidateContext::NotChecked(const std::string& rule, Location location, std::string reason) {
  report_->not_checked.push_back(UncheckedRule{rule, std::move(location), std::move(reason)});
}

Location OperatorLocation(const OperatorInfo& op) { return OperatorLocationOf(op.name, op.uid, op.id_hex); }

std::string PathFromSnapshot(const SnapshotFile& f) {
  switch (f.scope) {
    case FileScope::kShared: return "../" + std::string(format::kSharedDirName) + "/" + f.path;
    case FileScope::kTaskOwned:
      return "../" + std::string(format::kTaskOwnedDirName) + "/" + f.path;
    default: return f.path;
  }
}

Location FileLocation(const SnapshotFile& f) {
  Location l;
  l.file = PathFromSnapshot(f);
  return l;
}

base::Result<std::optional<Snapshot>> CheckMetadata(ValidateContext& ctx, const std::string& path) {
  for (const char* r : {"CKPT-M001", "CKPT-M002", "CKPT-M003", "CKPT-M004", "CKPT-M005",
                        "CKPT-M006"}) {
    ctx.Checked(r);
  }
  base::Fs& fs = ctx.fs();
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(path));
  std::string dir = path;
  std::string metadata = base::JoinPath(path, format::kMetadataFileName);
  if (!info.is_dir) {
    dir = base::DirName(path);
    metadata = path;
  }
  Location where;
  where.file = std::string(format::kMetadataFileName);
  auto file = fs.OpenRead(metadata);
  if (!file.ok()) {
    if (file.status().code() == base::StatusCode::kFailedPrecondition) {
      // A link or a FIFO in place of _metadata: reported, never followed or waited on.
      ctx.Checked("CKPT-F011");
      ctx.Add("CKPT-F011", where, file.status().message());
      return std::optional<Snapshot>();
    }
    if (!file.status().IsNotFound()) return file.status();
    ctx.Add("CKPT-M001", where, dir + " has no _metadata: not a complete snapshot");
    return std::optional<Snapshot>();
  }
  return FormatAt(fs, metadata).CheckMetadata(ctx, dir, metadata, **file);
}

}  // namespace internal

std::string SnapshotTypeLabel(const Snapshot& s) {
  std::string label(SnapshotKindName(s.kind));
  std::vector<std::string> parts;
  if (s.kind == SnapshotKind::kSavepoint) parts.emplace_back(SavepointFormatName(s.savepoint_format));
  parts.emplace_back(CheckpointTypeName(s.checkpoint_type));
  parts.emplace_back(CheckpointingModeName(s.mode));
  label += " (";
  for (size_t i = 0; i < parts.size(); ++i) label += (i == 0 ? "" : ", ") + parts[i];
  return label + ")";
}

base::Result<ValidateReport> Validate(base::Fs& fs, const std::string& path,
                                      const ValidateOptions& options,
                                      const base::Progress& progress) {
  ValidateReport report;
  report.snapshot = path;
  internal::ValidateContext ctx(fs, options, progress, &report);
  CKPT_ASSIGN_OR_RETURN(std::optional<Snapshot> snapshot, internal::CheckMetadata(ctx, path));
  if (snapshot) {
    CKPT_RETURN_IF_ERROR(internal::FormatOf(*snapshot).ValidateSnapshot(ctx, *snapshot));
    if (!options.since.empty()) CKPT_RETURN_IF_ERROR(internal::CheckSince(ctx, *snapshot));
  }
  SortFindings(&report.findings);
  std::sort(report.not_checked.begin(), report.not_checked.end(),
            [](const UncheckedRule& a, const UncheckedRule& b) {
              return std::tie(a.rule_id, a.location.file, a.location.operator_id, a.reason) <
                     std::tie(b.rule_id, b.location.file, b.location.operator_id, b.reason);
            });
  report.not_checked.erase(std::unique(report.not_checked.begin(), report.not_checked.end()),
                           report.not_checked.end());
  if (snapshot) {
    report.capabilities = CapabilitiesVerdict(*snapshot, report.findings, report.not_checked);
    internal::FormatOf(*snapshot).AddCapabilities(&report.capabilities);
  }
  std::sort(report.checked_rules.begin(), report.checked_rules.end());
  report.checked_rules.erase(std::unique(report.checked_rules.begin(), report.checked_rules.end()),
                             report.checked_rules.end());
  return report;
}

}  // namespace ckpt::ops
