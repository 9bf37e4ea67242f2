// Large-state backends side by side (issue 13), every ratio against a baseline measured in this
// run, on one value state (Int64 key -> Int64 value), max parallelism 128:
//  1. RocksDB value-state get+put throughput vs the same Get+Put through RocksDB's own API (same
//     key and value bytes, the backend's options: no WAL) and vs `db_bench` fillrandom +
//     readrandom with the same key/value sizes (WAL off, one thread), when db_bench is installed.
//  2. Bytes uploaded per checkpoint when 1% of the keys change per interval: RocksDB full vs
//     incremental vs changelog (over incremental RocksDB; materialization only at the first).
//  3. Checkpoint duration p50/p99 over 50 checkpoints, 1% of the keys changed before each:
//     RocksDB incremental vs changelog (materialization interval 10 s, the default). Checkpoints
//     run back to back, each sync + async part + completion, on the benchmark's thread.
//  4. Recovery time per backend at the same state, and rescale 2 -> 3: the RocksDB backend
//     restoring native handles (open + DeleteRange clipping) vs canonical ones (key by key).
// Usage: bench_state [--quick]   (--quick: 200 000 keys instead of 1 000 000).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/keyed_handle_files.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/engine/state/value_state.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/rocksdb_key_layout.h"
#include "ckpt/format/value_codec.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace {

namespace fs = std::filesystem;
using ckpt::engine::CheckpointOptions;
using ckpt::engine::KeyedStateBackend;
using ckpt::engine::StateBackendConfig;
using ckpt::engine::StateBackendKind;
using ckpt::format::Value;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kMaxP = 128;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

[[noreturn]] void Die(const std::string& what, const ckpt::base::Status& st) {
  std::fprintf(stderr, "bench_state: %s: %s\n", what.c_str(), st.ToString().c_str());
  std::exit(1);
}
void Check(const ckpt::base::Status& st, const std::string& what) {
  if (!st.ok()) Die(what, st);
}
template <typename T>
T Take(ckpt::base::Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what, r.status());
  return std::move(*r);
}

std::string Root() {
  static const std::string root =
      (fs::temp_directory_path() / ("ckpt-state-bench-" + std::to_string(::getpid()))).string();
  return root;
}

// One keyed backend with one value state, keys set through the encoded key and key group.
struct Backend {
  std::unique_ptr<KeyedStateBackend> b;
  ckpt::engine::ValueState v;
  std::string encoded;

  static Backend Make(StateBackendConfig c, ckpt::format::KeyGroupRange range, uint32_t subtask) {
    Backend out;
    c.local_dir = Root() + "/local";
    out.b = Take(ckpt::engine::CreateKeyedStateBackend(c, kMaxP, range, "bench", "op", subtask),
                 "create backend");
    out.v = Take(out.b->GetValueState(ckpt::engine::ValueStateDescriptor(
                     "v", ckpt::format::types::Int64())),
                 "value state");
    return out;
  }
  // False if `key` is outside the backend's key groups.
  bool SetKey(int64_t key) {
    encoded.clear();
    Check(ckpt::engine::EncodeRecordKey(Value(key), &encoded), "encode key");
    const uint32_t g = ckpt::engine::KeyGroupOfEncodedKey(encoded, kMaxP);
    if (!b->key_group_range().Contains(g)) return false;
    b->SetCurrentKey(Value(key), encoded, g);
    return true;
  }
  void Put(int64_t key, int64_t value) {
    if (SetKey(key)) Check(v.Update(Value(value)), "update");
  }
};

// A backend with no state registered yet (what a restore starts from).
std::unique_ptr<KeyedStateBackend> Fresh(StateBackendConfig c, ckpt::format::KeyGroupRange range,
                                         uint32_t subtask) {
  c.local_dir = Root() + "/local";
  return Take(ckpt::engine::CreateKeyedStateBackend(c, kMaxP, range, "bench", "op", subtask),
              "create backend");
}

StateBackendConfig Config(StateBackendKind kind, bool incremental, bool changelog,
                          uint64_t materialization_ms = 10000) {
  StateBackendConfig c;
  c.kind = kind;
  c.incremental = incremental;
  c.changelog = changelog;
  c.materialization_interval_ms = materialization_ms;
  return c;
}

