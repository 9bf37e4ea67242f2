#include "damage_matrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::itcase {

namespace fs = std::filesystem;

std::vector<std::string> FilesEndingWith(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string FlipByteAt(const std::string& path, int64_t offset_from_start_or_end) {
  std::error_code ec;
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) return path + ": " + ec.message();
  const int64_t at = offset_from_start_or_end >= 0 ? offset_from_start_or_end
                                                   : size + offset_from_start_or_end;
  if (at < 0 || at >= size) return path + ": no byte at offset " + std::to_string(at);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x20);
  f.seekp(at);
  f.write(&c, 1);
  return f.good() ? "" : path + ": write failed";
}

std::string ResizeBy(const std::string& path, int64_t delta) {
  std::error_code ec;
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) return path + ": " + ec.message();
  if (delta < 0) {
    fs::resize_file(path, static_cast<uintmax_t>(std::max<int64_t>(0, size + delta)), ec);
    return ec ? path + ": " + ec.message() : "";
  }
  std::ofstream(path, std::ios::app | std::ios::binary)
      << std::string(static_cast<size_t>(delta), 'x');
  return "";
}

const pb::SinkCommittable* FirstCommittable(const pb::CheckpointMetadata& md) {
  for (const auto& op : md.operators()) {
    for (const auto& st : op.subtasks()) {
      if (st.committables_size() > 0) return &st.committables(0);
    }
  }
  return nullptr;
}

std::string PartFileOnDisk(const pb::SinkCommittable& c) {
  return fs::exists(c.pending_path()) ? c.pending_path() : c.final_path();
}

bool ReplaceFirst(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  if (at == std::string::npos) return false;
  s.replace(at, from.size(), to);
  return true;
}

void CopyTree(const std::string& from, const std::string& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
}

namespace {

using DamageFn = std::function<std::string(const std::string&, const pb::CheckpointMetadata&)>;
using EditFn = std::function<std::string(std::string&)>;

// Applies `f` to the `n`-th file in `dir` ending with `suffix`.
DamageFn OnStateFile(const std::string& suffix, size_t n,
                     std::function<std::string(const std::string&)> f) {
  return [suffix, n, f](const std::string& dir, const pb::CheckpointMetadata&) -> std::string {
    const std::vector<std::string> files = FilesEndingWith(dir, suffix);
    if (files.size() <= n) return "no " + std::to_string(n + 1) + ". *" + suffix + " file";
    return f(files[n]);
  };
}

DamageFn OnPartFile(std::function<std::string(const std::string&)> f) {
  return [f](const std::string&, const pb::CheckpointMetadata& md) -> std::string {
    const pb::SinkCommittable* c = FirstCommittable(md);
    if (c == nullptr) return "no sink committable";
    const std::string part = PartFileOnDisk(*c);
    if (!fs::exists(part)) return "part file " + part + " not on disk";
    return f(part);
  };
}

EditFn ReplaceEdit(const std::string& from, const std::string& to) {
  return [from, to](std::string& json) -> std::string {
    return ReplaceFirst(json, from, to) ? "" : "the job has no " + from;
  };
}

// The spec's leading `{"parallelism": N,` becomes N + 1.
std::string RescaleUpByOne(std::string& json) {
  const std::string head = "{\"parallelism\": ";
  if (json.rfind(head, 0) != 0) return "the job does not start with " + head;
  const size_t end = json.find(',', head.size());
  if (end == std::string::npos) return "no parallelism value";
  const int p = std::stoi(json.substr(head.size(), end - head.size()));
  json.replace(head.size(), end - head.size(), std::to_string(p + 1));
  return "";
}

std::string HalveKeyedMaxParallelism(const std::string& dir, const pb::CheckpointMetadata& md) {
  pb::CheckpointMetadata m = md;
  bool any = false;
  for (auto& op : *m.mutable_operators()) {
    if (op.states_size() > 0 && op.subtasks_size() > 0 && op.subtasks(0).keyed_state_size() > 0) {
      op.set_max_parallelism(op.max_parallelism() / 2);
      any = true;
    }
  }
  if (!any) return "no operator whose first subtask has keyed state";
  for (auto& op : *m.mutable_job_graph()->mutable_operators()) {
    if (op.uid() == "sum") op.set_max_parallelism(op.max_parallelism() / 2);
  }
  fs::remove(dir + "/_metadata");
  base::Status st = format::WriteMetadataFile(base::Fs::Default(), dir, m);
  return st.ok() ? "" : st.ToString();
}

}  // namespace

