// Large-state backends side by side, every ratio against a baseline measured in this
// run, on one value state (Int64 key -> Int64 value), max parallelism 128; the load average is
// printed with every section (the machine may be shared):
//  1. RocksDB value-state get+put throughput vs the same Get+Put through RocksDB's own API (same
//     key and value bytes, no WAL) and vs `db_bench` run with the engine instance's own OPTIONS
//     file (WAL off, one thread, the engine's key and value sizes): fillrandom + readrandom (the
//     issue's baseline) and updaterandom (a read-modify-write, the engine's get+put). Three
//     rounds interleaved, medians.
//  2. Bytes uploaded per checkpoint when 1% of the keys change per interval: RocksDB full vs
//     incremental vs changelog (over incremental RocksDB; materialization only at the first).
//  3. Checkpoint duration p50/p99 over 60 checkpoints at a 1 s interval under steady load (1% of
//     the keys changed per second on the task thread, async parts on another thread, completed
//     checkpoints in a completed-checkpoint store retaining 1): RocksDB incremental vs changelog
//     over incremental RocksDB (materialization interval 10 s, the default, in the background).
//  4. Recovery time per backend at the same state, and rescale 2 -> 3 (backend creation +
//     restore of the three new subtasks): DeleteRange clipping vs inserting every owned key
//     (from the native handles, and from a canonical savepoint), three rounds, medians.
// Usage: bench_state [--quick] [--only=SECTIONS]   (--quick: 200 000 keys instead of 1 000 000;
// --only=13: sections 1 and 3 only).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/keyed_handle_files.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/engine/state/value_state.h"
#include "ckpt/format/metadata_codec.h"
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

// "1.23 1.10 0.98" (1, 5 and 15 minutes) from /proc/loadavg.
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
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
using SyncPart = std::shared_ptr<ckpt::engine::OperatorSnapshot>;

