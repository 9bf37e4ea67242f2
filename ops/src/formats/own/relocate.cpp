// relocate of a snapshot of our format: every file copied into a self-contained savepoint
// (relocate_copy.h), the metadata rewritten to reference the copies.
#include "formats/own/own_format.h"

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "rewrite/output_publish.h"
#include "rewrite/relocate_copy.h"
#include "model/snapshot_raw.h"
#include "validate/validate_internal.h"

namespace ckpt::ops {

namespace {

// "savepoint (native, full, aligned)": the label validate gives the output.
std::string OwnRelocateOutputType(const pb::CheckpointMetadata& md) {
  return SnapshotTypeLabel(BuildSnapshotModel(md, "", ""));
}

}  // namespace

base::Result<RelocateResult> internal::RelocateOwn(base::Fs& fs,
                                                   const format::SnapshotLocation& location,
                                                   const std::string& output_dir,
                                                   const RelocateOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto metadata, format::ReadMetadataFile(fs, location.metadata));
  CKPT_RETURN_IF_ERROR(internal::CheckOutputPlace(fs, location.dir, output_dir));

  RelocateResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.checkpoint_id = metadata.checkpoint_id();
  result.converted_checkpoint = metadata.kind() != pb::SAVEPOINT;
  result.dry_run = options.dry_run;

  std::vector<std::string> paths = internal::PlanOutputPaths(metadata);
  CKPT_ASSIGN_OR_RETURN(result.files, internal::PlanCopy(location.dir, metadata, paths));
  for (const auto& f : result.files) result.total_bytes += f.size_bytes;

  pb::CheckpointMetadata out = metadata;
  internal::MakeSelfContained(&out, paths, "ckpt.relocated_from", location.dir);
  result.output_type = OwnRelocateOutputType(out);
  if (options.dry_run) return result;
  CKPT_ASSIGN_OR_RETURN(internal::CopyResult copied,
                        internal::WriteSnapshotCopy(fs, result.files, output_dir, out, {},
                                                    options.progress));
  internal::TakePublication(std::move(copied), options.verify_output, &result);
  return result;
}

}  // namespace ckpt::ops
