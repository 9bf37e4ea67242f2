// DiffKeys: loads both snapshots and lets a format that reads both compare their keyed state.
#include "ckpt/ops/diff.h"

#include "formats/snapshot_format.h"

namespace ckpt::ops {

base::Result<KeyDiffSummary> DiffKeys(base::Fs& fs, const std::string& a, const std::string& b,
                                      const std::function<void(const KeyDiff&)>& sink,
                                      const base::Progress& progress) {
  CKPT_ASSIGN_OR_RETURN(Snapshot sa, LoadSnapshot(fs, a));
  CKPT_ASSIGN_OR_RETURN(Snapshot sb, LoadSnapshot(fs, b));
  const internal::SnapshotFormat& format_a = internal::FormatOf(sa);
  const internal::SnapshotFormat& format_b = internal::FormatOf(sb);
  const internal::SnapshotFormat& by = format_a.DiffsKeysWith(format_b) ? format_a : format_b;
  return by.DiffKeys(fs, sa, sb, sink, progress);
}

}  // namespace ckpt::ops
