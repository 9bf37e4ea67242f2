// The files a restore of an Apache Flink snapshot reads (SnapshotFormat::RestoreFiles): every
// file handle of its `_metadata`, walked as Flink's restore opens them.
#include "formats/flink/flink_format.h"

#include <map>

#include "ckpt/flink/metadata_reader.h"
#include "formats/flink/model.h"

namespace ckpt::ops::internal {
namespace {

// Walks the file handles of a Flink `_metadata` as Flink's restore opens them.
class FlinkFiles {
 public:
  explicit FlinkFiles(const flink::Metadata& md) : md_(md) {}

  std::vector<format::ExpectedFile> Collect() && {
    for (const auto& op : md_.operators) {
      for (const auto& st : op.subtasks) {
        Keyed(st.managed_keyed);
        Keyed(st.raw_keyed);
        if (st.managed_operator) Stream(st.managed_operator->delegate);
        if (st.raw_operator) Stream(st.raw_operator->delegate);
        for (const auto& c : st.input_channels) Stream(c.delegate);
        for (const auto& c : st.result_subpartitions) Stream(c.delegate);
      }
    }
    return std::move(out_);
  }

 private:
  // A changelog (DSTL) file holds a header and may hold several increments: the handle's size
  // is a lower bound of the file's. So is a segment's end for a file-merging physical file.
  void Stream(const flink::StreamHandle& h, bool lower_bound = false) {
    if (h.type == flink::StreamHandle::Type::kKeyGroups && h.nested) {
      Stream(h.nested->delegate);
      return;
    }
    if (!h.is_file()) return;
    base::Result<std::string> local = flink::LocalPath(md_, h);
    if (!local.ok()) return;  // another file system: neither checked nor deleted here
    const bool segment = h.type == flink::StreamHandle::Type::kSegmentFile;
    format::ExpectedFile f;
    f.path = *local;
    f.shown = h.type == flink::StreamHandle::Type::kRelativeFile ? h.path : *local;
    f.size_bytes = static_cast<uint64_t>(segment ? h.start_pos + h.size : h.size);
    f.size_is_lower_bound = lower_bound || segment;
    // One file may back several handles: the strictest of them is what a restore needs.
    auto [it, inserted] = index_.emplace(f.path, out_.size());
    if (inserted) {
      out_.push_back(std::move(f));
      return;
    }
    format::ExpectedFile& seen = out_[it->second];
    if (!f.size_is_lower_bound) {
      if (seen.size_is_lower_bound) seen = f;
    } else if (seen.size_is_lower_bound && f.size_bytes > seen.size_bytes) {
      seen.size_bytes = f.size_bytes;
    }
  }

  void Keyed(const flink::KeyedHandle& h) {
    if (h.key_groups) Stream(h.key_groups->delegate);
    Stream(h.meta);
    for (const auto& f : h.shared_files) Stream(f.handle);
    for (const auto& f : h.private_files) Stream(f.handle);
    for (const auto& m : h.materialized) Keyed(m);
    for (const auto& d : h.non_materialized) Keyed(d);
    for (const auto& ho : h.handles_and_offsets) Stream(ho.second, /*lower_bound=*/true);
  }

  const flink::Metadata& md_;
  std::vector<format::ExpectedFile> out_;
  std::map<std::string, size_t> index_;
};

}  // namespace

base::Result<std::vector<format::ExpectedFile>> FlinkRestoreFiles(const Snapshot& snapshot) {
  const flink::Metadata* md = FlinkMetadataOf(snapshot);
  if (md == nullptr) {
    return base::Status::InvalidArgument(snapshot.metadata_path + " is not a Flink snapshot");
  }
  // Flink reads `_metadata` to its end: a cut or damaged CheckpointProperties trailer fails the
  // restore although every operator decoded.
  CKPT_RETURN_IF_ERROR(flink::PropertiesStatus(*md));
  return FlinkFiles(*md).Collect();
}

}  // namespace ckpt::ops::internal
