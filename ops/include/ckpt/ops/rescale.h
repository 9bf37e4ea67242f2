// Rescale max parallelism (FLINK-13093): writes a NEW savepoint whose keyed state is
// re-assigned to the key groups of a new max parallelism, so a job with that max parallelism
// restores it with every key's state intact. Both formats, canonical savepoints only (a native
// savepoint or a checkpoint is refused with the reason):
// - ckpt format: a key's group is KeyGroupForKey(encoded key, maxP), so every key type is
//   supported; each operator keeps its parallelism and gets one new keyed container per subtask.
// - Apache Flink: a key's group is murmurHash(key.hashCode()) % maxParallelism
//   (KeyGroupRangeAssignment): supported where the key serializer's Java hashCode is known
//   (String, boxed primitives, Flink Tuples and Rows of those) and refused naming the serializer
//   otherwise.
// Operator and coordinator state are kept as they are. The input is never modified; the output
// is built in OUT.tmp, every file fsynced, `_metadata` last, then renamed. Stateless;
// thread-safe for distinct output directories.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops {

struct RescaleOptions {
  // The new max parallelism (1..32768, at least each rescaled operator's parallelism). Required.
  int32_t new_max_parallelism = 0;
  // Only these operators (ID hex, uid or name). Default: every operator of the snapshot (a job's
  // max parallelism is normally one setting for the whole job).
  std::vector<std::string> operators;
  // Plan only (every key is still read and re-assigned, so what would be refused is refused);
  // nothing is written. Default: false.
  bool dry_run = false;
  // Progress of the copy; cancellation between blocks (the partial output is removed).
  base::Progress progress;
  // Return the validation of the output in RescaleResult::verification. The output is always
  // validated before it is published (and not published with an error finding); this only
  // asks for the report when it was. Default: false.
  bool verify_output = false;
};

// What happened to one operator.
struct RescaledOperator {
  std::string operator_id;  // 32 hex digits
  std::string uid;          // v5+ only
  std::string name;         // v5+ only
  int32_t parallelism = 0;
  int32_t old_max_parallelism = 0;
  int32_t new_max_parallelism = 0;
  std::string key_serializer;  // display name; empty without keyed state
  uint64_t keyed_entries = 0;  // keyed-state entries re-assigned (timers included)
  uint64_t keys_moved_subtask = 0;  // entries that now belong to another subtask
  std::vector<std::string> output_files;  // the rewritten keyed-state streams, one per subtask
};

struct RescaleResult {
  std::string source_dir;
  std::string output_dir;
  int64_t checkpoint_id = 0;
  bool dry_run = false;
  // True once the output is published. False for a dry run, and when the complete output did
  // not validate: then it was removed and `refused` names the error findings.
  bool written = false;
  std::string refused;
  std::vector<RescaledOperator> operators;  // the operators whose max parallelism changed
  uint64_t files_copied = 0;    // unchanged state files copied beside the new `_metadata`
  uint64_t bytes_copied = 0;    // 0 for a dry run
  uint64_t bytes_written = 0;   // new keyed-state streams plus `_metadata`
  std::vector<std::string> warnings;
  // With verify_output, or when the output was refused, the validation of the output.
  std::optional<ValidateReport> verification;
};

// Rescales `snapshot` (directory or its `_metadata`) into `output_dir`, which must not exist; built
// in `output_dir`.tmp, validated and renamed (see RescaleResult::written). InvalidArgument for a
// max parallelism out of range or below an operator's parallelism, an output that is the input,
// inside or around it, or inside another snapshot or checkpoint storage (chk-<n>/, shared/,
// taskowned/), an unknown operator, or an unsupported key serializer (named); Unimplemented for an
// input that is not a canonical savepoint (the reason named); Corruption naming the file for
// malformed state, a recorded (max) parallelism or key-group range that cannot be, or a key whose
// stored key group is not the one its key (hashCode for Flink) gives; AlreadyExists if `output_dir`
// exists; IOError; Cancelled.
base::Result<RescaleResult> RescaleMaxParallelism(base::Fs& fs, const std::string& snapshot,
                                                  const std::string& output_dir,
                                                  const RescaleOptions& options);

}  // namespace ckpt::ops
