// validate: agreement with the other retained checkpoints of the same job. A SHARED or
// TASK_OWNED file is one file on disk, so every checkpoint that references it must record the
// same creator (created_by_checkpoint_id); two different creators mean one metadata is wrong
// (the frozen fixtures/v1 chk-2 records its re-referenced changelog segment as its own).
#include <map>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "formats/own/validate_groups.h"

namespace ckpt::ops::internal {

void CheckSiblings(ValidateContext& ctx, const Snapshot& s) {
  if (s.kind != SnapshotKind::kCheckpoint) return;
  // path (by scope) -> the file entry of this snapshot
  std::map<std::pair<FileScope, std::string>, const SnapshotFile*> own;
  for (const auto& f : s.files) {
    if (f.scope == FileScope::kShared || f.scope == FileScope::kTaskOwned) {
      own[{f.scope, f.path}] = &f;
    }
  }
  ctx.Checked("CKPT-F012");
  if (own.empty()) return;
  const std::string job_dir = base::DirName(s.dir);
  auto entries = ctx.fs().ListDir(job_dir);
  if (!entries.ok()) return;  // no job directory around this checkpoint: nothing to compare
  for (const auto& e : *entries) {
    if (!e.is_dir) continue;
    const auto id = format::ParseCheckpointDirName(e.name);
    if (!id || *id == s.checkpoint_id) continue;
    const std::string metadata =
        base::JoinPath(base::JoinPath(job_dir, e.name), format::kMetadataFileName);
    auto md = format::ReadMetadataFile(ctx.fs(), metadata);
    if (!md.ok()) continue;  // incomplete or damaged siblings are validated on their own
    for (const auto& fe : md->files()) {
      const FileScope scope = fe.scope() == pb::SHARED       ? FileScope::kShared
                              : fe.scope() == pb::TASK_OWNED ? FileScope::kTaskOwned
                                                             : FileScope::kUnspecified;
      auto it = own.find({scope, fe.path()});
      if (it == own.end()) continue;
      const SnapshotFile& f = *it->second;
      if (fe.created_by_checkpoint_id() == f.created_by_checkpoint_id) continue;
      // Report it where the record is wrong: here, unless the evidence convicts the sibling
      // (this checkpoint referenced the file before the sibling's claimed creator existed; the
      // sibling's own validation reports it).
      const int64_t mine = f.created_by_checkpoint_id;
      const int64_t theirs = fe.created_by_checkpoint_id();
      if (s.checkpoint_id < theirs && mine <= s.checkpoint_id) continue;
      std::string verdict;
      if (*id < mine) {
        verdict = "; chk-" + std::to_string(*id) + " referenced it before checkpoint " +
                  std::to_string(mine) + " existed, so this snapshot's record is wrong";
      }
      ctx.Add("CKPT-F012", FileLocation(f),
              "created by checkpoint " + std::to_string(mine) + " in this snapshot but by " +
                  std::to_string(theirs) + " in " + e.name + verdict);
    }
  }
}

}  // namespace ckpt::ops::internal