// A checkpoint (or savepoint) of `backends` (the subtasks of one operator) into `dir`, as the
// metadata the restore reads.
struct Taken {
  ckpt::pb::CheckpointMetadata md;
  uint64_t checkpointed_bytes = 0;
  uint64_t state_bytes = 0;
};
Taken Snapshot(const std::vector<KeyedStateBackend*>& backends, CheckpointOptions o,
               const std::string& dir) {
  Taken t;
  Check(ckpt::base::Fs::Default().CreateDirs(dir), "mkdir " + dir);
  o.snapshot_dir = dir;
  const auto id = ckpt::format::OperatorId::FromUid("op");
  ckpt::pb::OperatorState* os = t.md.add_operators();
  os->set_operator_id(id.ToBytes());
  os->set_parallelism(static_cast<uint32_t>(backends.size()));
  os->set_max_parallelism(kMaxP);
  for (uint32_t i = 0; i < backends.size(); ++i) {
    auto snap = Take(ckpt::engine::TakeOperatorSnapshot(o, id, i, backends[i], nullptr, {}),
                     "snapshot sync part");
    auto st = Take(ckpt::engine::WriteOperatorSnapshot(ckpt::base::Fs::Default(), o, snap),
                   "snapshot async part");
    if (i == 0) {
      for (const auto& d : st.states) *os->add_states() = d;
    }
    const auto base = static_cast<uint32_t>(t.md.files_size());
    for (const auto& f : st.files) *t.md.add_files() = f;
    ckpt::pb::SubtaskState sub = st.subtask;
    for (auto& h : *sub.mutable_keyed_state()) {
      Check(ckpt::engine::RebaseKeyedHandleFiles(
                &h, [base](uint32_t index) -> ckpt::base::Result<uint32_t> { return index + base; }),
            "rebase");
    }
    *os->add_subtasks() = std::move(sub);
    t.checkpointed_bytes += st.checkpointed_size_bytes;
    t.state_bytes += st.state_size_bytes;
  }
  for (KeyedStateBackend* b : backends) b->NotifyCheckpointComplete(o.checkpoint_id);
  return t;
}

CheckpointOptions Checkpoint(int64_t id) {
  CheckpointOptions o;
  o.checkpoint_id = id;
  return o;
}
CheckpointOptions Savepoint(int64_t id, ckpt::pb::SavepointFormat format) {
  CheckpointOptions o;
  o.checkpoint_id = id;
  o.kind = ckpt::pb::SAVEPOINT;
  o.savepoint_format = format;
  o.post_action = ckpt::pb::POST_ACTION_NONE;
  return o;
}

double RestoreSeconds(KeyedStateBackend* into, const Taken& t, const std::string& dir) {
  ckpt::engine::KeyedRestoreSource src;
  src.fs = &ckpt::base::Fs::Default();
  src.snapshot_dir = dir;
  src.metadata = &t.md;
  src.operator_state = &t.md.operators(0);
  const auto t0 = Clock::now();
  Check(into->Restore(src), "restore from " + dir);
  return Seconds(t0);
}

void Load(Backend& b, int64_t keys) {
  for (int64_t k = 0; k < keys; ++k) b.Put(k, k);
}
// One interval of changes: `n` random keys get a new value.
void Change(Backend& b, int64_t keys, int64_t n, std::mt19937_64& rng, int64_t salt) {
  std::uniform_int_distribution<int64_t> pick(0, keys - 1);
  for (int64_t i = 0; i < n; ++i) b.Put(pick(rng), salt * 1000003 + i);
}

// ---- 1. get+put throughput --------------------------------------------------------------

struct DbBench {
  bool ran = false;
  double fill_us = 0, read_us = 0;  // micros/op
};

DbBench RunDbBench(int64_t keys, int64_t reads, size_t key_size, size_t value_size) {
  DbBench r;
  const std::string dir = Root() + "/db_bench";
  const std::string cmd = "db_bench --db=" + dir +
                          " --benchmarks=fillrandom,readrandom --num=" + std::to_string(keys) +
                          " --reads=" + std::to_string(reads) + " --key_size=" +
                          std::to_string(key_size) + " --value_size=" + std::to_string(value_size) +
                          " --disable_wal=1 --threads=1 --compression_type=snappy"
                          " --seed=1 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char line[1024];
  while (std::fgets(line, sizeof(line), p) != nullptr) {
    double us = 0;
    if (std::sscanf(line, "fillrandom : %lf micros/op", &us) == 1) r.fill_us = us;
    if (std::sscanf(line, "readrandom : %lf micros/op", &us) == 1) r.read_us = us;
  }
  r.ran = pclose(p) == 0 && r.fill_us > 0 && r.read_us > 0;
  fs::remove_all(dir);
  return r;
}

