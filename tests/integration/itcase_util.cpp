#include "itcase_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/state_file_reader.h"

namespace ckpt::itcase {
namespace fs = std::filesystem;

std::string KeyedSumJobJson(const KeyedSumJob& j) {
  std::ostringstream o;
  o << "{\"name\": \"" << j.name << "\",";
  if (!j.job_id.empty()) o << "\"job_id\": \"" << j.job_id << "\",";
  o << "\"operators\": ["
    << "{\"id\": \"source\", \"kind\": \"sequence-source\", \"uid\": \"source\", \"params\": "
    << "{\"from\": " << j.from << ", \"to\": " << j.to << ", \"splits\": " << j.splits
    << ", \"keys\": " << j.keys << ", \"rate_per_second\": " << j.rate_per_second << "}},";
  if (!j.map_kind.empty()) {
    o << "{\"id\": \"map\", \"kind\": \"" << j.map_kind << "\", \"uid\": \"map\", \"params\": "
      << j.map_params_json << "},";
  }
  o << "{\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"" << j.sum_uid << "\",";
  if (j.sum_max_parallelism != 0) o << "\"max_parallelism\": " << j.sum_max_parallelism << ",";
  o << "\"params\": {\"emit\": \"input-and-sum\"}},"
    << "{\"id\": \"sink\", \"kind\": \"file-sink\", \"uid\": \"sink\", \"params\": {\"path\": \""
    << j.sink_dir << "\"}}],"
    << "\"edges\": [";
  if (!j.map_kind.empty()) {
    o << "{\"from\": \"source\", \"to\": \"map\", \"partitioning\": \"FORWARD\"},"
      << "{\"from\": \"map\", \"to\": \"sum\", \"partitioning\": \"HASH\"},";
  } else {
    o << "{\"from\": \"source\", \"to\": \"sum\", \"partitioning\": \"HASH\"},";
  }
  o << "{\"from\": \"sum\", \"to\": \"sink\", \"partitioning\": \"FORWARD\"}]}";
  return o.str();
}

pb::JobSpec KeyedSumJobSpec(const KeyedSumJob& job) {
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(KeyedSumJobJson(job), "itcase.json");
  if (!spec.ok()) return pb::JobSpec();
  return *spec;
}

std::string Verification::Summary() const {
  std::ostringstream o;
  o << "lines=" << lines << " lost=" << lost << " duplicates=" << duplicates
    << " out_of_order=" << out_of_order << " bad_sums=" << bad_sums
    << " final_sum_mismatch=" << final_sum_mismatch << " malformed=" << malformed;
  if (!first_problem.empty()) o << " first problem: " << first_problem;
  return o.str();
}

namespace {

struct PartFile {
  uint64_t subtask = 0;
  uint64_t part = 0;
  std::string path;
};

// part-<uid>-<subtask>-<n>: the two trailing numbers order the files of a sink.
bool ParsePartName(const std::string& name, PartFile* f) {
  if (name.rfind("part-", 0) != 0) return false;
  size_t last = name.rfind('-');
  if (last == std::string::npos || last == 0) return false;
  size_t prev = name.rfind('-', last - 1);
  if (prev == std::string::npos) return false;
  try {
    f->subtask = std::stoull(name.substr(prev + 1, last - prev - 1));
    f->part = std::stoull(name.substr(last + 1));
  } catch (...) {
    return false;
  }
  return true;
}

// The split of `v` (sequence-source cuts from..to into `splits` contiguous ranges whose sizes
// differ by at most one, the first `rem` one longer).
int64_t SplitOf(int64_t v, const KeyedSumJob& j) {
  const int64_t n = j.to - j.from + 1;
  const int64_t base = n / j.splits;
  const int64_t rem = n % j.splits;
  const int64_t off = v - j.from;
  const int64_t long_part = rem * (base + 1);
  if (off < long_part) return off / (base + 1);
  return rem + (off - long_part) / base;
}

}  // namespace

Verification VerifyCommitted(const std::vector<std::string>& sink_dirs, const KeyedSumJob& j,
                             bool check_sums) {
  Verification v;
  const int64_t n = j.to - j.from + 1;
  std::vector<uint8_t> seen(static_cast<size_t>(n), 0);
  std::map<std::pair<int64_t, int64_t>, int64_t> last_in_split_key;
  std::map<int64_t, int64_t> last_sum;
  std::map<int64_t, int64_t> max_sum;
  auto problem = [&](const std::string& what) {
    if (v.first_problem.empty()) v.first_problem = what;
  };
  for (const std::string& dir : sink_dirs) {
    std::vector<PartFile> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      PartFile f;
      if (!e.is_regular_file() || !ParsePartName(e.path().filename().string(), &f)) continue;
      f.path = e.path().string();
      files.push_back(f);
    }
    std::sort(files.begin(), files.end(), [](const PartFile& a, const PartFile& b) {
      return std::tie(a.subtask, a.part) < std::tie(b.subtask, b.part);
    });
    for (const PartFile& f : files) {
      std::ifstream in(f.path);
      std::string line;
      while (std::getline(in, line)) {
        ++v.lines;
        int64_t key = 0, input = 0, sum = 0;
        char c1 = 0, c2 = 0;
        std::istringstream ls(line);
        if (!(ls >> key >> c1 >> input >> c2 >> sum) || c1 != ',' || c2 != ',' ||
            input < j.from || input > j.to || key != input % j.keys) {
          ++v.malformed;
          problem("malformed line '" + line + "' in " + f.path);
          continue;
        }
        uint8_t& s = seen[static_cast<size_t>(input - j.from)];
        if (s != 0) {
          ++v.duplicates;
          problem("duplicate input " + std::to_string(input) + " in " + f.path);
        }
        s = 1;
        auto split_key = std::make_pair(SplitOf(input, j), key);
        auto it = last_in_split_key.find(split_key);
        if (it != last_in_split_key.end() && input <= it->second) {
          ++v.out_of_order;
          problem("input " + std::to_string(input) + " after " + std::to_string(it->second) +
                  " in split " + std::to_string(split_key.first) + " in " + f.path);
        }
        last_in_split_key[split_key] = input;
        if (check_sums) {
          int64_t expected = last_sum[key] + input;
          if (sum != expected) {
            ++v.bad_sums;
            problem("key " + std::to_string(key) + ": sum " + std::to_string(sum) +
                    " after input " + std::to_string(input) + ", expected " +
                    std::to_string(expected) + " in " + f.path);
          }
          last_sum[key] = sum;
        }
        max_sum[key] = std::max(max_sum[key], sum);
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (seen[static_cast<size_t>(i)] == 0) {
      ++v.lost;
      problem("input " + std::to_string(j.from + i) + " never committed");
    }
  }
  // Closed form: sum of every input with value % keys == k.
  std::map<int64_t, int64_t> expected;
  for (int64_t x = j.from; x <= j.to; ++x) expected[x % j.keys] += x;
  for (const auto& [key, sum] : expected) {
    if (max_sum[key] != sum) {
      ++v.final_sum_mismatch;
      problem("key " + std::to_string(key) + ": final sum " + std::to_string(max_sum[key]) +
              ", closed form " + std::to_string(sum));
    }
  }
  return v;
}

base::Result<int> VerifyAllSnapshots(const std::string& root) {
  base::Fs& fsys = base::Fs::Default();
  int checked = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    if (!e.is_regular_file() || e.path().filename() != format::kMetadataFileName) continue;
    const std::string dir = e.path().parent_path().string();
    CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fsys, e.path().string()));
    for (const pb::FileEntry& f : md.files()) {
      CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(dir, f));
      std::ifstream in(path, std::ios::binary);
      if (!in) return base::Status::NotFound(path + " (referenced by " + e.path().string() + ")");
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (bytes.size() != f.size_bytes()) {
        return base::Status::Corruption(path + ": size " + std::to_string(bytes.size()) +
                                        " != recorded " + std::to_string(f.size_bytes()));
      }
      if (base::Xxh3(bytes) != f.checksum_xxh3()) {
        return base::Status::Corruption(path + ": whole-file XXH3 differs from the FileEntry");
      }
      if (f.kind() == pb::KEYED_STATE || f.kind() == pb::OPERATOR_STATE) {
        CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fsys, path));
        CKPT_RETURN_IF_ERROR(reader->VerifyChecksums());
      }
    }
    ++checked;
  }
  return checked;
}

