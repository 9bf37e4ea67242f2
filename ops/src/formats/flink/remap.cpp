// RemapFlink: see formats/flink/remap.h. Flink maps state to operators by operator ID alone
// (Checkpoints.loadAndValidateCheckpoint), and the ID of an operator with a uid is
// murmur3_x64_128(seed 0) of the uid's UTF-8 bytes (StreamGraphHasherV2), which is what
// format::OperatorId::FromUid computes; so renaming the 16 ID bytes (and, v5+, the stored uid)
// is all a restore into the changed job needs.
#include "formats/flink/remap.h"

#include <map>
#include <set>

#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "rewrite/output_publish.h"
#include "rewrite/relocate_copy.h"
#include "rewrite/remap_plan.h"

namespace ckpt::ops::internal {
namespace {

using format::OperatorId;

std::string IdBytes(const flink::OperatorState& op) {
  return std::string(reinterpret_cast<const char*>(op.id), 16);
}

// Calls `fn` on every stream handle of a keyed handle (recursively), an operator handle, a
// channel handle and a subtask.
void VisitStream(const flink::StreamHandle& h, const std::function<void(const flink::StreamHandle&)>& fn);

void VisitKeyGroups(const flink::KeyGroupsHandle* kg,
                    const std::function<void(const flink::StreamHandle&)>& fn) {
  if (kg != nullptr) VisitStream(kg->delegate, fn);
}

void VisitStream(const flink::StreamHandle& h,
                 const std::function<void(const flink::StreamHandle&)>& fn) {
  if (h.type == flink::StreamHandle::Type::kKeyGroups) {
    VisitKeyGroups(h.nested.get(), fn);
    return;
  }
  fn(h);
}

void VisitKeyed(const flink::KeyedHandle& h,
                const std::function<void(const flink::StreamHandle&)>& fn) {
  VisitKeyGroups(h.key_groups.get(), fn);
  VisitStream(h.meta, fn);
  for (const auto& f : h.shared_files) VisitStream(f.handle, fn);
  for (const auto& f : h.private_files) VisitStream(f.handle, fn);
  for (const auto& m : h.materialized) VisitKeyed(m, fn);
  for (const auto& d : h.non_materialized) VisitKeyed(d, fn);
  for (const auto& [off, sh] : h.handles_and_offsets) VisitStream(sh, fn);
}

void VisitSubtask(const flink::SubtaskState& st,
                  const std::function<void(const flink::StreamHandle&)>& fn) {
  for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
    if (oh->has_value()) VisitStream((*oh)->delegate, fn);
  }
  VisitKeyed(st.managed_keyed, fn);
  VisitKeyed(st.raw_keyed, fn);
  for (const auto* list : {&st.input_channels, &st.result_subpartitions}) {
    for (const auto& c : *list) VisitStream(c.delegate, fn);
  }
}

bool HasState(const flink::SubtaskState& st) {
  return st.managed_operator.has_value() || st.raw_operator.has_value() ||
         !st.managed_keyed.is_null() || !st.raw_keyed.is_null() || !st.input_channels.empty() ||
         !st.result_subpartitions.empty();
}

// The files an operator references: path as resolved -> (handle, size).
struct OperatorFiles {
  std::map<std::string, const flink::StreamHandle*> relative;  // by relative path
  std::map<std::string, int64_t> absolute;                     // by local path
  uint64_t inline_bytes = 0;
};

base::Result<OperatorFiles> FilesOf(const flink::Metadata& md, const flink::OperatorState& op) {
  OperatorFiles files;
  base::Status status;
  files.inline_bytes = op.coordinator.data.size();
  for (const auto& st : op.subtasks) {
    VisitSubtask(st, [&](const flink::StreamHandle& h) {
      if (!status.ok()) return;
      switch (h.type) {
        case flink::StreamHandle::Type::kByteStream:
          files.inline_bytes += h.data.size();
          break;
        case flink::StreamHandle::Type::kRelativeFile: {
          base::Status ok = flink::CheckRelativeHandlePath(h.path);
          if (!ok.ok()) {
            status = base::Status::Corruption(md.path + ": " + ok.message());
            return;
          }
          files.relative.emplace(h.path, &h);
          break;
        }
        case flink::StreamHandle::Type::kFile:
        case flink::StreamHandle::Type::kSegmentFile:
          files.absolute.emplace(h.path, h.size);
          break;
        default:
          break;
      }
    });
  }
  if (!status.ok()) return status;
  return files;
}

std::vector<KnownOperator> CollectKnown(const flink::Metadata& md) {
  std::vector<KnownOperator> known;
  for (size_t i = 0; i < md.operators.size(); ++i) {
    const auto& op = md.operators[i];
    auto id = OperatorId::FromBytes(IdBytes(op));
    known.push_back({id.ok() ? *id : OperatorId(), op.uid, op.name, "", -1, static_cast<int>(i)});
  }
  return known;
}

RemapEntry MakeEntry(const RemapPlan& plan, size_t i, const flink::OperatorState& op,
                     const OperatorFiles& files) {
  RemapEntry e = PlannedEntry(plan, i);
  std::set<std::string> names;
  for (const auto& st : op.subtasks) {
    if (HasState(st)) ++e.subtasks_with_state;
    for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
      if (!oh->has_value()) continue;
      for (const auto& s : (*oh)->states) names.insert(s.name);
    }
  }
  e.states = static_cast<uint32_t>(names.size());
  e.has_coordinator_state = !op.coordinator.is_null();
  e.state_bytes = files.inline_bytes;
  for (const auto& [path, h] : files.relative) e.state_bytes += static_cast<uint64_t>(h->size);
  for (const auto& [path, size] : files.absolute) e.state_bytes += static_cast<uint64_t>(size);
  return e;
}

}  // namespace