// The async parts of one snapshot of an operator's subtasks (their sync parts `parts`).
Taken Finish(const std::vector<SyncPart>& parts, const CheckpointOptions& o) {
  Taken t;
  const auto id = ckpt::format::OperatorId::FromUid("op");
  ckpt::pb::OperatorState* os = t.md.add_operators();
  os->set_operator_id(id.ToBytes());
  os->set_parallelism(static_cast<uint32_t>(parts.size()));
  os->set_max_parallelism(kMaxP);
  for (uint32_t i = 0; i < parts.size(); ++i) {
    auto st = Take(ckpt::engine::WriteOperatorSnapshot(ckpt::base::Fs::Default(), o, *parts[i]),
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
  return t;
}

// A checkpoint (or savepoint) of `backends` (the subtasks of one operator) into `dir`, as the
// metadata the restore reads: sync parts, then async parts, then (if `notify`) the completion
// notification.
Taken Snapshot(const std::vector<KeyedStateBackend*>& backends, CheckpointOptions o,
               const std::string& dir, bool notify = true) {
  Check(ckpt::base::Fs::Default().CreateDirs(dir), "mkdir " + dir);
  o.snapshot_dir = dir;
  std::vector<SyncPart> parts;
  for (uint32_t i = 0; i < backends.size(); ++i) {
    parts.push_back(std::make_shared<ckpt::engine::OperatorSnapshot>(
        Take(ckpt::engine::TakeOperatorSnapshot(o, ckpt::format::OperatorId::FromUid("op"), i,
                                                backends[i], nullptr, {}),
             "snapshot sync part")));
  }
  Taken t = Finish(parts, o);
  if (notify) {
    for (KeyedStateBackend* b : backends) b->NotifyCheckpointComplete(o.checkpoint_id);
  }
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

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// CPU seconds (user + system, every thread) of this process or of its waited-for children.
double CpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// One measured phase: wall-clock and CPU seconds for `ops` operations.
struct Phase {
  double wall_s = 0, cpu_s = 0;
};

struct DbBench {
  bool ran = false;
  Phase fill, read, update;
  std::string error;
};

// db_bench with the engine instance's own options (its OPTIONS file, merge operator line
// removed: db_bench cannot load ours and get/put never use it), WAL off as in the backend, one
// thread, keys and values of the engine's sizes. fillrandom writes `keys` random keys (some
// twice), readrandom then finds about 63% of its reads; updaterandom is a read-modify-write
// (Get, then Put) of a random key, the engine's get+put. Wall-clock: db_bench's micros/op. CPU:
// db_bench reports none per benchmark, so it runs three times ("fillrandom",
// "fillrandom,readrandom", "fillrandom,updaterandom", one process each) and a phase's CPU is the
// difference to the fill-only run (getrusage of the children).
DbBench RunDbBench(int64_t keys, int64_t reads, size_t key_size, size_t value_size,
                   const std::string& options_file) {
  DbBench r;
  const std::string dir = Root() + "/db_bench";
  double cpu[3] = {0, 0, 0};
  const char* lists[3] = {"fillrandom", "fillrandom,readrandom", "fillrandom,updaterandom"};
  for (int run = 0; run < 3; ++run) {
    const std::string cmd = "db_bench --db=" + dir + " --benchmarks=" + lists[run] +
                            " --num=" + std::to_string(keys) + " --reads=" +
                            std::to_string(reads) + " --key_size=" + std::to_string(key_size) +
                            " --value_size=" + std::to_string(value_size) +
                            " --options_file=" + options_file +
                            " --disable_wal=1 --threads=1 --seed=1 2>&1";
    const double c0 = CpuSeconds(RUSAGE_CHILDREN);
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return r;
    char line[4096];
    std::string all;
    while (std::fgets(line, sizeof(line), p) != nullptr) {
      all += line;
      double us = 0;
      for (const char* name : {"fillrandom", "readrandom", "updaterandom"}) {
        const char* at = std::strstr(line, name);
        if (at == nullptr) continue;
        const char* colon = std::strchr(at, ':');
        if (colon == nullptr || std::sscanf(colon + 1, " %lf micros/op", &us) != 1) continue;
        const double wall = us * 1e-6 * static_cast<double>(keys);
        if (run == 0 && std::strcmp(name, "fillrandom") == 0) r.fill.wall_s = wall;
        if (run == 1 && std::strcmp(name, "readrandom") == 0) r.read.wall_s = wall;
        if (run == 2 && std::strcmp(name, "updaterandom") == 0) r.update.wall_s = wall;
      }
    }
    const int rc = pclose(p);
    cpu[run] = CpuSeconds(RUSAGE_CHILDREN) - c0;
    fs::remove_all(dir);
    if (rc != 0) {
      r.error = all.substr(all.size() > 600 ? all.size() - 600 : 0);
      return r;
    }
  }
  r.fill.cpu_s = cpu[0];
  r.read.cpu_s = cpu[1] - cpu[0];
  r.update.cpu_s = cpu[2] - cpu[0];
  r.ran = r.fill.wall_s > 0 && r.read.wall_s > 0 && r.update.wall_s > 0 && r.read.cpu_s > 0 &&
          r.update.cpu_s > 0;
  if (!r.ran) r.error = "could not parse db_bench's output";
  return r;
}

// The backend's value state: load `keys` keys, then `ops` random get+put pairs.
struct EngineRun {
  Phase fill, get_put;
  int64_t found = 0;
  std::string options_file;  // the instance's OPTIONS, for db_bench (first run only)
};
EngineRun RunEngine(int64_t keys, int64_t ops, bool keep_options) {
  EngineRun r;
  Backend b = Backend::Make(Config(StateBackendKind::kRocksDb, false, false), {0, kMaxP - 1}, 0);
  auto t0 = Clock::now();
  double c0 = CpuSeconds(RUSAGE_SELF);
  Load(b, keys);
  r.fill = {Seconds(t0), CpuSeconds(RUSAGE_SELF) - c0};
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, keys - 1);
  t0 = Clock::now();
  c0 = CpuSeconds(RUSAGE_SELF);
  for (int64_t i = 0; i < ops; ++i) {
    b.SetKey(pick(rng));
    const Value* cur = b.v.Get();
    r.found += cur != nullptr;
    Check(b.v.Update(Value(cur != nullptr ? std::get<int64_t>(cur->v) + 1 : 0)), "update");
  }
  r.get_put = {Seconds(t0), CpuSeconds(RUSAGE_SELF) - c0};
  if (keep_options) {
    auto* rocks = dynamic_cast<ckpt::engine::RocksDbKeyedStateBackend*>(b.b.get());
    const std::string db = rocks->working_dir() + "/db";
    std::string newest;
    for (const auto& e : fs::directory_iterator(db)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("OPTIONS-", 0) == 0 && n > newest) newest = n;
    }
    std::ifstream in(db + "/" + newest);
    r.options_file = Root() + "/engine-options.ini";
    std::ofstream out(r.options_file);
    for (std::string line; std::getline(in, line);) {
      if (line.find("merge_operator=") == std::string::npos) out << line << '\n';
    }
  }
  return r;
}

// The same key and value bytes straight through RocksDB's API (default column family, the
// backend's DB options: no WAL, max_open_files 256).
struct DirectRun {
  Phase fill, get_put;
  size_t avg_key = 0, value_bytes = 0;
};
DirectRun RunDirect(int64_t keys, int64_t ops) {
  DirectRun r;
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
  std::string encoded;
  auto key_of = [&encoded](int64_t k, std::string* out) {
    encoded.clear();
    Check(ckpt::engine::EncodeRecordKey(Value(k), &encoded), "encode");
    out->clear();
    ckpt::format::rocksdb_layout::AppendKeyGroup(
        ckpt::engine::KeyGroupOfEncodedKey(encoded, kMaxP), out);
    ckpt::format::rocksdb_layout::AppendEscaped(encoded, out);
    ckpt::format::rocksdb_layout::AppendEscaped("", out);
  };
  std::string key, value;
  size_t key_bytes = 0;
  auto t0 = Clock::now();
  double c0 = CpuSeconds(RUSAGE_SELF);
  for (int64_t k = 0; k < keys; ++k) {
    key_of(k, &key);
    key_bytes += key.size();
    value.clear();
    Check(ckpt::format::EncodeValue(ckpt::format::types::Int64(), Value(k), &value), "encode");
    db->Put(wo, key, value).PermitUncheckedError();
  }
  r.fill = {Seconds(t0), CpuSeconds(RUSAGE_SELF) - c0};
  r.value_bytes = value.size();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, keys - 1);
  rocksdb::PinnableSlice got;
  rocksdb::ReadOptions ro;
  t0 = Clock::now();
  c0 = CpuSeconds(RUSAGE_SELF);
  for (int64_t i = 0; i < ops; ++i) {
    key_of(pick(rng), &key);
    got.Reset();
    rocksdb::Status s = db->Get(ro, db->DefaultColumnFamily(), key, &got);
    if (s.ok()) {
      value.assign(got.data(), got.size());
    } else {
      value.clear();
    }
    got.Reset();
    db->Put(wo, key, value).PermitUncheckedError();
  }
  r.get_put = {Seconds(t0), CpuSeconds(RUSAGE_SELF) - c0};
  db->Close().PermitUncheckedError();
  db.reset();
  fs::remove_all(dir);
  r.avg_key = (key_bytes + static_cast<size_t>(keys) / 2) / static_cast<size_t>(keys);
  return r;
}

