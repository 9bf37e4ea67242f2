// WriteIncrementalChain: a job directory of N incremental RocksDB-style checkpoints written
// cheaply with ckpt::format only (no engine): each checkpoint uploads one new shared file per
// operator and references a sliding window of its operator's shared files, so the bytes each
// checkpoint introduces and still shares are known by construction. Used by the growth tests
// and bench (bench/ckpt-tool/growth_bench.cpp). Header-only like snapshot_builder.h. Not
// thread-safe.
#pragma once

#include <algorithm>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "tools/snapshot_builder.h"

namespace ckpt::format::sample {

struct IncrementalChainOptions {
  // Checkpoints written, chk-1 .. chk-<checkpoints>, every one retained. Default: 10.
  int checkpoints = 10;
  // Shared files of the "steady" operator each checkpoint references: its own new one and the
  // window - 1 before it. Default: 4.
  int window = 4;
  // Adds operator "leaky", which references every shared file it ever uploaded (its state only
  // grows). Default: true.
  bool leaky_operator = true;
};

// Size of the shared file operator `op` (0 steady, 1 leaky) uploaded at checkpoint `id`:
// distinct per file, so sums identify the files they count.
inline uint64_t ChainFileBytes(int op, int64_t id) {
  return 1000 + static_cast<uint64_t>(op) * 10000 + static_cast<uint64_t>(id);
}

// "steady/000007.sst": shared/ path of that file.
inline std::string ChainFilePath(int op, int64_t id) {
  std::string n = std::to_string(id);
  n.insert(0, 6 - std::min<size_t>(6, n.size()), '0');
  return std::string(op == 0 ? "steady" : "leaky") + "/" + n + ".sst";
}

// Writes `job_dir`/chk-1 .. chk-N and `job_dir`/shared/ as described above.
inline base::Status WriteIncrementalChain(base::Fs& fs, const std::string& job_dir,
                                          const IncrementalChainOptions& options = {}) {
  const int ops = options.leaky_operator ? 2 : 1;
  pb::JobGraph graph;
  for (int op = 0; op < ops; ++op) {
    const std::string uid = op == 0 ? "steady" : "leaky";
    pb::OperatorInfo* info = graph.add_operators();
    info->set_operator_id(OperatorId::FromUid(uid).ToBytes());
    info->set_uid(uid);
    info->set_name(uid);
    info->set_spec_id(uid);
    info->set_parallelism(1);
    info->set_max_parallelism(128);
  }
  for (int64_t id = 1; id <= options.checkpoints; ++id) {
    const std::string dir = base::JoinPath(job_dir, "chk-" + std::to_string(id));
    pb::CheckpointMetadata md;
    md.set_format_version(kFormatVersion);
    md.set_engine_name("ckpt-format-sample");
    md.set_engine_version("0.1.0");
    md.set_job_id(JobIdBytes());
    md.set_job_name("incremental-chain");
    md.set_checkpoint_id(id);
    md.set_kind(pb::CHECKPOINT);
    md.set_checkpoint_type(pb::INCREMENTAL);
    md.set_trigger_timestamp(kBaseTimestampMs + id * 1000);
    md.set_completion_timestamp(kBaseTimestampMs + id * 1000 + 100);
    *md.mutable_job_graph() = graph;
    for (int op = 0; op < ops; ++op) {
      pb::OperatorState* state = md.add_operators();
      state->set_operator_id(graph.operators(op).operator_id());
      state->set_parallelism(1);
      state->set_max_parallelism(128);
      pb::RocksDbStateHandle* h =
          state->add_subtasks()->add_keyed_state()->mutable_rocksdb();
      h->set_key_group_start(0);
      h->set_key_group_end(127);
      h->set_backend_id("chain");
      const int64_t first = op == 0 ? std::max<int64_t>(1, id - options.window + 1) : 1;
      for (int64_t f = first; f <= id; ++f) {
        pb::FileEntry* e = md.add_files();
        e->set_path(ChainFilePath(op, f));
        e->set_scope(pb::SHARED);
        e->set_kind(pb::ROCKSDB_SST);
        e->set_size_bytes(ChainFileBytes(op, f));
        e->set_created_by_checkpoint_id(f);
        pb::RocksDbFile* sst = h->add_sst_files();
        sst->set_local_name(base::BaseName(ChainFilePath(op, f)));
        sst->set_file_index(static_cast<uint32_t>(md.files_size() - 1));
        if (f != id) continue;
        CKPT_ASSIGN_OR_RETURN(std::string path, ResolveFile(dir, *e));
        CKPT_RETURN_IF_ERROR(fs.CreateDirs(base::DirName(path)));
        CKPT_ASSIGN_OR_RETURN(auto out, fs.OpenWrite(path));
        CKPT_RETURN_IF_ERROR(out->Append(std::string(ChainFileBytes(op, f), 's')));
        CKPT_RETURN_IF_ERROR(out->Close());
      }
    }
    CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
    CKPT_RETURN_IF_ERROR(WriteMetadataFile(fs, dir, md));
  }
  return base::Status::OK();
}

}  // namespace ckpt::format::sample
