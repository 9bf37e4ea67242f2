// RescaleOwn: see rescale.h. Reads every keyed record of a rescaled operator once, checks it
// sits in the key group its key gives under the old max parallelism (else Corruption: the
// savepoint would not restore either), buckets it by its key group under the new one (file order
// kept within a group, so list elements stay in order), then writes one container per subtask
// inside the copy's temporary directory, before `_metadata`.
#include "formats/own/rescale.h"

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/base/fs.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/ops/validate.h"
#include "rewrite/output_publish.h"
#include "rewrite/relocate_copy.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;

std::string OperatorHex(const pb::OperatorState& op) {
  auto id = format::OperatorId::FromBytes(op.operator_id());
  return id.ok() ? id->ToHex() : "?";
}

const pb::OperatorInfo* GraphInfo(const pb::CheckpointMetadata& md, const std::string& id_bytes) {
  for (const auto& info : md.job_graph().operators()) {
    if (info.operator_id() == id_bytes) return &info;
  }
  return nullptr;
}

// `ref` is the operator's ID hex, uid or name, or a uid whose hash is its ID.
bool Matches(const pb::CheckpointMetadata& md, const pb::OperatorState& op, const std::string& ref) {
  const std::string hex = OperatorHex(op);
  if (ref == hex || format::OperatorId::FromUid(ref).ToHex() == hex) return true;
  const pb::OperatorInfo* info = GraphInfo(md, op.operator_id());
  return info != nullptr && ((!info->uid().empty() && ref == info->uid()) ||
                             (!info->name().empty() && ref == info->name()));
}

// Why `md` cannot be rescaled ("" if it can): only a canonical savepoint's keyed state is in
// key-group containers that can be re-cut.
std::string NotCanonical(const pb::CheckpointMetadata& md, const std::vector<bool>& selected) {
  if (md.kind() != pb::SAVEPOINT) {
    return "it is a checkpoint, whose keyed state may be incremental or in the state backend's "
           "own layout; take a canonical savepoint (or `ckpt-tool relocate` it) first";
  }
  if (md.savepoint_format() != pb::CANONICAL) {
    return "it is a native savepoint, whose keyed state is in the state backend's own layout; "
           "take a canonical savepoint first";
  }
  for (int i = 0; i < md.operators_size(); ++i) {
    if (!selected[i]) continue;
    for (const auto& st : md.operators(i).subtasks()) {
      for (const auto& h : st.keyed_state()) {
        if (h.handle_case() != pb::KeyedStateHandle::kKeyGroups) {
          return "operator " + OperatorHex(md.operators(i)) + " subtask " +
                 std::to_string(st.subtask_index()) + " holds a " +
                 (h.has_rocksdb() ? "RocksDB" : "changelog") + " handle, not key-group containers";
        }
      }
    }
  }
  return "";
}

// Every keyed record of one operator, bucketed by its key group under the new max parallelism.
struct Buckets {
  std::map<uint32_t, std::vector<std::string>> by_group;
  uint64_t entries = 0;
  uint64_t moved_subtask = 0;
};

Status Bucket(base::Fs& fs, const std::vector<RelocatedFile>& files,
              const pb::OperatorState& op, uint32_t new_max_p, const base::Progress& progress,
              Buckets* out) {
  const uint32_t p = op.parallelism();
  for (const auto& st : op.subtasks()) {
    for (const auto& h : st.keyed_state()) {
      const std::string& path = files[h.key_groups().file_index()].source_path;  // checked
      CKPT_ASSIGN_OR_RETURN(auto reader, format::KeyedStateReader::Open(fs, path, op.states()));
      CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
      format::KeyedEntry e;
      std::string record;
      for (;;) {
        CKPT_ASSIGN_OR_RETURN(bool more, it.Next(&e));
        if (!more) break;
        if (progress.cancelled()) return Status::Cancelled("rescale-max-parallelism cancelled");
        const uint32_t stored = format::KeyGroupForKey(e.record.key, op.max_parallelism());
        if (stored != e.key_group) {
          return Status::Corruption(path + ": record at logical offset " +
                                    std::to_string(e.logical_offset) + " is in key group " +
                                    std::to_string(e.key_group) + ", but its key belongs to " +
                                    std::to_string(stored) + " at max parallelism " +
                                    std::to_string(op.max_parallelism()));
        }
        const uint32_t g = format::KeyGroupForKey(e.record.key, new_max_p);
        record.clear();
        format::EncodeKeyedRecord(e.record, &record);
        out->by_group[g].push_back(record);
        ++out->entries;
        if (format::SubtaskForKeyGroup(new_max_p, p, g) !=
            format::SubtaskForKeyGroup(op.max_parallelism(), p, e.key_group)) {
          ++out->moved_subtask;
        }
      }
    }
  }
  return Status::OK();
}

// A new file name beside the copied ones.
std::string NewPath(const std::string& hex, uint32_t subtask, uint32_t max_p,
                    const std::set<std::string>& taken) {
  std::string base = hex + "-" + std::to_string(subtask) + "-keyed-maxp" + std::to_string(max_p);
  std::string path = base + ".state";
  for (int n = 1; taken.count(path) != 0; ++n) path = base + "-" + std::to_string(n) + ".state";
  return path;
}

