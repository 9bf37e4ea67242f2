// RebaseKeyedHandleFiles (keyed_handle_files.h).
#include "ckpt/engine/state/keyed_handle_files.h"

namespace ckpt::engine {

base::Status RebaseKeyedHandleFiles(pb::KeyedStateHandle* h,
                                    const std::function<base::Result<uint32_t>(uint32_t)>& map) {
  if (h->has_key_groups()) {
    CKPT_ASSIGN_OR_RETURN(uint32_t fi, map(h->key_groups().file_index()));
    h->mutable_key_groups()->set_file_index(fi);
  } else if (h->has_rocksdb()) {
    for (auto& f : *h->mutable_rocksdb()->mutable_sst_files()) {
      CKPT_ASSIGN_OR_RETURN(uint32_t fi, map(f.file_index()));
      f.set_file_index(fi);
    }
    for (auto& f : *h->mutable_rocksdb()->mutable_meta_files()) {
      CKPT_ASSIGN_OR_RETURN(uint32_t fi, map(f.file_index()));
      f.set_file_index(fi);
    }
  } else if (h->has_changelog()) {
    for (pb::KeyedStateHandle& m : *h->mutable_changelog()->mutable_materialized()) {
      CKPT_RETURN_IF_ERROR(RebaseKeyedHandleFiles(&m, map));
    }
    for (pb::ChangelogSegment& s : *h->mutable_changelog()->mutable_segments()) {
      CKPT_ASSIGN_OR_RETURN(uint32_t fi, map(s.slice().file_index()));
      s.mutable_slice()->set_file_index(fi);
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
