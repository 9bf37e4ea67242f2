// Apache Flink's `_metadata` behind the SnapshotFormat seam: each operation forwards to the body
// in formats/flink/.
#include "formats/flink/flink_format.h"

#include <map>
#include <string_view>

#include "ckpt/flink/metadata_reader.h"
#include "formats/flink/diff.h"
#include "formats/flink/dump.h"
#include "formats/flink/model.h"
#include "formats/flink/relocate.h"
#include "formats/flink/remap.h"
#include "formats/flink/rescale.h"
#include "formats/flink/stats.h"
#include "formats/flink/validate.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

// True if the file at `metadata_path` starts with Flink's magic 0x4960672D (false if it cannot
// be read or is shorter than 4 bytes).
bool IsFlinkMetadataFile(base::Fs& fs, const std::string& metadata_path) {
  auto file = fs.OpenRead(metadata_path);
  if (!file.ok() || (*file)->Size() < 4) return false;
  char head[4];
  auto n = (*file)->ReadAt(0, 4, head);
  return n.ok() && *n == 4 && flink::HasFlinkMagic(std::string_view(head, 4));
}

class FlinkFormat final : public SnapshotFormat {
 public:
  bool Recognizes(base::Fs& fs, const std::string& metadata_path) const override {
    return IsFlinkMetadataFile(fs, metadata_path);
  }

  base::Result<Snapshot> Load(base::Fs& fs, const std::string& dir,
                              const std::string& metadata_path,
                              const LoadOptions& options) const override {
    return LoadFlinkSnapshot(fs, dir, metadata_path, options.state_meta);
  }

  // Without the keyed-state meta information: no state file is opened.
  base::Result<Snapshot> LoadForListing(base::Fs& fs, const std::string& dir,
                                        const std::string& metadata_path) const override {
    return LoadFlinkSnapshot(fs, dir, metadata_path, /*state_meta=*/false);
  }

  // Every operator in snapshot order when none is named.
  base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                              const DumpSink& sink,
                              const base::Progress& progress) const override {
    if (!options.operator_ref.empty()) return DumpFlink(fs, snapshot, options, sink, progress);
    uint64_t total = 0;
    for (const auto& op : snapshot.operators) {
      DumpOptions one = options;
      one.operator_ref = op.id_hex;
      CKPT_ASSIGN_OR_RETURN(uint64_t n, DumpFlink(fs, snapshot, one, sink, progress));
      total += n;
    }
    return total;
  }

  // Key groups from the offsets in `_metadata`, entries counted by decoding the keyed state.
  base::Status ScanOperatorStats(base::Fs& fs, const Snapshot& snapshot,
                                 const pb::OperatorState&, const StatsOptions& options,
                                 const base::Progress& progress,
                                 OperatorStats* out) const override {
    const flink::Metadata* md = FlinkMetadataOf(snapshot);
    if (md == nullptr) {
      return base::Status::InvalidArgument(snapshot.metadata_path + " is not a Flink snapshot");
    }
    std::map<uint32_t, KeyGroupStats> groups;
    CKPT_RETURN_IF_ERROR(ScanFlinkOperator(*md, out->id_hex, &groups, out));
    CKPT_RETURN_IF_ERROR(CountFlinkKeyedEntries(fs, snapshot, out->id_hex, &groups, out, progress,
                                                options.top_keys, options.ttl_expired_at_ms,
                                                options.ttl_ms));
    for (const auto& [g, kg] : groups) out->key_groups.push_back(kg);
    // Entries are counted, but no record's bytes are measured per state: unknown, not 0.
    for (auto& st : out->states) st.bytes_known = false;
    return base::Status::OK();
  }

  base::Result<StateValueFieldList> ValueFields(base::Fs& fs, const Snapshot& snapshot,
                                                const OperatorInfo& op,
                                                const StateInfo& state) const override {
    return ValueFieldsFlink(fs, snapshot, op, state);
  }

  // Entries are read through DumpFlink, which decodes our format's snapshots too.
  bool DiffsKeysWith(const SnapshotFormat&) const override { return true; }

  base::Result<KeyDiffSummary> DiffKeys(base::Fs& fs, const Snapshot& a, const Snapshot& b,
                                        const std::function<void(const KeyDiff&)>& sink,
                                        const base::Progress& progress) const override {
    return DiffKeysFlink(fs, a, b, sink, progress);
  }

  base::Result<std::optional<Snapshot>> CheckMetadata(
      ValidateContext& ctx, const std::string& dir, const std::string& metadata,
      base::RandomAccessFile&) const override {
    return CheckFlinkMetadata(ctx, dir, metadata);
  }

  base::Status ValidateSnapshot(ValidateContext& ctx, const Snapshot& snapshot) const override {
    return ValidateFlinkSnapshot(ctx, snapshot);
  }

  void AddCapabilities(std::vector<Capability>* caps) const override {
    AddFlinkCapabilities(caps);
  }

  // Checkpoints.loadAndValidateCheckpoint checks every operator with state.
  bool RestoreChecksMaxParallelismOfEveryOperator() const override { return true; }

  base::Result<RemapResult> Remap(base::Fs& fs, const format::SnapshotLocation& location,
                                  const std::string& output_dir,
                                  const RemapOptions& options) const override {
    return RemapFlink(fs, location, output_dir, options);
  }

  base::Result<RelocateResult> Relocate(base::Fs& fs, const format::SnapshotLocation& location,
                                        const std::string& output_dir,
                                        const RelocateOptions& options) const override {
    return RelocateFlink(fs, location, output_dir, options);
  }

  base::Result<RescaleResult> Rescale(base::Fs& fs, const format::SnapshotLocation& location,
                                      const std::string& output_dir,
                                      const RescaleOptions& options) const override {
    return RescaleFlink(fs, location, output_dir, options);
  }

  base::Status Positions(base::Fs& fs, const Snapshot& snapshot, const base::Progress& progress,
                         PositionsReport* out) const override {
    return PositionsFlink(fs, snapshot, progress, out);
  }

  base::Result<std::vector<format::ExpectedFile>> RestoreFiles(
      const Snapshot& snapshot, const std::string&) const override {
    return FlinkRestoreFiles(snapshot);
  }

  // The model's protobuf: its file table resolves relative handles against the chk-N directory
  // and absolute ones in <job>/shared/ as SHARED.
  base::Result<PruneFacts> ReadPruneFacts(base::Fs& fs, const std::string& dir,
                                          const std::string& metadata_path) const override {
    CKPT_ASSIGN_OR_RETURN(Snapshot s, LoadFlinkSnapshot(fs, dir, metadata_path));
    auto files = FlinkRestoreFiles(s);
    return MakePruneFacts(RawMetadata(s), std::move(files));
  }
};

}  // namespace

const SnapshotFormat& FlinkSnapshotFormat() {
  static const FlinkFormat kFormat;
  return kFormat;
}

}  // namespace ckpt::ops::internal