void Throughput(int64_t keys) {
  const int64_t ops = keys;
  std::printf("\n1. value-state get+put, %lld keys loaded, %lld random get+put pairs\n",
              static_cast<long long>(keys), static_cast<long long>(ops));
  // The backend.
  Backend b = Backend::Make(Config(StateBackendKind::kRocksDb, false, false), {0, kMaxP - 1}, 0);
  auto t0 = Clock::now();
  Load(b, keys);
  const double engine_fill = Seconds(t0);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, keys - 1);
  t0 = Clock::now();
  int64_t found = 0;
  for (int64_t i = 0; i < ops; ++i) {
    const int64_t k = pick(rng);
    b.SetKey(k);
    const Value* cur = b.v.Get();
    found += cur != nullptr;
    Check(b.v.Update(Value(cur != nullptr ? std::get<int64_t>(cur->v) + 1 : 0)), "update");
  }
  const double engine_gp = Seconds(t0);
  b = Backend();

  // The same key and value bytes straight through RocksDB (the backend's options: no WAL, the
  // value state in its own column family).
  const std::string dir = Root() + "/direct";
  rocksdb::Options options;
  options.create_if_missing = true;
  options.max_open_files = 256;
  rocksdb::DB* raw = nullptr;
  Check(rocksdb::DB::Open(options, dir, &raw).ok() ? ckpt::base::Status::OK()
                                                   : ckpt::base::Status::IOError("open " + dir),
        "direct RocksDB");
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  auto key_of = [](int64_t k, std::string* out) {
    std::string encoded;
    Check(ckpt::engine::EncodeRecordKey(Value(k), &encoded), "encode");
    out->clear();
    ckpt::format::rocksdb_layout::AppendKeyGroup(
        ckpt::engine::KeyGroupOfEncodedKey(encoded, kMaxP), out);
    ckpt::format::rocksdb_layout::AppendEscaped(encoded, out);
    ckpt::format::rocksdb_layout::AppendEscaped("", out);
  };
  std::string key, value;
  size_t key_bytes = 0;
  t0 = Clock::now();
  for (int64_t k = 0; k < keys; ++k) {
    key_of(k, &key);
    key_bytes += key.size();
    value.clear();
    Check(ckpt::format::EncodeValue(ckpt::format::types::Int64(), Value(k), &value), "encode");
    db->Put(wo, key, value).PermitUncheckedError();
  }
  const double direct_fill = Seconds(t0);
  const size_t value_bytes = value.size();
  std::mt19937_64 rng2(7);
  std::string got;
  t0 = Clock::now();
  for (int64_t i = 0; i < ops; ++i) {
    key_of(pick(rng2), &key);
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), key, &got);
    found += s.ok();
    db->Put(wo, key, got).PermitUncheckedError();
  }
  const double direct_gp = Seconds(t0);
  db->Close().PermitUncheckedError();
  db.reset();
  fs::remove_all(dir);
  const size_t avg_key = (key_bytes + static_cast<size_t>(keys) / 2) / static_cast<size_t>(keys);

  const double engine_rate = static_cast<double>(ops) / engine_gp;
  const double direct_rate = static_cast<double>(ops) / direct_gp;
  std::printf("   key %zu bytes (average), value %zu bytes; %lld of %lld gets found a value\n",
              avg_key, value_bytes, static_cast<long long>(found), static_cast<long long>(2 * ops));
  std::printf("   %-36s %12s %14s\n", "", "fill ops/s", "get+put ops/s");
  std::printf("   %-36s %12.0f %14.0f\n", "engine RocksDB value state",
              static_cast<double>(keys) / engine_fill, engine_rate);
  std::printf("   %-36s %12.0f %14.0f\n", "RocksDB API, same keys/values",
              static_cast<double>(keys) / direct_fill, direct_rate);
  const DbBench d = RunDbBench(keys, ops, std::max<size_t>(avg_key, 8), value_bytes);
  if (d.ran) {
    // One get+put = one readrandom op + one fillrandom op.
    const double db_rate = 1e6 / (d.fill_us + d.read_us);
    std::printf("   %-36s %12.0f %14.0f   (fillrandom %.2f + readrandom %.2f us/op)\n",
                "db_bench fillrandom+readrandom", 1e6 / d.fill_us, db_rate, d.fill_us, d.read_us);
    std::printf("   -> engine get+put = %.0f%% of db_bench (target >= 80%%), %.0f%% of the "
                "RocksDB API\n",
                100.0 * engine_rate / db_rate, 100.0 * engine_rate / direct_rate);
  } else {
    std::printf("   db_bench not available or failed: baseline is the RocksDB API only\n");
    std::printf("   -> engine get+put = %.0f%% of the RocksDB API\n",
                100.0 * engine_rate / direct_rate);
  }
}

