// dump: streams a snapshot's entries through its format (SnapshotFormat::Dump).
#include "ckpt/ops/dump.h"

#include "formats/snapshot_format.h"

namespace ckpt::ops {

base::Result<uint64_t> Dump(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                            const DumpSink& sink, const base::Progress& progress) {
  return internal::FormatOf(snapshot).Dump(fs, snapshot, options, sink, progress);
}

}  // namespace ckpt::ops
