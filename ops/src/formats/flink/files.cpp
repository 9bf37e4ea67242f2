// FlinkFileTable and SummarizeFlinkMetadata: see formats/flink/files.h.
#include "formats/flink/files.h"

#include <algorithm>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/base/prefault.h"
#include "ckpt/flink/metadata_reader.h"

namespace ckpt::ops::internal {

using Tag = flink::KeyedHandle::Tag;

FlinkFileTable::FlinkFileTable(const flink::Metadata& md, const std::string& dir)
    : md_(md), dir_(dir) {
  const std::string job_dir = base::DirName(dir_);
  shared_dir_ = job_dir + "/shared";
  task_owned_dir_ = job_dir + "/taskowned";
  // Most subtasks name one or two files of their own. Streamed, the operators are not known
  // yet: a file handle takes 100-200 bytes of `_metadata` (a path, a size, the handle around
  // it). Entry capacity never filled is never touched; the index is touched whole (and probed
  // at random: kept small enough for the cache, it grows by rehashing when it must).
  size_t subtasks = 0;
  for (const auto& op : md.operators) subtasks += op.subtasks.size();
  const size_t known = 2 * subtasks + 1;
  entries_.reserve(std::min<size_t>(std::max<size_t>(known, md.size_bytes / 100), 1 << 20));
  const size_t expected = std::min<size_t>(std::max<size_t>(known, md.size_bytes / 200), 1 << 20);
  size_t slots = 64;
  while (slots < 2 * expected) slots *= 2;
  base::ReservePrefaulted(&slots_, slots);
  slots_.assign(slots, 0);
}

uint32_t FlinkFileTable::Add(const flink::StreamHandle& h, FileKind kind) {
  switch (h.type) {
    case flink::StreamHandle::Type::kRelativeFile:
      return Insert(FileScope::kExclusive, h.path, kind, static_cast<uint64_t>(h.size));
    case flink::StreamHandle::Type::kFile:
    case flink::StreamHandle::Type::kSegmentFile: {
      auto local = flink::HandleLocation(md_, h);
      const std::string path = local.ok() ? std::move(local).value() : h.path;
      const std::string same = SpeltAsSnapshotDir(path);
      const auto [scope, rel] = Place(same.empty() ? path : same);
      // A segment's physical file holds other segments too: its size is unknown.
      const uint64_t size =
          h.type == flink::StreamHandle::Type::kSegmentFile ? 0 : static_cast<uint64_t>(h.size);
      // An EXTERNAL file keeps its location as written.
      const std::string_view recorded =
          scope == FileScope::kExternal ? std::string_view(path) : rel;
      return Insert(scope, recorded, kind, size);
    }
    case flink::StreamHandle::Type::kKeyGroups:
      if (h.nested) return Add(h.nested->delegate, kind);
      [[fallthrough]];
    default: {
      const uint32_t index =
          Insert(FileScope::kExclusive, "_metadata", FileKind::kUnspecified, md_.size_bytes);
      entries_[index].is_metadata = true;
      return index;
    }
  }
}

std::string FlinkFileTable::SpeltAsSnapshotDir(const std::string& path) const {
  const std::string scheme = base::SchemeOf(path);
  const std::string dir_scheme = base::SchemeOf(dir_);
  if (scheme.empty() || dir_scheme.empty() || scheme == dir_scheme || scheme == "file" ||
      dir_scheme == "file") {
    return {};
  }
  // Schemes the resolver serves with one Fs (s3, s3a, s3p) spell one location: that Fs names
  // its files by whole location, the scheme apart.
  auto at = base::ResolveFs(path);
  auto dir_at = base::ResolveFs(dir_);
  if (!at.ok() || !dir_at.ok() || at->fs != dir_at->fs) return {};
  return dir_scheme + path.substr(scheme.size());
}

std::pair<FileScope, std::string_view> FlinkFileTable::Place(std::string_view path) const {
  auto under = [&](const std::string& d) {
    return !d.empty() && path.size() > d.size() + 1 && path.compare(0, d.size(), d) == 0 &&
           path[d.size()] == '/';
  };
  if (under(dir_)) return {FileScope::kExclusive, path.substr(dir_.size() + 1)};
  if (under(shared_dir_)) return {FileScope::kShared, path.substr(shared_dir_.size() + 1)};
  if (under(task_owned_dir_))
    return {FileScope::kTaskOwned, path.substr(task_owned_dir_.size() + 1)};
  return {FileScope::kExternal, path};
}

size_t FlinkFileTable::Hash(FileScope scope, std::string_view path) {
  return std::hash<std::string_view>()(path) * 31 + static_cast<size_t>(scope);
}

void FlinkFileTable::Rehash(size_t slots) {
  slots_.assign(slots, 0);
  const size_t mask = slots - 1;
  for (size_t e = 0; e < entries_.size(); ++e) {
    size_t i = Hash(entries_[e].scope, entries_[e].path) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = static_cast<uint32_t>(e + 1);
  }
}

uint32_t FlinkFileTable::Insert(FileScope scope, std::string_view path, FileKind kind,
                                uint64_t size_bytes) {
  if (2 * (entries_.size() + 1) > slots_.size()) Rehash(2 * slots_.size());
  const size_t mask = slots_.size() - 1;
  for (size_t i = Hash(scope, path) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      const auto idx = static_cast<uint32_t>(entries_.size());
      entries_.push_back(Entry{std::string(path), scope, kind, size_bytes});
      slots_[i] = idx + 1;
      return idx;
    }
    Entry& existing = entries_[slot - 1];
    if (existing.scope == scope && existing.path == path) {
      if (existing.kind != kind) existing.kind = FileKind::kUnspecified;
      return slot - 1;
    }
  }
}

