// gen_state_savepoint DIR KEYS [SUBTASKS [MAX_PARALLELISM]]: writes a canonical savepoint with ckpt::format only
// (never the engine): a source and a keyed operator "Big state" whose value state `count` holds
// KEYS int64 keys over SUBTASKS subtasks (max parallelism 128 unless given). Used by the state browser's
// memory test (run in its own process, so generating 1 M keys does not inflate the test's RSS)
// and by the summary benchmark (many subtasks).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/snapshot_builder.h"

namespace fs = ckpt::format;
namespace sample = ckpt::format::sample;

namespace {

std::string jobSpec(unsigned parallelism, unsigned max_parallelism) {
  return R"({"name": "big-state", "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801", "parallelism": )" +
         std::to_string(parallelism) + R"(, "maxParallelism": )" + std::to_string(max_parallelism) + R"(,
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "numbers", "name": "Numbers"},
    {"id": "state", "kind": "keyed-sum", "uid": "big-state", "name": "Big state"}],
  "edges": [{"from": "source", "to": "state", "partitioning": "HASH"}],
  "checkpointing": {"intervalMs": 1000}})";
}

ckpt::base::Status write(const std::string& dir, long keys, unsigned parallelism,
                         unsigned max_parallelism) {
  ckpt::base::Fs& f = ckpt::base::Fs::Default();
  ckpt::pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(sample::StartMetadata(jobSpec(parallelism, max_parallelism), 7, ckpt::pb::SAVEPOINT, &m));
  m.set_savepoint_format(ckpt::pb::CANONICAL);
  m.set_checkpoint_type(ckpt::pb::FULL);
  m.set_mode(ckpt::pb::ALIGNED_EXACTLY_ONCE);
  sample::SnapshotBuilder b(f, dir, &m);
  CKPT_RETURN_IF_ERROR(f.CreateDirs(dir));
  ckpt::pb::OperatorState* op = sample::AddOperatorState(&m, "state");
  const ckpt::pb::TypeDescriptor key_type = fs::types::Int64();
  *op->add_states() = sample::State("count", ckpt::pb::STATE_VALUE, fs::types::Int64(), key_type);
  const uint32_t max_p = op->max_parallelism();
  // Which subtask each key belongs to, computed once (memory: one int per key).
  std::vector<std::vector<long>> keys_of(parallelism);
  for (long k = 0; k < keys; ++k) {
    CKPT_ASSIGN_OR_RETURN(std::string key, sample::Enc(key_type, fs::Value(int64_t{k})));
    const uint32_t g = fs::KeyGroupForKey(key, max_p);
    keys_of[fs::SubtaskForKeyGroup(max_p, parallelism, g)].push_back(k);
  }
  for (uint32_t s = 0; s < parallelism; ++s) {
    const fs::KeyGroupRange range = fs::RangeForSubtask(max_p, parallelism, s);
    std::vector<sample::KeyedEntry> entries;
    for (long k : keys_of[s]) {
      CKPT_ASSIGN_OR_RETURN(std::string key, sample::Enc(key_type, fs::Value(int64_t{k})));
      const uint32_t g = fs::KeyGroupForKey(key, max_p);
      CKPT_ASSIGN_OR_RETURN(std::string value, sample::Enc(fs::types::Int64(), fs::Value(int64_t{k} * 2)));
      entries.push_back({g, std::move(key), 0, "", std::move(value)});
    }
    std::vector<long>().swap(keys_of[s]);
    CKPT_ASSIGN_OR_RETURN(ckpt::pb::KeyedStateHandle h,
                          sample::WriteKeyGroups(b, "big-state-" + std::to_string(s) + "-keyed.state",
                                                 ckpt::pb::EXCLUSIVE, m.checkpoint_id(), range,
                                                 std::move(entries)));
    ckpt::pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = h;
  }
  sample::FillMetrics(&m);
  return b.Publish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_state_savepoint DIR KEYS [SUBTASKS [MAX_PARALLELISM]]\n");
    return 2;
  }
  const unsigned parallelism = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 4;
  const unsigned max_parallelism = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 128;
  ckpt::base::Status st = write(argv[1], std::atol(argv[2]), parallelism, max_parallelism);
  if (!st.ok()) {
    std::fprintf(stderr, "gen_state_savepoint: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