void Throughput(int64_t keys) {
  const int64_t ops = keys;
  constexpr int kRounds = 3;
  std::printf("\n1. value-state get+put, %lld keys loaded, %lld random get+put pairs; %d rounds "
              "(engine, RocksDB API, db_bench interleaved), medians; load average %s\n",
              static_cast<long long>(keys), static_cast<long long>(ops), kRounds,
              LoadAverage().c_str());
  // Per system: fill and get+put, wall-clock ops/s and ops per CPU second.
  struct Rates {
    std::vector<double> fill_wall, fill_cpu, op_wall, op_cpu;
    void Add(const Phase& fill, const Phase& op, double n_fill, double n_op) {
      fill_wall.push_back(n_fill / fill.wall_s);
      fill_cpu.push_back(n_fill / fill.cpu_s);
      op_wall.push_back(n_op / op.wall_s);
      op_cpu.push_back(n_op / op.cpu_s);
    }
  };
  Rates engine, direct, bench_fill_read, bench_update;
  std::string options_file;
  size_t avg_key = 0, value_bytes = 0;
  int64_t found = 0;
  bool bench_ok = true;
  const double n = static_cast<double>(keys);
  for (int round = 0; round < kRounds; ++round) {
    EngineRun e = RunEngine(keys, ops, round == 0);
    if (round == 0) options_file = e.options_file;
    found = e.found;
    engine.Add(e.fill, e.get_put, n, static_cast<double>(ops));
    fs::remove_all(Root() + "/local");
    DirectRun d = RunDirect(keys, ops);
    avg_key = d.avg_key;
    value_bytes = d.value_bytes;
    direct.Add(d.fill, d.get_put, n, static_cast<double>(ops));
    if (!bench_ok) continue;
    const DbBench db = RunDbBench(keys, ops, avg_key, value_bytes, options_file);
    if (!db.ran) {
      std::printf("   db_bench not available or failed: %s\n", db.error.c_str());
      bench_ok = false;
      continue;
    }
    // One get+put = one readrandom op + one fillrandom op.
    const Phase pair{db.fill.wall_s + db.read.wall_s, db.fill.cpu_s + db.read.cpu_s};
    bench_fill_read.Add(db.fill, pair, n, static_cast<double>(ops));
    bench_update.Add(db.fill, db.update, n, static_cast<double>(ops));
  }
  std::printf("   key %zu bytes (average), value %zu bytes; %lld of %lld engine gets found a value\n",
              avg_key, value_bytes, static_cast<long long>(found), static_cast<long long>(ops));
  std::printf("   %-42s %11s %11s %13s %13s\n", "", "fill/s", "fill/cpu-s", "get+put/s",
              "get+put/cpu-s");
  auto row = [](const char* name, const Rates& r) {
    std::printf("   %-42s %11.0f %11.0f %13.0f %13.0f\n", name, Median(r.fill_wall),
                Median(r.fill_cpu), Median(r.op_wall), Median(r.op_cpu));
  };
  auto ratio = [&](const char* what, const Rates& base, const char* target) {
    std::printf("   -> engine get+put = %3.0f%% of %s per CPU second, %3.0f%% by wall clock%s\n",
                100.0 * Median(engine.op_cpu) / Median(base.op_cpu), what,
                100.0 * Median(engine.op_wall) / Median(base.op_wall), target);
  };
  row("engine RocksDB value state", engine);
  row("RocksDB API, same keys/values", direct);
  ratio("the RocksDB API", direct, "");
  if (bench_ok) {
    row("db_bench fillrandom + readrandom", bench_fill_read);
    row("db_bench updaterandom (read-modify-write)", bench_update);
    ratio("db_bench fillrandom + readrandom", bench_fill_read, " (target >= 80%)");
    ratio("db_bench updaterandom", bench_update, "");
    std::printf("   (fill: engine and API insert keys 0..n-1, db_bench n random keys; db_bench's "
                "CPU includes its process start and DB open)\n");
  }
  fs::remove_all(options_file);
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

// Writes `t`'s metadata as chk-<id>/_metadata so the completed-checkpoint store can register it.
void Publish(Taken& t, int64_t id, const std::string& dir) {
  t.md.set_format_version(1);
  t.md.set_engine_name("bench_state");
  t.md.set_job_id(std::string(16, '\x01'));
  t.md.set_checkpoint_id(id);
  t.md.set_kind(ckpt::pb::CHECKPOINT);
  Check(ckpt::format::WriteMetadataFile(ckpt::base::Fs::Default(), dir, t.md), "metadata " + dir);
}

// Steady load: `rate` random keys per second get a new value, paced in 1 ms steps, on this
// thread (the task's). A checkpoint is triggered every `interval_ms` (Flink's
// max-concurrent-checkpoints 1: not while one is in flight): its sync part runs here, its async
// part on another thread while the load goes on; its duration is from the trigger to the end of
// the async part (measured on that thread: the acknowledgement does not wait for the task
// thread). Completed checkpoints go to a completed-checkpoint store (num-retained 1),
// which deletes subsumed checkpoints and unreferenced shared files, and the backend is notified.
void Durations(int64_t keys) {
  constexpr int kCheckpoints = 60;
  constexpr int64_t kIntervalMs = 1000;
  const int64_t rate = keys / 100;  // 1% of the keys per interval
  std::printf("\n3. checkpoint duration, %d checkpoints at a %lld ms interval under steady load "
              "(%lld keys, %lld changes/s = 1%% per interval); load average %s\n",
              kCheckpoints, static_cast<long long>(kIntervalMs), static_cast<long long>(keys),
              static_cast<long long>(rate), LoadAverage().c_str());
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
    ckpt::engine::CompletedCheckpointStore store(ckpt::base::Fs::Default(), 1);
    auto complete = [&](Taken& t, int64_t id) {
      const std::string dir = job + "/chk-" + std::to_string(id);
      Publish(t, id, dir);
      ckpt::engine::CompletedCheckpoint c;
      c.checkpoint_id = id;
      c.dir = dir;
      c.metadata_path = dir + "/_metadata";
      Check(store.Add(c), "store");
      b.b->NotifyCheckpointComplete(id);
    };
    {
      Taken first = Snapshot({b.b.get()}, Checkpoint(1), job + "/chk-1", /*notify=*/false);
      complete(first, 1);
    }
    std::mt19937_64 rng(13);
    std::uniform_int_distribution<int64_t> pick(0, keys - 1);
    std::vector<double> ms;
    std::vector<uint64_t> sizes;
    uint64_t uploaded = 0;
    const auto run0 = Clock::now();
    auto next_trigger = Clock::now() + std::chrono::milliseconds(kIntervalMs);
    int64_t id = 1, changes = 0;
    // The async part's result and when it ended (the ack time: the task thread may notice later).
    std::future<std::pair<Taken, Clock::time_point>> in_flight;
    Clock::time_point triggered;
    while (static_cast<int>(ms.size()) < kCheckpoints) {
      // 1 ms of load.
      const int64_t due = static_cast<int64_t>(Seconds(run0) * static_cast<double>(rate));
      for (; changes < due; ++changes) b.Put(pick(rng), changes);
      if (in_flight.valid() &&
          in_flight.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        auto [t, ended] = in_flight.get();
        ms.push_back(std::chrono::duration<double>(ended - triggered).count() * 1000);
        sizes.push_back(t.checkpointed_bytes);
        uploaded += t.checkpointed_bytes;
        complete(t, id);
      }
      if (!in_flight.valid() && Clock::now() >= next_trigger) {
        ++id;
        triggered = Clock::now();
        next_trigger = triggered + std::chrono::milliseconds(kIntervalMs);
        CheckpointOptions o = Checkpoint(id);
        o.snapshot_dir = job + "/chk-" + std::to_string(id);
        Check(ckpt::base::Fs::Default().CreateDirs(o.snapshot_dir), "mkdir");
        auto sync = std::make_shared<ckpt::engine::OperatorSnapshot>(
            Take(ckpt::engine::TakeOperatorSnapshot(o, ckpt::format::OperatorId::FromUid("op"), 0,
                                                    b.b.get(), nullptr, {}),
                 "snapshot sync part"));
        in_flight = std::async(std::launch::async, [o, sync] {
          Taken t = Finish({sync}, o);
          return std::make_pair(std::move(t), Clock::now());
        });
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const double p50 = Percentile(ms, 0.5), p99 = Percentile(ms, 0.99);
    if (base_p99 == 0) base_p99 = p99;
    std::printf("   %-34s p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms  (%zu checkpoints in %.1f s, "
                "checkpointed size %.0f B per checkpoint)  p99 = %.2fx of RocksDB "
                "incremental%s\n",
                m.name, p50, p99, *std::max_element(ms.begin(), ms.end()), ms.size(),
                Seconds(run0), static_cast<double>(uploaded) / static_cast<double>(ms.size()),
                p99 / base_p99, base_p99 == p99 ? " (baseline)" : " (target <= 0.33x)");
    // The slowest checkpoints and what they uploaded.
    std::vector<size_t> order(ms.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t c) { return ms[a] > ms[c]; });
    std::printf("      slowest:");
    for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i) {
      std::printf(" #%zu %.0f ms (%llu B)", order[i] + 2, ms[order[i]],
                  static_cast<unsigned long long>(sizes[order[i]]));
    }
    std::printf("\n");
    b = Backend();
    fs::remove_all(Root() + "/durations");
  }
}

