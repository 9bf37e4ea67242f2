// verdict_generator: for each snapshot kind the engine can write (snapshot_kinds.h), makes one
// with ckpt-engine and asserts, as a user would see it:
//   1. `ckpt-tool validate --deep SNAPSHOT` exits 0;
//   2. `ckpt-engine run JOB -s SNAPSHOT` restores it and the committed output is correct
//      (nothing lost; exactly-once modes: nothing duplicated, running sums intact);
//   3. rescaled to parallelism + 1: `validate --against` and the restore agree (both refuse, or
//      both accept and the output is correct);
//   4. for each damage of the damage matrix that applies: `validate --deep --against JOB`
//      exits 0 exactly when the restore does.
// Prints a summary table (kinds run, skipped with reason, disagreements); exits 1 on any
// disagreement or failure.
//
//   verdict_generator --sample N --seed S [--damages K] [--work DIR]
//   verdict_generator --all [--damages K] [--work DIR]
// --damages K: K damages per kind, rotating through the matrix from kind to kind (0: all).
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/wait_until.h"
#include "damage_matrix.h"
#include "itcase_util.h"
#include "snapshot_kinds.h"

namespace ckpt::generator {
namespace {

namespace fs = std::filesystem;

// The binaries under test: the build's, or $CKPT_ENGINE / $CKPT_TOOL (a long run can use copies
// while the tree is rebuilt).
std::string BinaryFromEnv(const char* env, const char* built) {
  const char* v = std::getenv(env);
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(built);
}
const std::string kEngine = BinaryFromEnv("CKPT_ENGINE", itcase::kEngine);
const std::string kTool = BinaryFromEnv("CKPT_TOOL", itcase::kTool);
using itcase::CopyTree;
using itcase::DamageMatrix;
using itcase::SnapshotDamage;

constexpr int64_t kRecords = 24000;  // keyed-sum jobs: 1..kRecords in 4 splits over 16 keys

struct Options {
  bool all = false;
  size_t sample = 16;
  uint64_t seed = 1;
  size_t damages_per_kind = 4;
  std::string work;
};

struct KindResult {
  std::string name;
  bool ok = true;
  std::vector<std::string> problems;       // failures that are not disagreements
  std::vector<std::string> disagreements;  // validate and restore disagree
  int damages_run = 0;
  int damages_not_applicable = 0;
  bool rescale_refused_by_both = false;
  bool validate_clean = false;  // validate --deep of the pristine snapshot exited 0
  bool restored = false;        // restored at its parallelism with the right output
  double seconds = 0;
};

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// The job spec of `k` as JSON, in the conventions the damage matrix's job edits expect.
std::string JobJson(const SnapshotKind& k, uint32_t parallelism, const std::string& job_id,
                    const std::string& sink, int64_t rate) {
  std::ostringstream o;
  o << "{\"parallelism\": " << parallelism << ", \"name\": " << Quote("gen-" + std::string(TopologyName(k.topology)))
    << ", \"job_id\": " << Quote(job_id) << ", \"operators\": [";
  auto source = [&](const std::string& id, int64_t from, int64_t to, int64_t splits,
                    const std::string& extra) {
    o << "{\"id\": " << Quote(id) << ", \"kind\": \"sequence-source\", \"uid\": " << Quote(id)
      << ", \"params\": {\"from\": " << from << ", \"to\": " << to << ", \"splits\": " << splits
      << ", \"keys\": 16, \"rate_per_second\": " << rate << extra << "}},";
  };
  const std::string sum =
      "{\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\", \"params\": {\"emit\": "
      "\"input-and-sum\"}},";
  const std::string sink_op = "{\"id\": \"sink\", \"kind\": \"file-sink\", \"uid\": \"sink\", "
                              "\"params\": {\"path\": " + Quote(sink) + "}}";
  auto edge = [](const std::string& from, const std::string& to, const std::string& p,
                 int input = 0) {
    return "{\"from\": " + Quote(from) + ", \"to\": " + Quote(to) + ", \"partitioning\": " +
           Quote(p) + ", \"input\": " + std::to_string(input) + "}";
  };
  std::vector<std::string> edges;
  switch (k.topology) {
    case Topology::kHashChained:
      source("source", 1, kRecords, 4, "");
      o << sum << sink_op;
      edges = {edge("source", "sum", "HASH"), edge("sum", "sink", "FORWARD")};
      break;
    case Topology::kForwardMapChained:
    case Topology::kRebalanceUnchained:
      source("source", 1, kRecords, 4, "");
      o << "{\"id\": \"map\", \"kind\": \"map\", \"uid\": \"map\", \"params\": {\"function\": "
           "\"identity\"}},"
        << sum << sink_op;
      edges = {edge("source", "map",
                    k.topology == Topology::kForwardMapChained ? "FORWARD" : "REBALANCE"),
               edge("map", "sum", "HASH"), edge("sum", "sink", "FORWARD")};
      break;
    case Topology::kStatelessBetween:
    case Topology::kStatelessUnchained:
      source("source", 1, kRecords, 4, "");
      o << sum
        << "{\"id\": \"slow\", \"kind\": \"slow\", \"uid\": \"slow\", \"params\": {\"delay_us\": "
           "100, \"every\": 20}},"
        << sink_op;
      edges = {edge("source", "sum", "HASH"),
               edge("sum", "slow",
                    k.topology == Topology::kStatelessBetween ? "HASH" : "REBALANCE"),
               edge("slow", "sink", "FORWARD")};
      break;
    case Topology::kBroadcastSide:
      source("source", 1, kRecords, 4, "");
      o << sum << "{\"id\": \"side\", \"kind\": \"discard\", \"uid\": \"side\"}," << sink_op;
      edges = {edge("source", "sum", "HASH"), edge("source", "side", "BROADCAST"),
               edge("sum", "sink", "FORWARD")};
      break;
    case Topology::kUnion:
      // Two halves of 1..kRecords whose splits are the keyed-sum job's 4 splits.
      source("source", 1, kRecords / 2, 2, "");
      source("source-b", kRecords / 2 + 1, kRecords, 2, "");
      o << sum << sink_op;
      edges = {edge("source", "sum", "HASH"), edge("source-b", "sum", "HASH"),
               edge("sum", "sink", "FORWARD")};
      break;
    case Topology::kTwoInput:
      source("source", 0, 5999, 2, ", \"timestamp_step_ms\": 10");
      source("payments", 0, 2999, 2, ", \"timestamp_step_ms\": 20");
      o << "{\"id\": \"sum\", \"kind\": \"window-join\", \"uid\": \"sum\", \"params\": "
           "{\"size_ms\": 2000}},"
        << sink_op;
      edges = {edge("source", "sum", "HASH", 0), edge("payments", "sum", "HASH", 1),
               edge("sum", "sink", "FORWARD")};
      break;
  }
  o << "], \"edges\": [";
  for (size_t i = 0; i < edges.size(); ++i) o << (i ? ", " : "") << edges[i];
  o << "]}";
  return o.str();
}

// The keyed-sum job VerifyCommitted checks the output of `k` against.
itcase::KeyedSumJob VerifiedJob(const std::string& sink) {
  itcase::KeyedSumJob j;
  j.from = 1;
  j.to = kRecords;
  j.splits = 4;
  j.keys = 16;
  j.sink_dir = sink;
  return j;
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::vector<std::string> CommittedLines(const std::string& dir) {
  std::vector<std::string> lines;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("part-", 0) != 0) continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

int CountCompleteCheckpoints(const std::string& job_dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(job_dir, ec)) {
    if (e.path().filename().string().rfind("chk-", 0) == 0 && fs::exists(e.path() / "_metadata")) {
      ++n;
    }
  }
  return n;
}

std::string FindSavepoint(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.path().filename() == "_metadata") return e.path().parent_path().string();
  }
  return "";
}

