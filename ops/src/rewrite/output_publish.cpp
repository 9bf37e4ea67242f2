#include "rewrite/output_publish.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/format/layout.h"
#include "rewrite/relocate_copy.h"

namespace ckpt::ops::internal {
namespace {

namespace stdfs = std::filesystem;

// `path` absolute, without `.` and `..`, the symbolic links of its existing part resolved: two
// spellings of one directory compare equal. For local paths only (OutputPlaceOf).
stdfs::path Resolved(const std::string& path) {
  std::error_code ec;
  stdfs::path p = stdfs::absolute(path, ec);
  if (ec) p = stdfs::path(path);
  stdfs::path c = stdfs::weakly_canonical(p, ec);
  if (ec) c = p;
  c = c.lexically_normal();
  if (c.filename().empty() && c != c.root_path()) c = c.parent_path();
  return c;
}

// A location as CheckOutputPlace compares it: a root and the components below it. A local path
// is resolved (Resolved), its root "/"; a location with a scheme (s3://bucket/key) is taken
// lexically, its root "scheme://authority": no local directory stands for it.
struct OutputPlace {
  std::string root;
  std::vector<std::string> parts;
  bool uri = false;
};

OutputPlace OutputPlaceOf(const std::string& location) {
  OutputPlace place;
  const std::string scheme = base::SchemeOf(location);
  if (scheme.empty() || scheme == "file") {
    auto local = base::LocalPathOf(location);
    const stdfs::path c = Resolved(local.ok() ? *local : location);
    place.root = c.root_path().string();
    for (const auto& part : c.relative_path()) {
      if (!part.empty()) place.parts.push_back(part.string());
    }
    return place;
  }
  place.uri = true;
  std::string_view rest = std::string_view(location).substr(scheme.size() + 1);
  place.root = scheme + ":";
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    place.root += "//" + std::string(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!place.parts.empty()) place.parts.pop_back();
      continue;
    }
    place.parts.emplace_back(part);
  }
  return place;
}

// The location of `place`'s first `n` components, as the Fs names it.
std::string OutputPlacePrefix(const OutputPlace& place, size_t n) {
  if (place.uri) {
    std::string s = place.root;
    for (size_t i = 0; i < n; ++i) s += "/" + place.parts[i];
    return s;
  }
  stdfs::path p(place.root);
  for (size_t i = 0; i < n; ++i) p /= place.parts[i];
  return p.string();
}

// True if `inner` is `outer` or lies below it.
bool IsWithin(const OutputPlace& inner, const OutputPlace& outer) {
  if (inner.root != outer.root || inner.parts.size() < outer.parts.size()) return false;
  return std::equal(outer.parts.begin(), outer.parts.end(), inner.parts.begin());
}

bool IsFile(base::Fs& fs, const std::string& path) {
  auto info = fs.Stat(path);
  return info.ok() && !info->is_dir;
}

// A job directory of checkpoint storage: it holds chk-<n>/ directories, shared/, taskowned/ or
// the job's lock file (`except` is the entry the caller came from, which proves nothing).
bool IsJobDir(base::Fs& fs, const std::string& dir, std::string_view except) {
  auto entries = fs.ListDir(dir);
  if (!entries.ok()) return false;
  for (const auto& e : *entries) {
    if (e.name == except) continue;
    if (e.name == format::kJobLockFileName) return true;
    if (!e.is_dir) continue;
    if (e.name == format::kSharedDirName || e.name == format::kTaskOwnedDirName ||
        format::ParseCheckpointDirName(e.name)) {
      return true;
    }
  }
  return false;
}

// Why the directory of `place`'s first `n` components (an ancestor of the output) must not
// receive it, or "".
std::string Forbidden(base::Fs& fs, const OutputPlace& place, size_t n) {
  const std::string path = OutputPlacePrefix(place, n);
  const std::string name = n == 0 ? "" : place.parts[n - 1];
  const std::string parent = OutputPlacePrefix(place, n == 0 ? 0 : n - 1);
  if (format::ParseCheckpointDirName(name)) {
    return "inside the checkpoint directory " + path +
           " (checkpoint storage: the engine and prune delete what no retained _metadata "
           "references)";
  }
  if ((name == format::kSharedDirName || name == format::kTaskOwnedDirName) &&
      IsJobDir(fs, parent, name)) {
    return "inside " + path + " of the job directory " + parent +
           " (checkpoint storage: the engine and prune delete what no retained _metadata "
           "references)";
  }
  if (IsFile(fs, base::JoinPath(path, format::kMetadataFileName))) {
    return "inside the snapshot " + path + " (it holds a _metadata)";
  }
  return "";
}