namespace {

std::string JobIdHexFromDir(const std::string& dir) {
  const std::string base = base::BaseName(dir);
  if (base.rfind("chk-", 0) != 0) return "";
  std::string job = base::BaseName(base::DirName(dir));
  if (job.size() != 32) return "";
  for (char c : job) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "";
  }
  return job;
}

}  // namespace

void FlinkSummarizer::AddOperator(const flink::OperatorState& op) {
  num_subtasks_ += static_cast<uint32_t>(op.subtasks.size() + op.finished_subtasks.size());
  for (const auto& st : op.subtasks) {
    for (const flink::KeyedHandle* kh : {&st.managed_keyed, &st.raw_keyed}) {
      incremental_ |= kh->tag == Tag::kIncremental || kh->tag == Tag::kIncrementalV2;
      changelog_ |= kh->tag == Tag::kChangelog || kh->tag == Tag::kChangelogV2;
      canonical_tag_ |= kh->tag == Tag::kSavepointKeyGroups;
    }
    unaligned_ |= !st.input_channels.empty() || !st.result_subpartitions.empty();
  }
}

FlinkSummary FlinkSummarizer::Finish(const flink::Metadata& md, const std::string& dir) const {
  FlinkSummary out;
  out.job_id_hex = JobIdHexFromDir(dir);
  out.num_subtasks = num_subtasks_;
  out.unaligned = unaligned_;
  if (md.properties) {
    const auto& p = *md.properties;
    out.kind = p.is_savepoint ? SnapshotKind::kSavepoint : SnapshotKind::kCheckpoint;
    if (p.is_savepoint) {
      out.savepoint_format =
          p.format_type == "NATIVE" ? SavepointFormat::kNative : SavepointFormat::kCanonical;
      out.post_action = p.post_action == "SUSPEND"     ? PostAction::kStop
                        : p.post_action == "TERMINATE" ? PostAction::kTerminate
                                                       : PostAction::kNone;
    }
    out.properties["flink.snapshot_type"] = p.type_name;
    if (!p.sharing_files.empty()) out.properties["flink.sharing_files_strategy"] = p.sharing_files;
    out.properties["flink.unclaimed"] = p.unclaimed ? "true" : "false";
  } else if (canonical_tag_) {
    // v2/v3 carry no properties; tag 7 is written only for canonical savepoints.
    out.kind = SnapshotKind::kSavepoint;
    out.savepoint_format = SavepointFormat::kCanonical;
  }
  if (!md.properties_error.empty()) out.properties["flink.properties_error"] = md.properties_error;
  if (out.kind != SnapshotKind::kSavepoint) {
    out.checkpoint_type =
        incremental_ || changelog_ ? CheckpointType::kIncremental : CheckpointType::kFull;
  }
  out.properties["flink.metadata_version"] = std::to_string(md.version);
  if (!md.master_states.empty()) {
    std::string names;
    for (const auto& m : md.master_states) names += (names.empty() ? "" : ",") + m.name;
    out.properties["flink.master_states"] = names;
  }
  return out;
}

FlinkSummary SummarizeFlinkMetadata(const flink::Metadata& md, const std::string& dir) {
  FlinkSummarizer s;
  for (const auto& op : md.operators) s.AddOperator(op);
  return s.Finish(md, dir);
}

}  // namespace ckpt::ops::internal
