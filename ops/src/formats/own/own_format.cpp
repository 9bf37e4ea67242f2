// Our own metadata format behind the SnapshotFormat seam: each operation forwards to the body in
// formats/own/ (or to the rule groups in validate/).
#include "formats/own/own_format.h"

#include "ckpt/format/metadata_codec.h"
#include "formats/own/rescale.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

class OwnFormat final : public SnapshotFormat {
 public:
  bool Recognizes(base::Fs&, const std::string&) const override { return true; }

  base::Result<Snapshot> Load(base::Fs& fs, const std::string& dir,
                              const std::string& metadata_path,
                              const LoadOptions&) const override {
    CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, metadata_path));
    Snapshot s = BuildSnapshotModel(std::move(md), dir, metadata_path);
    RefuseLinksInPaths(fs, &s);
    auto info = fs.Stat(metadata_path);
    if (info.ok()) s.metadata_size_bytes = info->size_bytes;
    return s;
  }

  base::Result<Snapshot> LoadForListing(base::Fs& fs, const std::string& dir,
                                        const std::string& metadata_path) const override {
    CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, metadata_path));
    return BuildSnapshotModel(std::move(md), dir, metadata_path);
  }

  base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                              const DumpSink& sink,
                              const base::Progress& progress) const override {
    return DumpOwn(fs, snapshot, options, sink, progress);
  }

  base::Status ScanOperatorStats(base::Fs& fs, const Snapshot& snapshot,
                                 const pb::OperatorState& state, const StatsOptions& options,
                                 const base::Progress& progress,
                                 OperatorStats* out) const override {
    return ScanOwnOperatorStats(fs, snapshot, state, options, progress, out);
  }

  base::Result<StateValueFieldList> ValueFields(base::Fs&, const Snapshot& snapshot,
                                                const OperatorInfo& op,
                                                const StateInfo& state) const override {
    return ValueFieldsOwn(snapshot, op, state);
  }

  bool DiffsKeysWith(const SnapshotFormat& other) const override { return &other == this; }

  base::Result<KeyDiffSummary> DiffKeys(base::Fs& fs, const Snapshot& a, const Snapshot& b,
                                        const std::function<void(const KeyDiff&)>& sink,
                                        const base::Progress& progress) const override {
    return DiffKeysOwn(fs, a, b, sink, progress);
  }

  base::Result<std::optional<Snapshot>> CheckMetadata(
      ValidateContext& ctx, const std::string& dir, const std::string& metadata,
      base::RandomAccessFile& file) const override {
    return CheckOwnMetadata(ctx, dir, metadata, file);
  }

  base::Status ValidateSnapshot(ValidateContext& ctx, const Snapshot& snapshot) const override {
    return ValidateOwnSnapshot(ctx, snapshot);
  }

  void AddCapabilities(std::vector<Capability>*) const override {}

  // Our engine enforces max parallelism only where keyed state is involved.
  bool RestoreChecksMaxParallelismOfEveryOperator() const override { return false; }

  base::Result<RemapResult> Remap(base::Fs& fs, const format::SnapshotLocation& location,
                                  const std::string& output_dir,
                                  const RemapOptions& options) const override {
    return RemapOwn(fs, location, output_dir, options);
  }

  base::Result<RelocateResult> Relocate(base::Fs& fs, const format::SnapshotLocation& location,
                                        const std::string& output_dir,
                                        const RelocateOptions& options) const override {
    return RelocateOwn(fs, location, output_dir, options);
  }

  base::Result<RescaleResult> Rescale(base::Fs& fs, const format::SnapshotLocation& location,
                                      const std::string& output_dir,
                                      const RescaleOptions& options) const override {
    return RescaleOwn(fs, location, output_dir, options);
  }

  // The file table, with checksums.
  base::Status Positions(base::Fs& fs, const Snapshot& snapshot, const base::Progress& progress,
                         PositionsReport* out) const override {
    return PositionsOwn(fs, snapshot, progress, out);
  }

  base::Result<std::vector<format::ExpectedFile>> RestoreFiles(
      const Snapshot& snapshot, const std::string& dir) const override {
    return format::ExpectedFilesOf(dir, RawMetadata(snapshot));
  }

  base::Result<PruneFacts> ReadPruneFacts(base::Fs& fs, const std::string& dir,
                                          const std::string& metadata_path) const override {
    CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, metadata_path));
    auto files = format::ExpectedFilesOf(dir, md);
    return MakePruneFacts(std::move(md), std::move(files));
  }
};

}  // namespace

const SnapshotFormat& OwnSnapshotFormat() {
  static const OwnFormat kFormat;
  return kFormat;
}

}  // namespace ckpt::ops::internal