std::string FindingText(const Finding& f) {
  std::string where;
  if (!f.location.operator_name.empty()) {
    where = "operator " + f.location.operator_name;
  } else if (!f.location.operator_id.empty()) {
    where = "operator " + f.location.operator_id;
  }
  if (!f.location.file.empty()) where += (where.empty() ? "" : ", ") + f.location.file;
  return f.rule_id + (where.empty() ? "" : " (" + where + ")") + ": " + f.message;
}

void Replace(std::string* s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

// The report speaks of where the output is (or would have been), not of the build directory.
void Retarget(ValidateReport* report, const std::string& tmp_dir, const std::string& output_dir) {
  report->snapshot = output_dir;
  for (auto& f : report->findings) {
    Replace(&f.location.file, tmp_dir, output_dir);
    Replace(&f.message, tmp_dir, output_dir);
  }
  for (auto& u : report->not_checked) {
    Replace(&u.location.file, tmp_dir, output_dir);
    Replace(&u.reason, tmp_dir, output_dir);
  }
}

}  // namespace

base::Status CheckOutputPlace(base::Fs& fs, const std::string& input_dir,
                              const std::string& output_dir) {
  const OutputPlace in = OutputPlaceOf(input_dir);
  const OutputPlace out = OutputPlaceOf(output_dir);
  const std::string refuse = "refusing to write the output " + output_dir + ": ";
  if (IsWithin(out, in) && IsWithin(in, out)) {
    return base::Status::InvalidArgument(refuse + "it is the input " + input_dir);
  }
  if (IsWithin(out, in)) {
    return base::Status::InvalidArgument(refuse + "it is inside the input " + input_dir +
                                         ", which is never modified");
  }
  if (IsWithin(in, out)) {
    return base::Status::InvalidArgument(refuse + "it contains the input " + input_dir);
  }
  // The build directory OUT.tmp is a sibling of OUT: it has the same ancestors.
  for (size_t n = out.parts.empty() ? 0 : out.parts.size() - 1;; --n) {
    if (std::string why = Forbidden(fs, out, n); !why.empty()) {
      return base::Status::InvalidArgument(refuse + "it is " + why);
    }
    if (n == 0) break;
  }
  return CheckOutputAbsent(fs, output_dir);
}

base::Result<Publication> PublishIfValid(base::Fs& fs, const std::string& tmp_dir,
                                         const std::string& output_dir,
                                         const base::Progress& progress) {
  Publication p;
  CKPT_ASSIGN_OR_RETURN(p.verification, Validate(fs, tmp_dir, ValidateOptions{}, progress));
  Retarget(&p.verification, tmp_dir, output_dir);
  std::vector<const Finding*> errors;
  for (const auto& f : p.verification.findings) {
    if (f.severity == Severity::kError) errors.push_back(&f);
  }
  if (!errors.empty()) {
    CKPT_RETURN_IF_ERROR(base::RemoveAll(fs, tmp_dir));
    constexpr size_t kNamed = 3;
    p.refused = "nothing written: the output would not pass `ckpt-tool validate` (" +
                std::to_string(errors.size()) + " error(s): ";
    for (size_t i = 0; i < errors.size() && i < kNamed; ++i) {
      p.refused += (i == 0 ? "" : "; ") + FindingText(*errors[i]);
    }
    if (errors.size() > kNamed) {
      p.refused += "; and " + std::to_string(errors.size() - kNamed) + " more";
    }
    p.refused += ")";
    return p;
  }
  CKPT_RETURN_IF_ERROR(CheckOutputAbsent(fs, output_dir));
  CKPT_RETURN_IF_ERROR(fs.PublishDir(tmp_dir, output_dir));
  p.published = true;
  return p;
}

}  // namespace ckpt::ops::internal
