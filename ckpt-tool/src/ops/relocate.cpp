#include "ckpt/ops/relocate.h"

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "relocate_copy.h"

namespace ckpt::ops {

base::Result<RelocateResult> Relocate(base::Fs& fs, const std::string& snapshot,
                                      const std::string& output_dir,
                                      const RelocateOptions& options) {
  CKPT_ASSIGN_OR_RETURN(auto location, format::LocateSnapshot(fs, snapshot));
  CKPT_ASSIGN_OR_RETURN(auto metadata, format::ReadMetadataFile(fs, location.metadata));
  CKPT_RETURN_IF_ERROR(internal::CheckOutputAbsent(fs, output_dir));

  RelocateResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.checkpoint_id = metadata.checkpoint_id();
  result.converted_checkpoint = metadata.kind() != pb::SAVEPOINT;
  result.dry_run = options.dry_run;

  std::vector<std::string> paths = internal::PlanOutputPaths(metadata);
  CKPT_ASSIGN_OR_RETURN(result.files, internal::PlanCopy(location.dir, metadata, paths));
  for (const auto& f : result.files) result.total_bytes += f.size_bytes;
  if (options.dry_run) return result;

  internal::MakeSelfContained(&metadata, paths, "ckpt.relocated_from", location.dir);
  CKPT_ASSIGN_OR_RETURN(result.bytes_copied,
                        internal::WriteSnapshotCopy(fs, result.files, output_dir, metadata,
                                                    options.progress));
  return result;
}

}  // namespace ckpt::ops
