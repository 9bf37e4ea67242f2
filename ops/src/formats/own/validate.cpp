// validate for snapshots of our format: the metadata check, through format's typed defect result
// (so each kind of damage has its own rule), and the structure, sibling, file, value and
// --against rule groups (validate/).
#include "formats/own/own_format.h"

#include <algorithm>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "model/snapshot_raw.h"
#include "formats/own/validate_groups.h"

namespace ckpt::ops::internal {

base::Result<std::optional<Snapshot>> CheckOwnMetadata(ValidateContext& ctx, const std::string& dir,
                                                       const std::string& metadata,
                                                       base::RandomAccessFile& file) {
  base::Fs& fs = ctx.fs();
  Location where;
  where.file = std::string(format::kMetadataFileName);
  const uint64_t size = file.Size();
  const uint64_t limit =
      format::kMetadataHeaderSize + format::kMaxMetadataPayloadBytes + format::kMetadataTrailerSize;
  std::string bytes(std::min(size, limit), '\0');
  CKPT_ASSIGN_OR_RETURN(size_t n, file.ReadAt(0, bytes.size(), bytes.data()));
  bytes.resize(n);
  // format classifies the damage (one typed defect per kind); each kind has its own rule.
  format::MetadataDecodeResult decoded = format::DecodeMetadataChecked(bytes, metadata);
  switch (decoded.defect) {
    case format::MetadataDefect::kNone: break;
    case format::MetadataDefect::kBadMagic:
      ctx.Add("CKPT-M002", where, decoded.status.message());
      return std::optional<Snapshot>();
    case format::MetadataDefect::kNewerVersion:
      ctx.Add("CKPT-M003", where, decoded.status.message());
      return std::optional<Snapshot>();
    case format::MetadataDefect::kLengthMismatch:
      ctx.Add("CKPT-M004", where, decoded.status.message());
      return std::optional<Snapshot>();
    case format::MetadataDefect::kChecksumMismatch:
      ctx.Add("CKPT-M005", where, decoded.status.message());
      return std::optional<Snapshot>();
    case format::MetadataDefect::kEscapingReference:
      for (const auto& e : decoded.escaping) {
        Location l;
        l.file = e.path;
        ctx.Add("CKPT-F004", l, "file #" + std::to_string(e.index) + ": " + e.why);
      }
      return std::optional<Snapshot>();
    case format::MetadataDefect::kInvalidEnvelope:
    case format::MetadataDefect::kInvalidPayload:
    case format::MetadataDefect::kInvalidStructure:
      ctx.Add("CKPT-M006", where, decoded.status.message());
      return std::optional<Snapshot>();
  }
  if (size != bytes.size()) {  // larger than any valid _metadata: only its head was read
    ctx.Add("CKPT-M004", where,
            metadata + ": " + std::to_string(size) + " bytes, more than any valid _metadata");
    return std::optional<Snapshot>();
  }
  Snapshot s = BuildSnapshotModel(std::move(*decoded.metadata), dir, metadata);
  RefuseLinksInPaths(fs, &s);
  s.metadata_size_bytes = size;
  return std::optional<Snapshot>(std::move(s));
}


base::Status ValidateOwnSnapshot(ValidateContext& ctx, const Snapshot& snapshot) {
  ctx.report().snapshot_type = SnapshotTypeLabel(snapshot);
  CheckStructure(ctx, snapshot);
  CheckSiblings(ctx, snapshot);
  CKPT_RETURN_IF_ERROR(CheckFiles(ctx, snapshot));
  if (ctx.options().deep) {
    CheckDeclaredValues(ctx, snapshot);
    CKPT_RETURN_IF_ERROR(DeepCheckRocksDb(ctx, snapshot));
    CKPT_RETURN_IF_ERROR(DeepCheckChannelState(ctx, snapshot));
  }
  if (!ctx.options().against_job.empty()) CKPT_RETURN_IF_ERROR(CheckAgainst(ctx, snapshot));
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
