// Helpers shared by the engine ITCases: the keyed-sum job spec, a verifier that reads only
// committed sink files (Flink's UnalignedCheckpointITCase counters: lost, duplicated,
// out-of-order per source split), and a check that re-reads every snapshot with all checksums.
#pragma once

#include <cstdint>
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {
class OperatorRegistry;
}

namespace ckpt::itcase {

// The binaries under test, "" when the build did not define them (the tests that need one fail,
// never skip, with a message naming it).
#ifdef CKPT_ENGINE_BINARY
constexpr const char* kEngine = CKPT_ENGINE_BINARY;
#else
constexpr const char* kEngine = "";
#endif
#ifdef CKPT_TOOL_BINARY
constexpr const char* kTool = CKPT_TOOL_BINARY;
#else
constexpr const char* kTool = "";
#endif

struct KeyedSumJob {
  std::string name = "keyed-sum-itcase";
  std::string job_id;        // 32 hex or "" (random)
  int64_t from = 1;
  int64_t to = 100000;
  int64_t splits = 8;
  int64_t keys = 16;
  double rate_per_second = 0;  // 0: unlimited
  std::string sink_dir;
  // Kind of the operator between source and keyed sum ("" = none, forward chained).
  std::string map_kind;
  std::string map_params_json = "{}";
  std::string sum_uid = "sum";
  uint32_t sum_max_parallelism = 0;  // 0: default
};

// A job id (32 hex digits) derived from `key`: the failure injector's in-process ledger is per
// job id, so each test (or each run within a test) names its own.
std::string JobIdFor(const std::string& key);

// The keyed-sum job over 1..`records` in 8 splits and `keys` keys into `sink_dir`, paced to
// take a second of input.
KeyedSumJob PacedJob(const std::string& sink_dir, int64_t records, int64_t keys);

// The keyed-sum job of the state-backend ITCases: PacedJob of 60,000 records over 40 keys, with
// a job id of the running test's own.
KeyedSumJob BackendITCaseJob(const std::string& sink_dir);

// The job as JSON: sequence-source -> [map] -> (HASH) keyed-sum(emit input-and-sum) -> file-sink.
std::string KeyedSumJobJson(const KeyedSumJob& job);
pb::JobSpec KeyedSumJobSpec(const KeyedSumJob& job);

// The built-in operators, except that "sequence-source" holds at its end of input (idle, still
// taking checkpoint triggers and stop requests) until the job is stopped or cancelled, instead of
// finishing. For a first run that the test stops or cancels mid-input on purpose: on a slow
// machine the input otherwise ran out first ("job is not running (restarting or finishing)").
// Lives for the whole test program (JobRunnerOptions::registry).
const engine::OperatorRegistry* HoldingSourcesRegistry();

struct Verification {
  int64_t lines = 0;
  int64_t lost = 0;
  int64_t duplicates = 0;
  int64_t out_of_order = 0;   // per (source split, key): inputs not increasing in commit order
  int64_t bad_sums = 0;       // running sum != previous sum + input (exactly-once state)
  int64_t final_sum_mismatch = 0;  // per key: largest committed sum != closed form
  int64_t malformed = 0;
  std::string first_problem;
  std::string Summary() const;
};

// Reads committed files ("part-*", never dot files) of every directory in `sink_dirs` (in that
// order; within a directory by subtask then part number) and checks them against the inputs
// from..to cut into `splits` splits with key = value % keys. `check_sums`: also the running-sum
// chain per key. The commit order is reconstructed per directory by (subtask, part number), so
// a directory must not hold output of two different parallelisms when check_sums is on.
Verification VerifyCommitted(const std::vector<std::string>& sink_dirs, const KeyedSumJob& job,
                             bool check_sums);

// Expects committed output of at least one line with nothing lost, duplicated, out of order per
// (split, key), summed wrongly or malformed (gtest EXPECTs). `per_key_order` false leaves out the
// order check, for a REBALANCE edge, which keeps no per-key order.
void ExpectExact(const Verification& v, bool per_key_order = true);

// Every `_metadata` under `root` (recursively) decodes, every file it references exists with
// the recorded size and whole-file XXH3, and every state file's block checksums verify.
// Returns the number of snapshots checked, or the first problem.
base::Result<int> VerifyAllSnapshots(const std::string& root);

// The newest complete checkpoint (chk-<n> with a _metadata) under `job_dir`, "" if none;
// `persisted`: its persisted in-flight bytes (unaligned checkpoints).
std::string LatestCheckpoint(const std::string& job_dir, uint64_t* persisted = nullptr);

// Starts `args` (args[0] = binary) with stdout and stderr appended to `log`.
pid_t Spawn(const std::vector<std::string>& args, const std::string& log);
// Waits for `pid`: its exit code, or 128 + signal number.
int WaitExit(pid_t pid);
std::string ReadFile(const std::string& path);
// How often `needle` occurs in `haystack`, without overlaps.
size_t Count(const std::string& haystack, const std::string& needle);

}  // namespace ckpt::itcase