base::Result<RemapResult> RemapFlink(base::Fs& fs, const format::SnapshotLocation& location,
                                     const std::string& output_dir, const RemapOptions& options) {
  CKPT_ASSIGN_OR_RETURN(flink::Metadata md, flink::ReadFlinkMetadata(fs, location.metadata));
  CKPT_ASSIGN_OR_RETURN(
      RemapPlan plan,
      PlanRemapOf(fs, CollectKnown(md),
                  [&](int i) {
                    return static_cast<uint32_t>(md.operators[static_cast<size_t>(i)].max_parallelism);
                  },
                  options));
  CKPT_RETURN_IF_ERROR(CheckOutputPlace(fs, location.dir, output_dir));

  RemapResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.dry_run = options.dry_run;
  result.copies_verified_by = "sizes";
  result.unmatched = plan.unmatched;
  result.warnings = plan.warnings;

  if (md.version < 5 &&
      (!options.uid_prefix_rewrites.empty() || !options.uid_suffix_rewrites.empty())) {
    result.warnings.push_back(
        "Flink metadata v" + std::to_string(md.version) +
        " stores no uids, so --uid-prefix/--uid-suffix cannot match its operators: use --map "
        "OLD_UID=NEW_UID (OLD_UID is found by its hash, the operator ID Flink derived from it)");
  }
  std::vector<OperatorFiles> files;
  files.reserve(md.operators.size());
  for (const auto& op : md.operators) {
    CKPT_ASSIGN_OR_RETURN(OperatorFiles f, FilesOf(md, op));
    files.push_back(std::move(f));
  }
  // Operators with state first (what a remap moves), then the stateless ones it renames.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < plan.known.size(); ++i) {
      const auto& op = md.operators[i];
      const bool stateful = !op.subtasks.empty() || !op.coordinator.is_null();
      const bool touched = plan.renames.count(i) || plan.drops.count(i);
      if ((pass == 0 && stateful) || (pass == 1 && !stateful && touched)) {
        result.operators.push_back(MakeEntry(plan, i, op, files[i]));
      }
    }
  }

  // The output model: IDs and uids rewritten, dropped operators left out.
  flink::Metadata out = md;
  out.operators.clear();
  std::map<std::string, const flink::StreamHandle*> relative;
  std::map<std::string, int64_t> absolute;
  for (size_t i = 0; i < md.operators.size(); ++i) {
    if (plan.drops.count(i)) continue;
    flink::OperatorState op = md.operators[i];
    if (auto r = plan.renames.find(i); r != plan.renames.end()) {
      const std::string bytes = r->second.new_id.ToBytes();
      for (int b = 0; b < 16; ++b) op.id[b] = static_cast<uint8_t>(bytes[static_cast<size_t>(b)]);
      if (md.version >= 5 && r->second.new_uid) op.uid = *r->second.new_uid;
    }
    out.operators.push_back(std::move(op));
    relative.insert(files[i].relative.begin(), files[i].relative.end());
    absolute.insert(files[i].absolute.begin(), files[i].absolute.end());
  }
  // Serialize now, so what the version cannot hold (a uid over 65535 bytes) is refused in a
  // dry run too.
  CKPT_ASSIGN_OR_RETURN(std::string bytes, flink::SerializeFlinkMetadata(out));

  std::vector<RelocatedFile> copies;
  for (const auto& [path, h] : relative) {
    copies.push_back(SamePathCopy(location.dir, path, static_cast<uint64_t>(h->size)));
    result.total_bytes += static_cast<uint64_t>(h->size);
  }
  for (const auto& [path, size] : absolute) result.total_bytes += static_cast<uint64_t>(size);
  result.files = copies.size() + absolute.size();
  if (!absolute.empty()) {
    result.warnings.push_back(
        std::to_string(absolute.size()) + " state file(s) are referenced by absolute path (e.g. " +
        absolute.begin()->first + "); the remapped snapshot keeps referencing them there: keep " +
        location.dir + "'s files until it is restored, or relocate it to make it self-contained");
  }
  if (options.dry_run) return result;
  if (!plan.unmatched.empty()) {
    result.refused = "nothing written: " + std::to_string(plan.unmatched.size()) +
                     " request(s) matched no operator of " + location.dir;
    return result;
  }
  // Flink's relative handles hold the file size; a file whose size differs is Corruption.
  CopyOptions copy;
  copy.verify_checksums = false;  // Flink records none
  copy.transfer = options.copy_files ? FileTransfer::kCopy : FileTransfer::kLinkOrCopy;
  CKPT_ASSIGN_OR_RETURN(
      CopyResult copied,
      WriteSnapshotCopyWith(fs, copies, output_dir, WriteMetadataBytes(fs, bytes), copy,
                            options.progress));
  result.files_linked = copied.files_linked;
  TakePublication(std::move(copied), options.verify_output, &result);
  return result;
}

}  // namespace ckpt::ops::internal
