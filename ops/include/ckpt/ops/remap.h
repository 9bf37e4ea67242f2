// Remap: writes a NEW self-contained savepoint whose operator IDs match a new job version, moving
// every kind of an operator's state with it — keyed, operator, channel state, sink committables
// AND coordinator state (which an ID change that rewrites only subtask state drops). The input is
// never modified; `_metadata` is written last, atomically. Stateless; thread-safe.
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

// OLD=NEW as the user wrote it. OLD names an operator of the snapshot: 32 hex digits (its ID),
// its uid, or its name (in that order; "id:", "uid:" or "name:" forces one). NEW is the new
// identity: 32 hex digits (an ID; the uid is then cleared) or a uid ("id:"/"uid:" force one).
struct OperatorMapping {
  std::string from;
  std::string to;
};

// Replaces a uid prefix (or suffix) `from` by `to` on every operator whose uid has it.
struct UidRewrite {
  std::string from;
  std::string to;
};

struct RemapOptions {
  // --map OLD=NEW. Default: none.
  std::vector<OperatorMapping> mappings;
  // --against JOB.json: map onto the operators of this job spec. Operators whose ID exists in
  // the new job stay; others are matched by uid rewrite, then by the spec's local operator id
  // (or by name with `by_name`). Default: empty (no job).
  std::string against_job_path;
  // --by-name: with `against_job_path`, match by operator name instead of spec id. Default: false.
  bool by_name = false;
  // --uid-prefix / --uid-suffix OLD=NEW. Default: none.
  std::vector<UidRewrite> uid_prefix_rewrites;
  std::vector<UidRewrite> uid_suffix_rewrites;
  // --drop OPERATOR (ID, uid or name): leave this operator's state out. Default: none.
  std::vector<std::string> drop;
  // Plan only; nothing is written. Default: false.
  bool dry_run = false;
  // Progress of the copy (bytes); cancellation between blocks. Default: none.
  base::Progress progress;
  // Return the validation of the output in RemapResult::verification. The output is always
  // validated before it is published (and not published with an error finding); this only
  // asks for the report when it was. Default: false.
  bool verify_output = false;
  // --copy: write independent copies of the state files. Default: false: each state file of the
  // output is a hard link to the input's (savepoint files are never modified, so the two
  // snapshots can share them; deleting either leaves the other whole), checked first as a copy
  // would be; copied where the filesystem cannot link (OUT on another filesystem).
  bool copy_files = false;
};

enum class RemapAction { kKeep, kRename, kDrop };

// The fate of one operator that has state in the snapshot.
struct RemapEntry {
  std::string name;
  std::string old_id_hex;
  std::string old_uid;
  std::string new_id_hex;  // equals old_id_hex for kKeep; empty for kDrop
  std::string new_uid;
  RemapAction action = RemapAction::kKeep;
  std::string reason;      // e.g. "--map orders=orders-v2", "same spec id 'sum' in job.json"
  uint32_t subtasks_with_state = 0;
  uint32_t states = 0;     // declared states
  bool has_coordinator_state = false;
  uint64_t state_bytes = 0;  // sizes of the distinct files it references + inline coordinator
};

struct RemapResult {
  std::string source_dir;
  std::string output_dir;
  bool dry_run = false;
  std::vector<RemapEntry> operators;  // in the snapshot's operator order
  // Mappings, rewrites and drops that matched no operator (as the user wrote them).
  std::vector<std::string> unmatched;
  // Problems the output will still have against the new job (state without an operator in
  // it, max parallelism that differs), and mapping sides that look like mistyped operator IDs
  // (MappingWarnings); each is a sentence naming the operator or the mapping.
  std::vector<std::string> warnings;
  // True once the output is written. A remap with unmatched requests plans fully and writes
  // nothing (so fixing the mapping and retrying works): written is false and `refused` says why.
  // So is one whose complete output did not validate (removed; `verification` holds why).
  bool written = false;
  std::string refused;
  size_t files = 0;           // files of the output snapshot
  uint64_t total_bytes = 0;   // their sizes
  uint64_t bytes_copied = 0;  // 0 for a dry run
  size_t files_linked = 0;    // of `files`, those that became hard links to the input's
  // With verify_output, or when the output was refused, the validation of the output.
  std::optional<ValidateReport> verification;
  // How copied files were verified: "checksums" (our format: sizes and XXH3) or "sizes" (an
  // Apache Flink snapshot, which records no checksums).
  std::string copies_verified_by = "checksums";
};

// Plans and (unless dry_run, or a request matched nothing) writes the remapped savepoint at
// `output_dir`, built in `output_dir`.tmp, validated and renamed (see RemapResult::written).
// Returns the plan. InvalidArgument if `output_dir` is the input, inside or around it, or inside
// another snapshot or checkpoint storage (chk-<n>/, shared/, taskowned/), if nothing is requested,
// a mapping is malformed, an OLD is ambiguous, mappings are chained (A=B and B=C) or conflicting
// (two olds to one new, one old to two news), or a new ID collides with an operator that keeps its
// ID; NotFound if the snapshot or the job spec is missing; AlreadyExists if `output_dir` exists
// (also for a dry run); Corruption (naming the file) for damaged metadata or a referenced file
// whose size or checksum does not match (the partial output is removed); IOError; Cancelled.
base::Result<RemapResult> Remap(base::Fs& fs, const std::string& snapshot,
                                const std::string& output_dir, const RemapOptions& options);

// "keep", "rename", "drop".
std::string_view RemapActionName(RemapAction action);

}  // namespace ckpt::ops
