// validate: the driver. Reads `_metadata` with its own envelope classification (so each kind of
// damage has its own rule), then runs the structure, file and restore rule groups.
#include "ckpt/ops/validate.h"

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "snapshot_raw.h"
#include "validate_internal.h"

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
  const RuleInfo* info = FindRule(rule);
  AddWithSeverity(rule, info != nullptr ? info->severity : Severity::kError, std::move(location),
                  std::move(message));
}

void ValidateContext::AddWithSeverity(const std::string& rule, Severity severity,
                                      Location location, std::string message) {
  const RuleInfo* info = FindRule(rule);
  Finding f;
  f.rule_id = rule;
  f.severity = severity;
  f.location = std::move(location);
  f.message = std::move(message);
  f.hint = info != nullptr ? info->hint : "";
  report_->findings.push_back(std::move(f));
  Checked(rule);
}

void ValidateContext::Checked(const std::string& rule) { report_->checked_rules.push_back(rule); }

Location OperatorLocation(const OperatorInfo& op) {
  Location l;
  l.operator_id = op.id_hex;
  l.operator_name = op.uid.empty() ? op.name : op.uid;
  return l;
}

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
  const uint64_t size = (*file)->Size();
  const uint64_t limit =
      format::kMetadataHeaderSize + format::kMaxMetadataPayloadBytes + format::kMetadataTrailerSize;
  std::string bytes(std::min(size, limit), '\0');
  CKPT_ASSIGN_OR_RETURN(size_t n, (*file)->ReadAt(0, bytes.size(), bytes.data()));
  bytes.resize(n);
  auto env = format::DecodeEnvelope(bytes, metadata);
  if (!env.ok()) {
    const size_t magic_len = std::min(bytes.size(), format::kMetadataMagic.size());
    if (env.status().code() == base::StatusCode::kUnimplemented) {
      ctx.Add("CKPT-M003", where, env.status().message());
    } else if (bytes.substr(0, magic_len) != format::kMetadataMagic.substr(0, magic_len)) {
      ctx.Add("CKPT-M002", where, env.status().message());
    } else if (bytes.size() < format::kMetadataHeaderSize) {
      ctx.Add("CKPT-M004", where, env.status().message());
    } else {
      ctx.Add("CKPT-M006", where, env.status().message());
    }
    return std::optional<Snapshot>();
  }
  const uint64_t expected =
      format::kMetadataHeaderSize + env->payload_length + format::kMetadataTrailerSize;
  if (size != expected) {
    ctx.Add("CKPT-M004", where,
            metadata + ": " + std::to_string(size) + " bytes, the envelope says " +
                std::to_string(expected));
    return std::optional<Snapshot>();
  }
  const size_t checked = format::kMetadataHeaderSize + env->payload_length;
  const uint64_t stored = base::DecodeFixed64(bytes.data() + checked);
  const uint64_t actual = base::Xxh3(std::string_view(bytes).substr(0, checked));
  if (stored != actual) {
    ctx.Add("CKPT-M005", where,
            metadata + ": checksum stored " + base::ChecksumHex(stored) + ", computed " +
                base::ChecksumHex(actual));
    return std::optional<Snapshot>();
  }
  auto md = format::DecodeMetadata(bytes, metadata);
  if (!md.ok()) {
    // The format reader refuses structurally unsafe metadata as a whole. If the payload itself
    // parses, name the escaping references under their own rule so users see the real problem.
    pb::CheckpointMetadata raw;
    const std::string_view payload =
        std::string_view(bytes).substr(format::kMetadataHeaderSize, env->payload_length);
    bool escaping = false;
    if (raw.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      for (int i = 0; i < raw.files_size(); ++i) {
        const pb::FileEntry& fe = raw.files(i);
        if (fe.scope() == pb::EXTERNAL) continue;
        base::Status rel = format::CheckRelativePath(fe.path());
        if (rel.ok()) continue;
        Location l;
        l.file = fe.path();
        ctx.Add("CKPT-F004", l, "file #" + std::to_string(i) + ": " + rel.message());
        escaping = true;
      }
    }
    if (!escaping) ctx.Add("CKPT-M006", where, md.status().message());
    return std::optional<Snapshot>();
  }
  Snapshot s = BuildSnapshotModel(std::move(md).value(), dir, metadata);
  s.metadata_size_bytes = size;
  return std::optional<Snapshot>(std::move(s));
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
    report.snapshot_type = SnapshotTypeLabel(*snapshot);
    report.capabilities = Capabilities(*snapshot);
    internal::CheckStructure(ctx, *snapshot);
    CKPT_RETURN_IF_ERROR(internal::CheckFiles(ctx, *snapshot));
    if (options.deep) internal::CheckDeclaredValues(ctx, *snapshot);
    if (!options.against_job.empty()) CKPT_RETURN_IF_ERROR(internal::CheckAgainst(ctx, *snapshot));
  }
  SortFindings(&report.findings);
  std::sort(report.checked_rules.begin(), report.checked_rules.end());
  report.checked_rules.erase(std::unique(report.checked_rules.begin(), report.checked_rules.end()),
                             report.checked_rules.end());
  return report;
}

}  // namespace ckpt::ops