// ---- 2. bytes uploaded per checkpoint ---------------------------------------------------

void UploadedBytes(int64_t keys) {
  const int64_t changes = keys / 100;
  constexpr int kIntervals = 5;
  std::printf("\n2. bytes uploaded per checkpoint, %lld keys, %lld (1%%) changed per interval, "
              "mean of %d checkpoints after the first\n",
              static_cast<long long>(keys), static_cast<long long>(changes), kIntervals);
  struct Mode {
    const char* name;
    StateBackendConfig config;
  };
  const std::vector<Mode> modes = {
      {"RocksDB full", Config(StateBackendKind::kRocksDb, false, false)},
      {"RocksDB incremental", Config(StateBackendKind::kRocksDb, true, false)},
      {"changelog (RocksDB incremental)",
       Config(StateBackendKind::kRocksDb, true, true, uint64_t{24} * 3600 * 1000)},
  };
  double full = 0;
  for (const Mode& m : modes) {
    Backend b = Backend::Make(m.config, {0, kMaxP - 1}, 0);
    Load(b, keys);
    const std::string job = Root() + "/upload/job";
    const Taken first = Snapshot({b.b.get()}, Checkpoint(1), job + "/chk-1");
    std::mt19937_64 rng(11);
    uint64_t sum = 0;
    for (int i = 0; i < kIntervals; ++i) {
      Change(b, keys, changes, rng, i + 2);
      const int64_t id = i + 2;
      sum += Snapshot({b.b.get()}, Checkpoint(id), job + "/chk-" + std::to_string(id))
                 .checkpointed_bytes;
    }
    const double mean = static_cast<double>(sum) / kIntervals;
    if (full == 0) full = mean;
    std::printf("   %-34s first %10llu B, then %12.0f B per checkpoint = %6.2f%% of full%s\n",
                m.name, static_cast<unsigned long long>(first.checkpointed_bytes), mean,
                100.0 * mean / full, full == mean ? " (baseline)" : " (target <= 3%)");
    b = Backend();
    fs::remove_all(Root() + "/upload");
  }
}

// ---- 3. checkpoint duration p50/p99 -----------------------------------------------------

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

void Durations(int64_t keys) {
  constexpr int kCheckpoints = 50;
  const int64_t changes = keys / 100;
  std::printf("\n3. checkpoint duration over %d checkpoints, %lld keys, %lld (1%%) changed "
              "before each\n",
              kCheckpoints, static_cast<long long>(keys), static_cast<long long>(changes));
  struct Mode {
    const char* name;
    StateBackendConfig config;
  };
  const std::vector<Mode> modes = {
      {"RocksDB incremental", Config(StateBackendKind::kRocksDb, true, false)},
      {"changelog (RocksDB incremental)", Config(StateBackendKind::kRocksDb, true, true, 10000)},
  };
  double base_p99 = 0;
  for (const Mode& m : modes) {
    Backend b = Backend::Make(m.config, {0, kMaxP - 1}, 0);
    Load(b, keys);
    const std::string job = Root() + "/durations/job";
    Snapshot({b.b.get()}, Checkpoint(1), job + "/chk-1");
    std::mt19937_64 rng(13);
    std::vector<double> ms;
    const auto run0 = Clock::now();
    for (int i = 0; i < kCheckpoints; ++i) {
      Change(b, keys, changes, rng, i + 2);
      const int64_t id = i + 2;
      const auto t0 = Clock::now();
      Snapshot({b.b.get()}, Checkpoint(id), job + "/chk-" + std::to_string(id));
      ms.push_back(Seconds(t0) * 1000);
      // Keep the disk footprint bounded: the previous checkpoint is subsumed (its exclusive files
      // only; shared/ stays, as the backends still reference it).
      if (id > 2) fs::remove_all(job + "/chk-" + std::to_string(id - 1));
    }
    const double p50 = Percentile(ms, 0.5), p99 = Percentile(ms, 0.99);
    if (base_p99 == 0) base_p99 = p99;
    std::printf("   %-34s p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms  (%.1f s in all)  p99 = %.2fx "
                "of RocksDB incremental%s\n",
                m.name, p50, p99, *std::max_element(ms.begin(), ms.end()), Seconds(run0), p99 / base_p99,
                base_p99 == p99 ? " (baseline)" : " (target <= 0.33x)");
    b = Backend();
    fs::remove_all(Root() + "/durations");
  }
}

