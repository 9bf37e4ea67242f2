// Whether the files a snapshot references are all there as its metadata records them: the
// completeness check a restore makes before it trusts a snapshot (ckpt-engine --from-latest) and
// prune makes before it counts a checkpoint as restorable. Format-neutral: the caller lists what
// it expects (our file table via ExpectedFilesOf, or Apache Flink's handles). Stateless;
// thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::format {

// One file a snapshot needs.
struct ExpectedFile {
  std::string path;   // where to find it (absolute, or relative to the working directory)
  std::string shown;  // how messages name it: the reference as the metadata records it
  uint64_t size_bytes = 0;
  // The recorded size is a lower bound (a Flink changelog or file-merging segment file holds
  // other data too): the file may be larger, never smaller.
  bool size_is_lower_bound = false;
  // XXH3-64 of the whole file, where the format records one.
  std::optional<uint64_t> checksum_xxh3;
};

struct FilesCheckOptions {
  // Read every file with a recorded checksum whole and compare its XXH3-64. Default: true.
  bool verify_checksums = true;
};

// The files our `_metadata` references, resolved against `snapshot_dir`: every entry but
// EXTERNAL ones (outside the storage the snapshot owns), with exact sizes and checksums.
// Corruption naming the reference if one escapes its directory or has an unknown scope.
base::Result<std::vector<ExpectedFile>> ExpectedFilesOf(const std::string& snapshot_dir,
                                                        const pb::CheckpointMetadata& md);

// OK if every file in `files` exists as a regular file with its size (and, with
// verify_checksums, its checksum). Otherwise the first problem: NotFound "missing <shown>",
// Corruption "<shown> has N bytes, the metadata records M" or "<shown>: XXH3 is X, the metadata
// records Y". IOError if a file cannot be read for another reason.
base::Status CheckExpectedFiles(base::Fs& fs, const std::vector<ExpectedFile>& files,
                                const FilesCheckOptions& options = {});

// ExpectedFilesOf then CheckExpectedFiles: are the files of our snapshot in `snapshot_dir`
// complete?
base::Status CheckSnapshotFiles(base::Fs& fs, const std::string& snapshot_dir,
                                const pb::CheckpointMetadata& md,
                                const FilesCheckOptions& options = {});

}  // namespace ckpt::format
