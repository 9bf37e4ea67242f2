// The catalogue of validate's rules: stable IDs, severities, descriptions and hints. This table is
// the source of docs/validate-rules.md (a test keeps the two in step). Never renumber a rule.
#include "ckpt/ops/validate.h"

#include <algorithm>
#include <string_view>

namespace ckpt::ops {
namespace {

// One row of the catalogue as written below; AllRules adds what follows from the ID.
struct RuleCatalogueRow {
  const char* id;
  Severity severity;
  const char* what;
  const char* hint;
};

// The docs/validate-rules.md section of each rule family (the ID's letter), as GitHub slugs of
// the section headings.
std::string RuleDocAnchor(std::string_view id) {
  const char family = id.size() > 5 ? id[5] : '?';
  switch (family) {
    case 'M': return "validate-rules.md#_metadata-envelope-and-payload";
    case 'F': return "validate-rules.md#referenced-files-and-state-file-containers";
    case 'P': return "validate-rules.md#savepoints";
    case 'K': return "validate-rules.md#key-groups";
    case 'T': return "validate-rules.md#subtasks-and-operators";
    case 'D': return "validate-rules.md#deep-decoding---deep";
    case 'A': return "validate-rules.md#restore-rules---against-jobjson";
    case 'R': return "validate-rules.md#replacing-a-snapshot---since-a";
    case 'S': return "validate-rules.md#statistics-ckpt-tool-stats";
    default: return "validate-rules.md";
  }
}

RuleInfo RuleFromCatalogueRow(const RuleCatalogueRow& row) {
  RuleInfo r;
  r.id = row.id;
  r.severity = row.severity;
  r.what = row.what;
  r.hint = row.hint;
  const std::string_view id = r.id;
  // F003 compares whole-file XXH3; F006 block checksums (located after an F003 mismatch, or
  // while decoding under --deep).
  r.needs_checksums = id == "CKPT-F003" || id == "CKPT-F006";
  // Record decoding: the D rules and a key's key group (K005).
  r.needs_deep = id.substr(0, 6) == "CKPT-D" || id == "CKPT-K005";
  r.needs_against = id.substr(0, 6) == "CKPT-A";
  r.needs_since = id.substr(0, 6) == "CKPT-R";
  r.from_stats = id.substr(0, 6) == "CKPT-S";
  r.doc_anchor = RuleDocAnchor(id);
  return r;
}

const std::vector<RuleCatalogueRow>& RuleCatalogue() {
  static const std::vector<RuleCatalogueRow> kRules = {
      // _metadata envelope and payload
      {"CKPT-M001", Severity::kError, "The snapshot directory has no _metadata file",
       "The checkpoint never completed (or is being written); it cannot be restored. Use an "
       "earlier complete checkpoint."},
      {"CKPT-M002", Severity::kError, "_metadata does not start with the magic \"CKPTMETA\"",
       "This is not a checkpoint metadata file, or its first bytes were overwritten."},
      {"CKPT-M003", Severity::kError, "_metadata was written by a newer format version",
       "Use a ckpt-tool at least as new as the writer."},
      {"CKPT-M004", Severity::kError,
       "_metadata is truncated or has bytes after its checksum (length disagrees with the "
       "envelope)",
       "The file was cut short or appended to (interrupted copy?). Restore it from the source."},
      {"CKPT-M005", Severity::kError, "_metadata checksum (XXH3-64) does not match its contents",
       "The metadata was damaged on disk or in transit; restore it from a good copy."},
      {"CKPT-M006", Severity::kError,
       "_metadata envelope fields or payload are invalid (unparsable protobuf, bad version or "
       "flags, structure violations such as file indexes outside the file table)",
       "The writer is buggy or the file was damaged before its checksum was computed."},
      // files
      {"CKPT-F001", Severity::kError, "A referenced file does not exist",
       "The snapshot cannot be restored without it. For shared files, check that retention or "
       "a prune did not delete it."},
      {"CKPT-F002", Severity::kError, "A referenced file's size differs from the recorded size",
       "The file was truncated, appended to or replaced."},
      {"CKPT-F003", Severity::kError,
       "A referenced file's XXH3-64 checksum differs from the recorded one",
       "The file's bytes changed after the snapshot was taken; restore it from a good copy."},
      {"CKPT-F004", Severity::kError,
       "A file reference escapes its directory or cannot be resolved (\"..\", empty or absolute "
       "paths where a relative one is required, unknown scope, a URI of a scheme no filesystem "
       "is registered for)",
       "The metadata is damaged or hostile; never follow such a reference."},
      {"CKPT-F005", Severity::kError,
       "A state-file container's header, footer or index is invalid",
       "The container cannot be read; the state of the subtasks using it is lost."},
      {"CKPT-F006", Severity::kError, "A state-file container block fails its checksum",
       "The block's records are damaged; restore the file from a good copy."},
      {"CKPT-F007", Severity::kError,
       "A shared file is recorded as created by a later checkpoint than this one",
       "Shared references must point to files of this or earlier checkpoints; the metadata is "
       "inconsistent."},
      {"CKPT-F008", Severity::kWarning, "A file-table entry is not referenced by any handle",
       "Harmless for restore, but the file is dead weight; the writer should not record it."},
      {"CKPT-F009", Severity::kError,
       "A file's kind does not match its use (e.g. a keyed handle pointing at an operator-state "
       "file, or the container's own kind differs from the file table)",
       "The metadata and the files disagree; the snapshot was assembled incorrectly."},
      {"CKPT-F010", Severity::kError,
       "A file slice or entry offset lies outside the container's records",
       "The handle points past the data; the file is truncated or the metadata is wrong."},
      {"CKPT-F011", Severity::kError,
       "A referenced file (or _metadata) is a symbolic link, FIFO, socket, device or directory, "
       "not a regular file",
       "Snapshot files are never followed through links or read from special files: a link "
       "could read a file outside the snapshot, a FIFO would hang the reader. Replace it with "
       "the real file."},
      {"CKPT-F012", Severity::kWarning,
       "A shared or task-owned file is recorded with another creator checkpoint "
       "(created_by_checkpoint_id) by another retained checkpoint of the same job",
       "One file has one creator; the writer recorded the referencing checkpoint instead of the "
       "one that wrote it. Restore is not affected, but retention and size accounting "
       "(checkpointed size) that trust the creator are wrong."},
      // savepoints
      {"CKPT-P001", Severity::kError,
       "A savepoint references files outside its directory (shared, task-owned or external)",
       "Savepoints must be self-contained and relocatable; relocate the snapshot with "
       "`ckpt-tool relocate` to copy the files in."},
      // key groups
      {"CKPT-K001", Severity::kError,
       "Key groups of [0, maxParallelism) are covered by no subtask of a keyed operator",
       "State of those key groups is missing; restoring would silently lose it."},
      {"CKPT-K002", Severity::kError, "A key group is covered by more than one subtask",
       "Overlapping handles would restore the same keys twice."},
      {"CKPT-K003", Severity::kWarning,
       "A subtask's key-group range differs from the range its index owns at this parallelism",
       "Restore still works (ranges are intersected), but the writer assigned key groups "
       "unusually."},
      {"CKPT-K004", Severity::kError, "A key-group range lies outside [0, maxParallelism)",
       "The handle is inconsistent with the operator's max parallelism."},
      {"CKPT-K005", Severity::kError,
       "A record's key hashes to another key group than the section it is stored in (--deep)",
       "The key would be restored on the wrong subtask and never be found; the writer used a "
       "different key serialization or hash."},
      {"CKPT-K006", Severity::kError,
       "A keyed handle disagrees with its container (sections outside the handle's range, "
       "record counts or offsets differ from the footer index)",
       "The metadata and the container were not written together."},
      // subtasks and operators
      {"CKPT-T001", Severity::kError, "A subtask index is not below the operator's parallelism",
       "The snapshot names a subtask that did not exist."},
      {"CKPT-T002", Severity::kError, "A subtask index appears twice for one operator",
       "Two states for the same subtask; one would be lost on restore."},
      {"CKPT-T003", Severity::kError,
       "An operator's parallelism or max parallelism is invalid or differs between its state and "
       "the job graph",
       "maxParallelism must be in (0, 32768] and at least the parallelism."},
      {"CKPT-T004", Severity::kInfo, "Operator state belongs to an operator missing from the "
       "snapshot's job graph",
       "Expected after a restore with --allow-non-restored-state; otherwise the job graph is "
       "incomplete."},
      // deep decoding
      {"CKPT-D001", Severity::kError,
       "A record cannot be decoded with its declared types (--deep)",
       "The bytes do not match the state's type descriptors; the serializer changed without a "
       "version bump, or the file is damaged."},
      {"CKPT-D002", Severity::kError, "A keyed record names a state index that is not declared",
       "The container holds state the metadata does not describe."},
      {"CKPT-D003", Severity::kError,
       "An operator-state entry offset does not point at a record of the container (--deep)",
       "The partition's offsets and the container disagree."},
      {"CKPT-D004", Severity::kError,
       "A declared type descriptor (of a state or a coordinator state) is ill-formed: nesting "
       "deeper than 32, a list or map of zero-width elements, wrong element counts, an unknown "
       "kind (--deep)",
       "No valid writer declares such a type (format/docs/values.md); the metadata is damaged "
       "or hostile, and the values cannot be decoded safely."},
      // restore rules (--against)
      {"CKPT-A001", Severity::kError,
       "Snapshot state has no operator with the same ID in the new job (unmapped state)",
       "Give the operator its old uid, map it with `ckpt-tool remap`, or restore with "
       "--allow-non-restored-state (-n) to drop it."},
      {"CKPT-A002", Severity::kError,
       "An operator's max parallelism differs between the snapshot and the new job where the "
       "restore enforces it (the snapshot holds keyed state for it, or it is keyed in the new "
       "job)",
       "Keep maxParallelism unchanged (Flink refuses the restore), or rewrite the state offline."},
      {"CKPT-A003", Severity::kError,
       "An operator has subtask state but no coordinator state although it should have one "
       "(operators of the same kind keep coordinator state, or coordinator-only state is left "
       "under an unmapped ID: the signature of an ID change that lost it)",
       "The coordinator (e.g. a source's split assignment) would restart empty while its "
       "subtasks restore state; move the coordinator state with `ckpt-tool remap`, which keeps "
       "it with the operator."},
      {"CKPT-A004", Severity::kError,
       "Unaligned checkpoint: an edge carrying in-flight data changes its partitioner, or changes "
       "parallelism where its in-flight data cannot be redistributed (forward, rescale or "
       "broadcast partitioning; hash and rebalance are redistributed)",
       "Restore with the old parallelism, or take an aligned checkpoint or a savepoint first."},
      {"CKPT-A005", Severity::kError,
       "A pending sink file of the snapshot exists neither pending nor committed, or has "
       "another size than the snapshot recorded",
       "Restoring cannot commit it (the engine refuses the restore): that output would be lost "
       "or corrupt. Check the sink's output directory. Not checked when that directory does not "
       "exist on this host."},
      {"CKPT-A006", Severity::kWarning,
       "An operator of the new job has no uid (its ID derives from the topology)",
       "Set a uid on every stateful operator so later job changes keep their state mapped."},
      {"CKPT-A007", Severity::kError,
       "The new job's parallelism for an operator with keyed state exceeds the snapshot's max "
       "parallelism",
       "Lower the parallelism to at most maxParallelism."},
      {"CKPT-A008", Severity::kInfo,
       "An operator of the new job has no state in the snapshot (it starts empty)",
       "Expected for newly added operators; otherwise check its uid."},
      {"CKPT-A009", Severity::kInfo,
       "Snapshot state has no operator with the same ID in the new job and is skipped "
       "(--allow-non-restored-state)",
       "That state is dropped by the restore; check that this is intended."},
      // --since: positions against the snapshot this one replaces
      {"CKPT-R001", Severity::kWarning,
       "Restoring this snapshot re-reads a source split from an earlier position than the "
       "snapshot it replaces (--since) had reached",
       "The records between the two positions are read again: downstream sees them twice "
       "unless its sink is transactional and the replaced snapshot's output is discarded. "
       "Restore the newer snapshot, or accept the replay."},
      {"CKPT-R002", Severity::kInfo,
       "A source split of the snapshot it replaces (--since) is missing in this snapshot",
       "A restore does not resume that split from here: it starts where the source's own "
       "assignment puts it, or not at all. Check that the source's configuration is intended."},
      // stats
      {"CKPT-S001", Severity::kWarning,
       "Key-group skew: the largest key group is far above the median",
       "A few hot keys dominate; rescaling will not spread them. Consider key salting."},
      {"CKPT-S002", Severity::kWarning,
       "Union operator state has far more entries than the parallelism",
       "Every subtask receives all entries on restore; large union state slows restores and "
       "multiplies memory. Prefer list (split) state."},
  };
  return kRules;
}

}  // namespace

const std::vector<RuleInfo>& AllRules() {
  static const std::vector<RuleInfo> kRules = [] {
    std::vector<RuleInfo> rules;
    for (const RuleCatalogueRow& row : RuleCatalogue()) rules.push_back(RuleFromCatalogueRow(row));
    return rules;
  }();
  return kRules;
}

const RuleInfo* FindRule(std::string_view id) {
  const std::vector<RuleInfo>& rules = AllRules();
  auto it = std::find_if(rules.begin(), rules.end(), [&](const RuleInfo& r) { return r.id == id; });
  return it == rules.end() ? nullptr : &*it;
}

}  // namespace ckpt::ops