// ---- 4. recovery and rescale ------------------------------------------------------------

void Recovery(int64_t keys) {
  std::printf("\n4. recovery of %lld keys (one subtask); load average %s\n",
              static_cast<long long>(keys), LoadAverage().c_str());
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

  std::printf("\n   rescale 2 -> 3 of %lld keys, RocksDB: the three new subtasks' restores "
              "(snapshot on the working directory's filesystem); load average %s\n",
              static_cast<long long>(keys), LoadAverage().c_str());
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
  struct Way {
    const char* name;
    bool clip;
    const Taken* taken;
    const char* dir;
  };
  const Way ways[] = {
      {"native, every owned key inserted", false, &native, "/native"},
      {"canonical, every owned key inserted", false, &canonical, "/canonical"},
      {"native, DeleteRange clipping", true, &native, "/native"},
  };
  constexpr int kRounds = 3;
  std::vector<double> seconds[3];
  ckpt::engine::RocksDbRestoreStats last[3];
  for (int round = 0; round < kRounds; ++round) {
    for (int w = 0; w < 3; ++w) {
      double total = 0;
      ckpt::engine::RocksDbRestoreStats sum;
      for (uint32_t i = 0; i < 3; ++i) {
        ckpt::engine::RocksDbBackendOptions o;
        o.local_dir = Root() + "/local";
        o.rescale_by_clipping = ways[w].clip;
        // A new subtask's whole restore: creating the backend, then restoring into it.
        const auto t0 = Clock::now();
        auto x = Take(ckpt::engine::RocksDbKeyedStateBackend::Open(
                          kMaxP, ckpt::format::RangeForSubtask(kMaxP, 3, i), "bench", o),
                      "open");
        RestoreSeconds(x.get(), *ways[w].taken, job + ways[w].dir);
        total += Seconds(t0);
        const auto& st = x->last_restore_stats();
        sum.fetch_seconds += st.fetch_seconds;
        sum.open_seconds += st.open_seconds;
        sum.clip_seconds += st.clip_seconds;
        sum.insert_seconds += st.insert_seconds;
        sum.canonical_seconds += st.canonical_seconds;
        sum.finish_seconds += st.finish_seconds;
        sum.total_seconds += st.total_seconds;
        sum.files_linked += st.files_linked;
        sum.files_copied += st.files_copied;
        sum.bytes_copied += st.bytes_copied;
        sum.keys_inserted += st.keys_inserted;
      }
      seconds[w].push_back(total);
      last[w] = sum;
    }
  }
  const double key_by_key = std::min(Median(seconds[0]), Median(seconds[1]));
  for (int w = 0; w < 3; ++w) {
    const auto& st = last[w];
    const double med = Median(seconds[w]);
    std::printf("   %-38s %8.3f s (median of %d)  %s\n", ways[w].name, med, kRounds,
                w < 2 ? (med == key_by_key ? "(baseline: the faster key-by-key way)" : "")
                      : "");
    std::printf("      last round: fetch %.3f s (%llu SSTs linked, %llu files copied, %llu B), "
                "open %.3f s, clip %.3f s, insert %.3f s (%llu keys from native handles), "
                "canonical %.3f s, finish %.3f s; Restore %.3f s in all\n",
                st.fetch_seconds, static_cast<unsigned long long>(st.files_linked),
                static_cast<unsigned long long>(st.files_copied),
                static_cast<unsigned long long>(st.bytes_copied), st.open_seconds,
                st.clip_seconds, st.insert_seconds, static_cast<unsigned long long>(st.keys_inserted),
                st.canonical_seconds, st.finish_seconds, st.total_seconds);
  }
  std::printf("   -> DeleteRange clipping %.1fx faster than the faster key-by-key way (target >= "
              "3x); %.1fx vs native key by key, %.1fx vs canonical key by key\n",
              key_by_key / Median(seconds[2]), Median(seconds[0]) / Median(seconds[2]),
              Median(seconds[1]) / Median(seconds[2]));
  fs::remove_all(Root() + "/rescale");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bool quick = false;
  std::string only = "1234";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a.rfind("--only=", 0) == 0) {
      only = a.substr(7);
    } else {
      std::fprintf(stderr, "usage: bench_state [--quick] [--only=SECTIONS]\n");
      return 2;
    }
  }
  const int64_t keys = quick ? 200'000 : 1'000'000;
  fs::remove_all(Root());
  const auto t0 = Clock::now();
  std::printf("state backends bench: %lld keys (Int64 -> Int64 value state), max parallelism %u, "
              "%u cores, load average %s\n",
              static_cast<long long>(keys), kMaxP, std::thread::hardware_concurrency(),
              LoadAverage().c_str());
  if (only.find('1') != std::string::npos) Throughput(keys);
  if (only.find('2') != std::string::npos) UploadedBytes(keys);
  if (only.find('3') != std::string::npos) Durations(keys);
  if (only.find('4') != std::string::npos) Recovery(keys);
  fs::remove_all(Root());
  std::printf("\ntotal %.1f s, load average %s\n", Seconds(t0), LoadAverage().c_str());
  return 0;
}