// One subtask's new container: its key-group range under the new max parallelism.
struct PlannedFile {
  int op_index = 0;
  uint32_t subtask = 0;
  format::KeyGroupRange range;
  std::string path;  // relative to the output directory
};

// Writes `f` into `dir` from `buckets`; returns its handle and file entry.
Status WriteKeyed(base::Fs& fs, const std::string& dir, const PlannedFile& f, const Buckets& buckets,
                  int64_t checkpoint_id, pb::KeyGroupsStateHandle* handle, pb::FileEntry* entry) {
  format::StateFileWriterOptions wo;
  wo.kind = pb::KEYED_STATE;
  CKPT_ASSIGN_OR_RETURN(auto writer,
                        format::StateFileWriter::Create(fs, base::JoinPath(dir, f.path), wo));
  handle->set_key_group_start(f.range.start);
  handle->set_key_group_end(f.range.end);
  for (uint32_t g = f.range.start; g <= f.range.end; ++g) {
    handle->add_key_group_offsets(writer->logical_offset());
    auto it = buckets.by_group.find(g);
    const size_t n = it == buckets.by_group.end() ? 0 : it->second.size();
    handle->add_key_group_record_counts(n);
    if (n == 0) continue;
    Status st = writer->BeginSection(g);
    for (size_t i = 0; st.ok() && i < n; ++i) st = writer->Add(it->second[i]).status();
    if (!st.ok()) {
      writer->Abandon();
      return st;
    }
  }
  auto summary = writer->Finish();
  if (!summary.ok()) {
    writer->Abandon();
    return summary.status();
  }
  entry->set_path(f.path);
  entry->set_scope(pb::EXCLUSIVE);
  entry->set_kind(pb::KEYED_STATE);
  entry->set_size_bytes(summary->size_bytes);
  entry->set_checksum_xxh3(summary->checksum_xxh3);
  entry->set_compression(summary->compression);
  entry->set_created_by_checkpoint_id(checkpoint_id);
  return Status::OK();
}

}  // namespace