// ---- 4. recovery and rescale ------------------------------------------------------------

void Recovery(int64_t keys) {
  std::printf("\n4. recovery of %lld keys (one subtask)\n", static_cast<long long>(keys));
  struct Mode {
    const char* name;
    StateBackendConfig config;
  };
  const std::vector<Mode> modes = {
      {"heap (canonical checkpoint)", Config(StateBackendKind::kHeap, false, false)},
      {"RocksDB full (native)", Config(StateBackendKind::kRocksDb, false, false)},
      {"RocksDB incremental (native)", Config(StateBackendKind::kRocksDb, true, false)},
      {"changelog heap (base + 5 x 1% log)",
       Config(StateBackendKind::kHeap, false, true, uint64_t{24} * 3600 * 1000)},
      {"changelog RocksDB (base + 5 x 1% log)",
       Config(StateBackendKind::kRocksDb, true, true, uint64_t{24} * 3600 * 1000)},
  };
  double base = 0;
  for (const Mode& m : modes) {
    const std::string job = Root() + "/recovery/job";
    Taken t;
    std::string dir = job + "/chk-1";
    {
      Backend b = Backend::Make(m.config, {0, kMaxP - 1}, 0);
      Load(b, keys);
      t = Snapshot({b.b.get()}, Checkpoint(1), dir);
      if (m.config.changelog) {
        std::mt19937_64 rng(17);
        for (int i = 0; i < 5; ++i) {
          Change(b, keys, keys / 100, rng, i + 2);
          dir = job + "/chk-" + std::to_string(i + 2);
          t = Snapshot({b.b.get()}, Checkpoint(i + 2), dir);
        }
      }
    }
    // Restore before any state is registered, as a task does (InitializeState after Restore).
    std::unique_ptr<KeyedStateBackend> fresh = Fresh(m.config, {0, kMaxP - 1}, 0);
    const double s = RestoreSeconds(fresh.get(), t, dir);
    if (base == 0) base = s;
    std::printf("   %-38s %8.3f s  (%.2fx of heap)%s\n", m.name, s, s / base,
                base == s ? " (baseline)" : "");
    fresh.reset();
    fs::remove_all(Root() + "/recovery");
  }

  std::printf("\n   rescale 2 -> 3 of %lld keys, RocksDB: the three new subtasks' restores\n",
              static_cast<long long>(keys));
  const std::string job = Root() + "/rescale/job";
  Taken native, canonical;
  {
    StateBackendConfig c = Config(StateBackendKind::kRocksDb, false, false);
    Backend a = Backend::Make(c, ckpt::format::RangeForSubtask(kMaxP, 2, 0), 0);
    Backend b = Backend::Make(c, ckpt::format::RangeForSubtask(kMaxP, 2, 1), 1);
    Load(a, keys);
    Load(b, keys);
    native = Snapshot({a.b.get(), b.b.get()}, Savepoint(1, ckpt::pb::NATIVE), job + "/native");
    canonical =
        Snapshot({a.b.get(), b.b.get()}, Savepoint(2, ckpt::pb::CANONICAL), job + "/canonical");
  }
  double by_range = 0, by_key = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    const StateBackendConfig c = Config(StateBackendKind::kRocksDb, false, false);
    const auto range = ckpt::format::RangeForSubtask(kMaxP, 3, i);
    std::unique_ptr<KeyedStateBackend> x = Fresh(c, range, i);
    by_range += RestoreSeconds(x.get(), native, job + "/native");
    std::unique_ptr<KeyedStateBackend> y = Fresh(c, range, i);
    by_key += RestoreSeconds(y.get(), canonical, job + "/canonical");
  }
  std::printf("   %-38s %8.3f s  (baseline)\n", "canonical handles, key by key", by_key);
  std::printf("   %-38s %8.3f s  -> %.1fx faster (target >= 3x)\n",
              "native handles, DeleteRange clipping", by_range, by_key / by_range);
  fs::remove_all(Root() + "/rescale");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const int64_t keys = quick ? 200'000 : 1'000'000;
  fs::remove_all(Root());
  const auto t0 = Clock::now();
  std::printf("state backends bench: %lld keys (Int64 -> Int64 value state), max parallelism %u\n",
              static_cast<long long>(keys), kMaxP);
  Throughput(keys);
  UploadedBytes(keys);
  Durations(keys);
  Recovery(keys);
  fs::remove_all(Root());
  std::printf("\ntotal %.1f s\n", Seconds(t0));
  return 0;
}