class KindRunner {
 public:
  KindRunner(const SnapshotKind& k, const std::string& dir, size_t damage_offset,
             size_t damages_per_kind, std::map<std::string, std::vector<std::string>>* references)
      : k_(k), dir_(dir), damage_offset_(damage_offset), damages_per_kind_(damages_per_kind),
        references_(references) {}

  KindResult Run() {
    const auto start = std::chrono::steady_clock::now();
    r_.name = k_.Name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    job_id_ = itcase::JobIdFor("verdict-generator/" + r_.name);
    sink_ = dir_ + "/out";
    if (Write()) {
      CheckPristine();
      CheckRescale();
      CheckDamages();
    }
    r_.ok = r_.problems.empty() && r_.disagreements.empty();
    r_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r_.ok) fs::remove_all(dir_);  // keep what failed for a look
    return r_;
  }

 private:
  std::vector<std::string> EngineFlags() const {
    std::vector<std::string> f = {"--mode", ModeFlag(k_.mode)};
    for (const std::string& b : BackendFlags(k_.backend)) f.push_back(b);
    return f;
  }

  std::string Spec(uint32_t parallelism, int64_t rate, const std::string& name) {
    const std::string path = dir_ + "/" + name;
    WriteText(path, JobJson(k_, parallelism, job_id_, sink_, rate));
    return path;
  }

  void Problem(const std::string& what, const std::string& log = "") {
    std::string text = what;
    if (!log.empty()) {
      std::string out = itcase::ReadFile(log);
      if (out.size() > 1500) out = "..." + out.substr(out.size() - 1500);
      text += "\n      " + log + ":\n" + out;
    }
    r_.problems.push_back(text);
  }

  // Runs the job until it has written the snapshot; copies it (with the job directory for
  // checkpoints, which may reference shared files of earlier ones) and the sink to pristine.
  bool Write() {
    const std::string spec = Spec(k_.parallelism, k_.topology == Topology::kTwoInput ? 2000 : 6000,
                                  "write.json");
    const std::string root = dir_ + "/ck";
    const std::string log = dir_ + "/write.log";
    std::vector<std::string> args = {kEngine, "run", spec, "--checkpoint-dir", root,
                                     "--interval", "50", "--num-retained", "3"};
    for (const std::string& f : EngineFlags()) args.push_back(f);
    const bool savepoint = k_.type != SnapshotType::kCheckpoint;
    const std::string state_file = dir_ + "/engine-state.json";
    if (savepoint) {
      args.insert(args.end(), {"--rest-port", "0"});
      setenv("CKPT_ENGINE_STATE_FILE", state_file.c_str(), 1);
    }
    const pid_t pid = itcase::Spawn(args, log);
    const std::string job_dir = root + "/" + job_id_;
    const int wanted = savepoint ? 1 : 3;
    bool exited = false;
    const bool reached = testing::WaitUntil(
        [&] {
          if (CountCompleteCheckpoints(job_dir) >= wanted && (!savepoint || fs::exists(state_file))) {
            return true;
          }
          exited = kill(pid, 0) != 0;
          return exited;
        },
        std::chrono::seconds(120), std::chrono::milliseconds(5));
    if (!reached || exited || CountCompleteCheckpoints(job_dir) < wanted) {
      kill(pid, SIGKILL);
      itcase::WaitExit(pid);
      Problem("the job did not complete " + std::to_string(wanted) + " checkpoint(s) while running", log);
      return false;
    }
    std::string snapshot;
    if (savepoint) {
      const std::string sp_dir = dir_ + "/savepoints";
      const std::string slog = dir_ + "/stop.log";
      const int stop = itcase::WaitExit(itcase::Spawn(
          {kEngine, "stop", job_id_, "-p", sp_dir, "-t",
           k_.type == SnapshotType::kSavepointNative ? "native" : "canonical", "--timeout", "120"},
          slog));
      const int run = itcase::WaitExit(pid);
      unsetenv("CKPT_ENGINE_STATE_FILE");
      if (stop != 0 || run != 0) {
        Problem("stop-with-savepoint: stop exit " + std::to_string(stop) + ", job exit " +
                    std::to_string(run),
                stop != 0 ? slog : log);
        return false;
      }
      const std::string sp = FindSavepoint(sp_dir);
      if (sp.empty()) {
        Problem("no savepoint under " + sp_dir, slog);
        return false;
      }
      pristine_root_ = dir_ + "/pristine-sp";
      CopyTree(sp, pristine_root_);
      snapshot_rel_ = "";
    } else {
      kill(pid, SIGKILL);
      itcase::WaitExit(pid);
      const std::string chk = itcase::LatestCheckpoint(job_dir);
      if (chk.empty()) {
        Problem("no complete checkpoint in " + job_dir, log);
        return false;
      }
      pristine_root_ = dir_ + "/pristine-job";
      CopyTree(job_dir, pristine_root_);
      snapshot_rel_ = fs::path(chk).filename().string();
    }
    sink_pristine_ = dir_ + "/out-pristine";
    CopyTree(sink_, sink_pristine_);
    auto md = format::ReadMetadataFile(base::Fs::Default(), Snapshot(pristine_root_) + "/_metadata");
    if (!md.ok()) {
      Problem("the snapshot's _metadata does not read: " + md.status().ToString());
      return false;
    }
    metadata_ = *md;
    return true;
  }

  std::string Snapshot(const std::string& root) const {
    return snapshot_rel_.empty() ? root : root + "/" + snapshot_rel_;
  }

  // A fresh copy of the pristine snapshot and sink; returns the snapshot's path.
  std::string FreshCopy(const std::string& name) {
    const std::string root = dir_ + "/" + name;
    CopyTree(pristine_root_, root);
    CopyTree(sink_pristine_, sink_);
    return Snapshot(root);
  }

  int Validate(const std::vector<std::string>& extra, const std::string& snapshot,
               const std::string& log) {
    std::vector<std::string> args = {kTool, "validate", "--deep"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(snapshot);
    return itcase::WaitExit(itcase::Spawn(args, log));
  }

  int Restore(const std::string& spec, const std::string& snapshot, bool allow_non_restored,
              const std::string& log) {
    std::vector<std::string> args = {kEngine, "run", spec, "-s", snapshot, "--max-restarts", "0",
                                     "--checkpoint-dir", dir_ + "/restore-ck"};
    for (const std::string& f : EngineFlags()) args.push_back(f);
    if (allow_non_restored) args.push_back("-n");
    return itcase::WaitExit(itcase::Spawn(args, log));
  }

  // The committed output after a restore: "" when right, else what is wrong.
  std::string CheckOutput(uint32_t parallelism, bool same_parallelism) {
    const bool exactly_once = k_.mode != Mode::kAtLeastOnce;
    if (IsKeyedSum(k_.topology)) {
      // A REBALANCE edge before the keyBy keeps no per-key order; one after the keyed sum also
      // spreads a key's running sums over sink subtasks, whose commit order is then no chain.
      const bool rebalanced_after_sum = k_.topology == Topology::kStatelessUnchained;
      const itcase::Verification v = itcase::VerifyCommitted(
          {sink_}, VerifiedJob(sink_), exactly_once && same_parallelism && !rebalanced_after_sum);
      const bool per_key_order =
          k_.topology != Topology::kRebalanceUnchained && !rebalanced_after_sum;
      bool bad = v.lines == 0 || v.lost != 0 || v.malformed != 0;
      if (exactly_once) {
        bad = bad || v.duplicates != 0 || v.bad_sums != 0 || v.final_sum_mismatch != 0 ||
              (per_key_order && v.out_of_order != 0);
      }
      return bad ? v.Summary() : "";
    }
    const std::vector<std::string>& want = Reference(parallelism);
    const std::vector<std::string> got = CommittedLines(sink_);
    if (exactly_once) {
      return got == want ? "" : "committed " + std::to_string(got.size()) +
                                    " line(s), an uninterrupted run " +
                                    std::to_string(want.size());
    }
    const std::set<std::string> a(got.begin(), got.end()), b(want.begin(), want.end());
    return a == b ? "" : "the committed lines as a set differ from an uninterrupted run's";
  }

  // The output of an uninterrupted run of the two-input job (deterministic in event time).
  const std::vector<std::string>& Reference(uint32_t parallelism) {
    const std::string key = std::to_string(parallelism);
    auto it = references_->find(key);
    if (it != references_->end()) return it->second;
    const std::string ref_dir = dir_ + "/reference-p" + key;
    fs::create_directories(ref_dir);
    const std::string spec = ref_dir + "/job.json";
    WriteText(spec, JobJson(k_, parallelism, itcase::JobIdFor("reference" + key), ref_dir + "/out", 0));
    const int exit = itcase::WaitExit(itcase::Spawn({kEngine, "run", spec}, ref_dir + "/run.log"));
    std::vector<std::string> lines = exit == 0 ? CommittedLines(ref_dir + "/out") : std::vector<std::string>{};
    return (*references_)[key] = lines;
  }

  void CheckPristine() {
    const std::string snapshot = FreshCopy("pristine-check");
    const std::string vlog = dir_ + "/validate-pristine.log";
    r_.validate_clean = Validate({}, snapshot, vlog) == 0;
    if (!r_.validate_clean) Problem("validate --deep does not exit 0", vlog);
    const std::string spec = Spec(k_.parallelism, 0, "restore.json");
    const std::string rlog = dir_ + "/restore-pristine.log";
    if (Restore(spec, snapshot, false, rlog) != 0) {
      Problem("the engine does not restore it at parallelism " + std::to_string(k_.parallelism),
              rlog);
      return;
    }
    const std::string wrong = CheckOutput(k_.parallelism, true);
    r_.restored = wrong.empty();
    if (!wrong.empty()) Problem("wrong output after the restore: " + wrong, rlog);
  }

  void CheckRescale() {
    const uint32_t p = k_.parallelism + 1;
    const std::string snapshot = FreshCopy("rescale");
    const std::string spec = Spec(p, 0, "rescale.json");
    const std::string vlog = dir_ + "/validate-rescale.log";
    const int v = Validate({"--against", spec}, snapshot, vlog);
    const std::string rlog = dir_ + "/restore-rescale.log";
    const int r = Restore(spec, snapshot, false, rlog);
    if (v == 2) Problem("validate --against (rescale) exits 2", vlog);
    if ((v == 0) != (r == 0)) {
      r_.disagreements.push_back("rescale to parallelism " + std::to_string(p) + ": validate exit " +
                                 std::to_string(v) + ", restore exit " + std::to_string(r) +
                                 " (" + vlog + ", " + rlog + ")");
      return;
    }
    if (r != 0) {
      r_.rescale_refused_by_both = true;
      return;
    }
    const std::string wrong = CheckOutput(p, false);
    if (!wrong.empty()) Problem("wrong output after the rescaled restore: " + wrong, rlog);
  }

  void CheckDamages() {
    const std::vector<SnapshotDamage> matrix = DamageMatrix();
    std::vector<const SnapshotDamage*> candidates;
    const bool savepoint = k_.type != SnapshotType::kCheckpoint;
    for (const SnapshotDamage& d : matrix) {
      if (d.name == "pristine") continue;  // CheckPristine
      if (d.savepoint_only && !savepoint) continue;
      candidates.push_back(&d);
    }
    size_t n = damages_per_kind_ == 0 ? candidates.size()
                                      : std::min(damages_per_kind_, candidates.size());
    for (size_t i = 0; i < n; ++i) {
      const SnapshotDamage& d = *candidates[(damage_offset_ + i) % candidates.size()];
      const std::string tag = "damage-" + std::to_string(i);
      const std::string snapshot = FreshCopy(tag);
      if (d.damage) {
        const std::string why = d.damage(snapshot, metadata_);
        if (!why.empty()) {
          ++r_.damages_not_applicable;
          continue;
        }
      }
      std::string json = JobJson(k_, k_.parallelism, job_id_, sink_, 0);
      if (d.job_edit) {
        const std::string why = d.job_edit(json);
        if (!why.empty()) {
          ++r_.damages_not_applicable;
          continue;
        }
      }
      const std::string spec = dir_ + "/" + tag + ".json";
      WriteText(spec, json);
      std::vector<std::string> extra = {"--against", spec};
      if (d.allow_non_restored) extra.push_back("-n");
      const std::string vlog = dir_ + "/validate-" + tag + ".log";
      const int v = Validate(extra, snapshot, vlog);
      const std::string rlog = dir_ + "/restore-" + tag + ".log";
      const int r = Restore(spec, snapshot, d.allow_non_restored, rlog);
      ++r_.damages_run;
      if (v == 2) Problem("damage '" + d.name + "': validate exits 2", vlog);
      if ((v == 0) != (r == 0)) {
        r_.disagreements.push_back("damage '" + d.name + "': validate exit " + std::to_string(v) +
                                   ", restore exit " + std::to_string(r) + " (" + vlog + ", " +
                                   rlog + ")");
      }
    }
  }

  const SnapshotKind k_;
  const std::string dir_;
  const size_t damage_offset_;
  const size_t damages_per_kind_;
  std::map<std::string, std::vector<std::string>>* references_;
  KindResult r_;
  std::string job_id_, sink_, sink_pristine_, pristine_root_, snapshot_rel_;
  pb::CheckpointMetadata metadata_;
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    try {
      if (a == "--all") {
        o->all = true;
      } else if (a == "--sample") {
        o->sample = std::stoul(value());
      } else if (a == "--seed") {
        o->seed = std::stoull(value());
      } else if (a == "--damages") {
        o->damages_per_kind = std::stoul(value());
      } else if (a == "--work") {
        o->work = value();
      } else {
        std::cerr << "verdict_generator: unknown argument " << a << "\n";
        return false;
      }
    } catch (...) {
      std::cerr << "verdict_generator: " << a << " needs a number\n";
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 2;
  if (kEngine.empty() || !fs::exists(kEngine) || kTool.empty() || !fs::exists(kTool)) {
    std::cerr << "verdict_generator: ckpt-engine or ckpt-tool not built (" << kEngine << ", "
              << kTool << ")\n";
    return 2;
  }
  if (o.work.empty()) {
    char tmpl[] = "/tmp/verdict-generator-XXXXXX";
    const char* made = mkdtemp(tmpl);
    if (made == nullptr) return 2;
    o.work = made;
  }
  const Space space = EnumerateSpace();
  const std::vector<SnapshotKind> kinds =
      o.all ? space.kinds : SampleKinds(space, o.sample, o.seed);
  std::cout << "verdict generator: " << (o.all ? "whole space" : "sample") << ", " << kinds.size()
            << " of " << space.kinds.size() << " kinds (seed " << o.seed << "), "
            << (o.damages_per_kind == 0 ? std::string("every") : std::to_string(o.damages_per_kind))
            << " damage(s) per kind, work " << o.work << std::endl;

  std::map<std::string, std::vector<std::string>> references;
  std::vector<KindResult> results;
  for (size_t i = 0; i < kinds.size(); ++i) {
    KindRunner runner(kinds[i], o.work + "/kind-" + std::to_string(i), i * o.damages_per_kind,
                      o.damages_per_kind, &references);
    KindResult r = runner.Run();
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", r.seconds);
    std::cout << "[" << (i + 1) << "/" << kinds.size() << "] " << (r.ok ? "ok   " : "FAIL ")
              << r.name << " (" << r.damages_run << " damage(s)"
              << (r.rescale_refused_by_both ? ", rescale refused by both" : "") << ", " << secs
              << " s)" << std::endl;
    for (const std::string& d : r.disagreements) std::cout << "    disagreement: " << d << "\n";
    for (const std::string& p : r.problems) std::cout << "    problem: " << p << "\n";
    std::cout.flush();  // before the next fork: a child must not inherit unwritten output
    results.push_back(std::move(r));
  }

  // Summary.
  int ok = 0, disagreements = 0, problems = 0, damages = 0, not_applicable = 0, refused = 0;
  int clean = 0, restored = 0;
  for (const KindResult& r : results) {
    ok += r.ok ? 1 : 0;
    clean += r.validate_clean ? 1 : 0;
    restored += r.restored ? 1 : 0;
    disagreements += static_cast<int>(r.disagreements.size());
    problems += static_cast<int>(r.problems.size());
    damages += r.damages_run;
    not_applicable += r.damages_not_applicable;
    refused += r.rescale_refused_by_both ? 1 : 0;
  }
  std::map<std::string, int> skip_reasons;
  for (const Skipped& s : space.skipped) ++skip_reasons[s.reason];
  std::cout << "\n== verdict generator summary ==\n"
            << "space                      " << space.kinds.size() + space.skipped.size()
            << " combinations: " << space.kinds.size() << " kinds the engine writes, "
            << space.skipped.size() << " skipped\n"
            << "kinds run                  " << results.size() << "\n"
            << "kinds passed               " << ok << "\n"
            << "validate --deep exit 0     " << clean << "\n"
            << "restored, output correct   " << restored << " (at the snapshot's parallelism)\n"
            << "rescale refused by both    " << refused << " (validate --against and restore agree)\n"
            << "damages run                " << damages << " (" << not_applicable
            << " did not apply to the kind)\n"
            << "disagreements              " << disagreements << "\n"
            << "other problems             " << problems << "\n"
            << "skipped combinations:\n";
  for (const auto& [reason, n] : skip_reasons) std::cout << "  " << n << "  " << reason << "\n";
  if (disagreements + problems > 0) {
    std::cout << "failed kinds:\n";
    for (const KindResult& r : results) {
      if (!r.ok) std::cout << "  " << r.name << "\n";
    }
  }
  return disagreements + problems == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ckpt::generator

int main(int argc, char** argv) { return ckpt::generator::Main(argc, argv); }