base::Result<RescaleResult> RescaleOwn(base::Fs& fs, const format::SnapshotLocation& location,
                                       const std::string& output_dir,
                                       const RescaleOptions& options) {
  const uint32_t new_max_p = static_cast<uint32_t>(options.new_max_parallelism);
  if (options.new_max_parallelism < 1 || options.new_max_parallelism > 32768) {
    return Status::InvalidArgument("--max-parallelism " + std::to_string(options.new_max_parallelism) +
                                   " is out of range (1..32768)");
  }
  CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, location.metadata));
  CKPT_RETURN_IF_ERROR(CheckOutputPlace(fs, location.dir, output_dir));

  std::vector<bool> selected(md.operators_size(), options.operators.empty());
  for (const std::string& ref : options.operators) {
    bool found = false;
    for (int i = 0; i < md.operators_size(); ++i) {
      if (Matches(md, md.operators(i), ref)) selected[i] = found = true;
    }
    if (!found) {
      return Status::InvalidArgument(location.metadata + ": no operator matches --operator " + ref +
                                     " (give its ID, uid or name; `ckpt-tool show` lists them)");
    }
  }
  if (std::string why = NotCanonical(md, selected); !why.empty()) {
    return Status::Unimplemented(location.metadata + ": cannot rescale the max parallelism: " + why);
  }
  for (int i = 0; i < md.operators_size(); ++i) {
    if (!selected[i]) continue;
    const pb::OperatorState& op = md.operators(i);
    // Key groups are computed modulo the recorded max parallelism and spread by the recorded
    // parallelism: values from the file that Flink's rules do not allow are corruption.
    if (Status st = format::CheckParallelism(op.parallelism(), op.max_parallelism());
        op.max_parallelism() != new_max_p && !st.ok()) {
      return Status::Corruption(location.metadata + ": operator " + OperatorHex(op) + " records " +
                                st.message());
    }
    if (Status st = format::CheckParallelism(op.parallelism(), new_max_p); !st.ok()) {
      return Status::InvalidArgument("operator " + OperatorHex(op) + ": " + st.message());
    }
  }

  RescaleResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.checkpoint_id = md.checkpoint_id();
  result.dry_run = options.dry_run;
  std::vector<std::string> paths = PlanOutputPaths(md);
  CKPT_ASSIGN_OR_RETURN(std::vector<RelocatedFile> files, PlanCopy(location.dir, md, paths));

  // Read and re-assign every keyed record first: what would be refused is refused, dry run or not.
  std::map<int, Buckets> buckets;  // by operator index
  std::vector<PlannedFile> planned;
  std::set<std::string> taken(paths.begin(), paths.end());
  std::vector<bool> keep(md.files_size(), true);
  for (int i = 0; i < md.operators_size(); ++i) {
    const pb::OperatorState& op = md.operators(i);
    if (!selected[i] || op.max_parallelism() == new_max_p) continue;
    RescaledOperator r;
    r.operator_id = OperatorHex(op);
    if (const pb::OperatorInfo* info = GraphInfo(md, op.operator_id())) {
      r.uid = info->uid();
      r.name = info->name();
    }
    r.parallelism = static_cast<int32_t>(op.parallelism());
    r.old_max_parallelism = static_cast<int32_t>(op.max_parallelism());
    r.new_max_parallelism = options.new_max_parallelism;
    bool keyed = false;
    for (const auto& st : op.subtasks()) {
      for (const auto& h : st.keyed_state()) {
        const uint32_t index = h.key_groups().file_index();
        if (index >= keep.size()) {
          return Status::Corruption(location.metadata + ": operator " + r.operator_id + " subtask " +
                                    std::to_string(st.subtask_index()) + ": file index " +
                                    std::to_string(index) + " out of range (" +
                                    std::to_string(keep.size()) + " files)");
        }
        keyed = true;
        keep[index] = false;
      }
    }
    if (keyed) {
      for (const auto& s : op.states()) {
        if (s.has_key_type()) {
          r.key_serializer = format::TypeName(s.key_type());
          break;
        }
      }
      Buckets& b = buckets[i];
      CKPT_RETURN_IF_ERROR(Bucket(fs, files, op, new_max_p, options.progress, &b));
      r.keyed_entries = b.entries;
      r.keys_moved_subtask = b.moved_subtask;
      for (uint32_t s = 0; s < op.parallelism(); ++s) {
        PlannedFile f{i, s, format::RangeForSubtask(new_max_p, op.parallelism(), s), ""};
        f.path = NewPath(r.operator_id, s, new_max_p, taken);
        taken.insert(f.path);
        r.output_files.push_back(f.path);
        planned.push_back(std::move(f));
      }
    }
    result.operators.push_back(std::move(r));
  }
  if (result.operators.empty()) {
    result.warnings.push_back("every selected operator already has max parallelism " +
                              std::to_string(new_max_p) + "; the output is a plain copy");
  }

  // The output metadata: the copy's file table without the replaced containers, then the new ones.
  pb::CheckpointMetadata out = md;
  MakeSelfContained(&out, paths, "ckpt.rescaled_from", location.dir);
  (*out.mutable_properties())["ckpt.rescaled_max_parallelism"] = std::to_string(new_max_p);
  for (int i = 0; i < out.operators_size(); ++i) {
    if (!selected[i]) continue;
    for (auto& info : *out.mutable_job_graph()->mutable_operators()) {
      if (info.operator_id() == out.operators(i).operator_id()) info.set_max_parallelism(new_max_p);
    }
    out.mutable_operators(i)->set_max_parallelism(new_max_p);
    if (buckets.count(i) != 0) {
      for (auto& st : *out.mutable_operators(i)->mutable_subtasks()) st.clear_keyed_state();
    }
  }
  std::vector<RelocatedFile> copies;
  for (int i = 0; i < md.files_size(); ++i) {
    if (keep[i]) copies.push_back(files[i]);
  }
  result.files_copied = copies.size();
  if (options.dry_run) return result;

  auto write = [&](const std::string& dir) -> Status {
    const int first_new = out.files_size();
    for (size_t k = 0; k < planned.size(); ++k) {
      const PlannedFile& f = planned[k];
      pb::KeyGroupsStateHandle handle;
      CKPT_RETURN_IF_ERROR(WriteKeyed(fs, dir, f, buckets[f.op_index], md.checkpoint_id(), &handle,
                                      out.add_files()));
      handle.set_file_index(static_cast<uint32_t>(first_new + k));
      result.bytes_written += out.files(first_new + static_cast<int>(k)).size_bytes();
      pb::OperatorState* op = out.mutable_operators(f.op_index);
      pb::SubtaskState* st = nullptr;
      for (auto& s : *op->mutable_subtasks()) {
        if (s.subtask_index() == f.subtask) st = &s;
      }
      if (st == nullptr) {  // a subtask that had no state before now owns some key groups
        st = op->add_subtasks();
        st->set_subtask_index(f.subtask);
      }
      *st->add_keyed_state()->mutable_key_groups() = std::move(handle);
    }
    for (auto& [i, b] : buckets) {  // subtasks in index order, as readers expect
      (void)b;
      auto* subtasks = out.mutable_operators(i)->mutable_subtasks();
      std::sort(subtasks->begin(), subtasks->end(), [](const pb::SubtaskState& a, const pb::SubtaskState& c) {
        return a.subtask_index() < c.subtask_index();
      });
    }
    std::vector<bool> mask(keep);
    mask.resize(out.files_size(), true);
    CompactFileTable(&out, mask);
    CKPT_RETURN_IF_ERROR(format::WriteMetadataFile(fs, dir, out));
    CKPT_ASSIGN_OR_RETURN(base::FileInfo written, fs.Stat(base::JoinPath(dir, format::kMetadataFileName)));
    result.bytes_written += written.size_bytes;
    return Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(
      CopyResult copied,
      WriteSnapshotCopyWith(fs, copies, output_dir, write, CopyOptions{}, options.progress));
  TakePublication(std::move(copied), options.verify_output, &result);
  return result;
}

}  // namespace ckpt::ops::internal