std::vector<SnapshotDamage> DamageMatrix() {
  const std::string keyed = "-keyed.state";
  const std::string opstate = "-operator.state";
  std::vector<SnapshotDamage> m;
  auto add = [&](std::string name, DamageFn d, EditFn e, bool allow, bool restores,
                 bool savepoint_only) {
    m.push_back({std::move(name), std::move(d), std::move(e), allow, restores, savepoint_only});
  };
  add("pristine", {}, {}, false, true, false);
  add("keyed state file truncated by one byte",
      OnStateFile(keyed, 0, [](const std::string& f) { return ResizeBy(f, -1); }), {}, false, false,
      false);
  add("keyed state file flipped in a block",
      OnStateFile(keyed, 0, [](const std::string& f) { return FlipByteAt(f, 40); }), {}, false,
      false, false);
  add("keyed state file removed", OnStateFile(keyed, 0, [](const std::string& f) {
        return fs::remove(f) ? std::string() : f + ": not removed";
      }),
      {}, false, false, false);
  add("operator state file flipped in its footer",
      OnStateFile(opstate, 0, [](const std::string& f) { return FlipByteAt(f, -3); }), {}, false,
      false, false);
  add("_metadata truncated",
      [](const std::string& d, const auto&) { return ResizeBy(d + "/_metadata", -7); }, {}, false,
      false, false);
  add("part file resized (appended)", OnPartFile([](const std::string& p) { return ResizeBy(p, 5); }),
      {}, false, false, false);
  add("part file resized (truncated)",
      OnPartFile([](const std::string& p) { return ResizeBy(p, -1); }), {}, false, false, false);
  add("part file missing, pending and committed", OnPartFile([](const std::string& p) {
        return fs::remove(p) ? std::string() : p + ": not removed";
      }),
      {}, false, false, false);
  add("sum uid changed in the job", {}, ReplaceEdit("\"uid\": \"sum\"", "\"uid\": \"sum-v2\""),
      false, false, false);
  add("sum max parallelism changed in the job", {},
      ReplaceEdit("\"uid\": \"sum\",", "\"uid\": \"sum\", \"max_parallelism\": 64,"), false, false,
      false);
  add("job rescaled to parallelism + 1", {}, RescaleUpByOne, false, true, false);
  // Savepoint only.
  add("keyed state file header flipped",
      OnStateFile(keyed, 1, [](const std::string& f) { return FlipByteAt(f, 0); }), {}, false,
      false, true);
  add("keyed state file appended to",
      OnStateFile(keyed, 1, [](const std::string& f) { return ResizeBy(f, 16); }), {}, false, false,
      true);
  add("operator state file removed", OnStateFile(opstate, 1, [](const std::string& f) {
        return fs::remove(f) ? std::string() : f + ": not removed";
      }),
      {}, false, false, true);
  add("_metadata removed",
      [](const std::string& d, const auto&) {
        return fs::remove(d + "/_metadata") ? std::string() : "no _metadata";
      },
      {}, false, false, true);
  add("_metadata payload byte flipped",
      [](const std::string& d, const auto&) { return FlipByteAt(d + "/_metadata", 40); }, {},
      false, false, true);
  add("_metadata appended to",
      [](const std::string& d, const auto&) { return ResizeBy(d + "/_metadata", 3); }, {}, false,
      false, true);
  add("committed part file back under its pending name",
      [](const std::string&, const pb::CheckpointMetadata& md) -> std::string {
        const pb::SinkCommittable* c = FirstCommittable(md);
        if (c == nullptr) return "no sink committable";
        if (fs::exists(c->final_path())) fs::rename(c->final_path(), c->pending_path());
        return "";
      },
      {}, false, true, true);
  add("sum uid changed, --allow-non-restored-state", {},
      ReplaceEdit("\"uid\": \"sum\"", "\"uid\": \"sum-v2\""), true, true, true);
  add("source uid changed", {}, ReplaceEdit("\"uid\": \"source\"", "\"uid\": \"source-v2\""),
      false, false, true);
  add("source max parallelism changed (no keyed state)", {},
      ReplaceEdit("\"uid\": \"source\",", "\"uid\": \"source\", \"max_parallelism\": 64,"), false,
      true, true);
  add("sum max parallelism changed in the snapshot", HalveKeyedMaxParallelism, {}, false, false,
      true);
  return m;
}

}  // namespace ckpt::itcase
