// The registered snapshot formats, asked in order which one a `_metadata` is. A new format is a
// folder formats/<name>/ implementing SnapshotFormat and one line in kFormats below.
#include <vector>

#include "formats/flink/flink_format.h"
#include "formats/own/own_format.h"
#include "formats/snapshot_format.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

const std::vector<const SnapshotFormat*>& RegisteredFormats() {
  static const std::vector<const SnapshotFormat*> kFormats = {
      &FlinkSnapshotFormat(),  // Apache Flink's `_metadata` (its magic)
      &OwnSnapshotFormat(),    // ours; last: it takes every file no other format recognizes
  };
  return kFormats;
}

}  // namespace

const SnapshotFormat& FormatAt(base::Fs& fs, const std::string& metadata_path) {
  for (const SnapshotFormat* f : RegisteredFormats()) {
    if (f->Recognizes(fs, metadata_path)) return *f;
  }
  return OwnSnapshotFormat();
}

const SnapshotFormat& FormatOf(const Snapshot& snapshot) {
  return snapshot.raw ? snapshot.raw->format() : OwnSnapshotFormat();
}

PruneFacts MakePruneFacts(pb::CheckpointMetadata metadata,
                          base::Result<std::vector<format::ExpectedFile>> restore_files) {
  PruneFacts facts;
  facts.metadata = std::move(metadata);
  if (restore_files.ok()) {
    facts.restore_files = std::move(restore_files).value();
  } else {
    facts.restore_files_status = restore_files.status();
  }
  return facts;
}

}  // namespace ckpt::ops::internal