pid_t Spawn(const std::vector<std::string>& args, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "a", stdout);
    (void)f;
    dup2(fileno(stdout), fileno(stderr));
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string JobIdFor(const std::string& key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (const std::string& salt : {std::string(), std::string("#")}) {
    const size_t h = std::hash<std::string>()(key + salt);
    for (int i = 0; i < 16; ++i) id += kHex[(h >> (4 * i)) & 15];
  }
  return id;
}

KeyedSumJob PacedJob(const std::string& sink_dir, int64_t records, int64_t keys) {
  KeyedSumJob job;
  job.from = 1;
  job.to = records;
  job.splits = 8;
  job.keys = keys;
  job.rate_per_second = static_cast<double>(records);
  job.sink_dir = sink_dir;
  return job;
}

KeyedSumJob BackendITCaseJob(const std::string& sink_dir) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  KeyedSumJob job = PacedJob(sink_dir, 60000, 40);
  job.job_id = JobIdFor(std::string(test->test_suite_name()) + "." + test->name());
  return job;
}

void ExpectExact(const Verification& v, bool per_key_order) {
  EXPECT_GT(v.lines, 0) << v.Summary();
  EXPECT_EQ(v.lost, 0) << v.Summary();
  EXPECT_EQ(v.duplicates, 0) << v.Summary();
  if (per_key_order) {
    EXPECT_EQ(v.out_of_order, 0) << v.Summary();
  }
  EXPECT_EQ(v.bad_sums, 0) << v.Summary();
  EXPECT_EQ(v.final_sum_mismatch, 0) << v.Summary();
  EXPECT_EQ(v.malformed, 0) << v.Summary();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = haystack.find(needle, at)) != std::string::npos; at += needle.size()) {
    ++n;
  }
  return n;
}

}  // namespace ckpt::itcase

namespace ckpt::itcase {

std::string LatestCheckpoint(const std::string& job_dir, uint64_t* persisted) {
  std::string best;
  int64_t best_id = -1;
  uint64_t best_persisted = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(job_dir, ec)) {
    const std::string md = (e.path() / "_metadata").string();
    if (!std::filesystem::exists(md)) continue;
    base::Result<std::string> bytes = base::ReadFileToString(base::Fs::Default(), md);
    if (!bytes.ok()) continue;
    base::Result<pb::CheckpointMetadata> m = format::DecodeMetadata(*bytes, md);
    if (!m.ok() || m->kind() != pb::CHECKPOINT) continue;
    if (m->checkpoint_id() > best_id) {
      best_id = m->checkpoint_id();
      best = e.path().string();
      best_persisted = m->metrics().persisted_data();
    }
  }
  if (persisted != nullptr) *persisted = best_persisted;
  return best;
}

}  // namespace ckpt::itcase
