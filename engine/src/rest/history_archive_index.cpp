// ArchiveIndex: loads, checks and merges the job archives of a directory.
#include "rest/history_archive_index.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"
#include "rest/rest_requests.h"

namespace ckpt::engine::history {

using nlohmann::json;

namespace {

// Far deeper than any REST answer (a few levels).
constexpr size_t kMaxNestingDepth = 256;

bool IsSegmentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == ':' || c == '-';
}

// Whether `path` is "/" followed by non-empty segments of safe characters, none "." or "..".
bool IsCleanPath(const std::string& path) {
  if (path.size() < 2 || path[0] != '/' || path.back() == '/') return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view seg(path.data() + start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    for (char c : seg) {
      if (!IsSegmentChar(c)) return false;
    }
    start = end + 1;
  }
  return true;
}

// How deeply arrays and objects nest in the JSON `text` (brackets inside strings do not
// count). Serializing a value walks it recursively: an archive nested deeper than any REST
// answer is refused before it could exhaust the stack.
size_t NestingDepth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

base::Status CheckArchiveEntries(const std::vector<ArchivedJson>& entries, const std::string& jid,
                                 const std::string& file) {
  const std::string prefix = "/jobs/" + jid;
  bool overview = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ArchivedJson& e = entries[i];
    const std::string where = "job archive " + file + ": entry " + std::to_string(i);
    if (!IsCleanPath(e.path)) {
      return base::Status::Corruption(where + ": path " + json(e.path).dump(
                                          -1, ' ', true, json::error_handler_t::replace) +
                                      " is not a clean URL path (segments of A-Z a-z 0-9 . _ : "
                                      "-, no '.' or '..')");
    }
    const bool under_job = e.path == prefix || e.path.rfind(prefix + "/", 0) == 0;
    if (e.path != "/jobs/overview" && !under_job) {
      return base::Status::Corruption(where + ": path " + e.path + " is not under " + prefix +
                                      " (an archive answers for its own job only)");
    }
    if (NestingDepth(e.json) > kMaxNestingDepth) {
      return base::Status::Corruption(where + " (" + e.path + "): its \"json\" nests deeper " +
                                      "than " + std::to_string(kMaxNestingDepth) + " levels");
    }
    const json body = json::parse(e.json, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) {
      return base::Status::Corruption(where + " (" + e.path + "): its \"json\" is not JSON");
    }
    if (e.path == "/jobs/overview") {
      if (!body.is_object() || !body.contains("jobs") || !body["jobs"].is_array()) {
        return base::Status::Corruption(where + " (/jobs/overview): no \"jobs\" array");
      }
      overview = true;
    }
  }
  if (!overview) {
    return base::Status::Corruption("job archive " + file + ": no /jobs/overview entry");
  }
  return base::Status::OK();
}

ArchiveIndex::ArchiveIndex(std::string dir, uint64_t max_archive_bytes)
    : dir_(std::move(dir)), max_archive_bytes_(max_archive_bytes),
      current_(std::make_shared<Snapshot>()) {}

std::shared_ptr<const ArchiveIndex::Snapshot> ArchiveIndex::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

base::Result<std::vector<ArchivedJson>> ArchiveIndex::Load(const std::string& jid,
                                                          const std::string& file,
                                                          const Version& v) {
  if (v.size > max_archive_bytes_) {
    return base::Status::Corruption("job archive " + file + ": " + std::to_string(v.size) +
                                    " bytes, more than the limit of " +
                                    std::to_string(max_archive_bytes_));
  }
  CKPT_ASSIGN_OR_RETURN(std::string text,
                        base::ReadFileToString(base::Fs::Default(), file, max_archive_bytes_));
  if (NestingDepth(text) > kMaxNestingDepth) {
    return base::Status::Corruption("job archive " + file + ": nests deeper than " +
                                    std::to_string(kMaxNestingDepth) + " levels");
  }
  CKPT_ASSIGN_OR_RETURN(std::vector<ArchivedJson> entries, DecodeJobArchive(text, file));
  CKPT_RETURN_IF_ERROR(CheckArchiveEntries(entries, jid, file));
  return entries;
}

size_t ArchiveIndex::Refresh(std::vector<std::string>* messages) {
  base::Result<std::vector<base::DirEntry>> listed = base::Fs::Default().ListDir(dir_);
  if (!listed.ok()) {
    messages->push_back("history server: cannot list " + dir_ + ": " +
                        listed.status().ToString());
    return jobs_.size();
  }
  bool changed = false;
  std::map<std::string, Job> seen;
  for (const base::DirEntry& entry : *listed) {
    const std::string& name = entry.name;
    // Temporary files of an archive being written (base::WriteFileAtomic) and hidden files.
    if (name.empty() || name[0] == '.' || name.find(".tmp-") != std::string::npos) continue;
    const std::string file = base::JoinPath(dir_, name);
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) continue;  // removed since the listing
    const Version v{static_cast<uint64_t>(st.st_ino),
                    static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    static_cast<uint64_t>(st.st_size)};
    auto skipped = skipped_.find(name);
    if (skipped != skipped_.end() && skipped->second == v) continue;
    auto known = jobs_.find(name);
    if (known != jobs_.end() && known->second.version == v) {
      seen.emplace(name, std::move(known->second));
      continue;
    }
    base::Result<std::vector<ArchivedJson>> entries =
        !S_ISREG(st.st_mode)
            ? base::Status::Corruption("job archive " + file + ": not a regular file")
        : !rest::IsJobIdHex(name)
            ? base::Status::Corruption("job archive " + file +
                                       ": the file name is not a job id (32 hexadecimal digits)")
            : Load(name, file, v);
    if (!entries.ok()) {
      skipped_[name] = v;
      messages->push_back("history server: skipping " + file + ": " +
                          entries.status().ToString());
      continue;  // a job loaded from an earlier version of the file is dropped with it
    }
    skipped_.erase(name);
    messages->push_back(std::string("history server: ") +
                        (known != jobs_.end() ? "reloaded" : "loaded") + " job " + name +
                        " from " + file + " (" + std::to_string(entries->size()) + " answers)");
    seen[name] = Job{v, std::move(*entries)};
    changed = true;
  }
  for (const auto& loaded : jobs_) {
    const std::string& name = loaded.first;
    if (seen.count(name) == 0) {
      if (skipped_.count(name) == 0) {
        messages->push_back("history server: job " + name + " dropped (its archive is gone)");
      }
      changed = true;
    }
  }
  std::set<std::string> names;
  for (const base::DirEntry& entry : *listed) names.insert(entry.name);
  std::erase_if(skipped_, [&names](const auto& s) { return names.count(s.first) == 0; });
  jobs_ = std::move(seen);
  if (changed) Publish();
  return jobs_.size();
}

void ArchiveIndex::Publish() {
  auto next = std::make_shared<Snapshot>();
  json overview_jobs = json::array();
  for (const auto& [jid, job] : jobs_) {
    for (const ArchivedJson& e : job.entries) {
      if (e.path == "/jobs/overview") {
        json overview = json::parse(e.json);
        for (json& j : overview["jobs"]) overview_jobs.push_back(std::move(j));
      } else {
        next->answers[e.path] = e.json;
      }
    }
  }
  next->overview =
      json{{"jobs", overview_jobs}}.dump(-1, ' ', false, json::error_handler_t::replace);
  next->jobs = jobs_.size();
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(next);
}

}  // namespace ckpt::engine::history
