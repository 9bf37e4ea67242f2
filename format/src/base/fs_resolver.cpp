// ResolveFs and the file: URI rule: see fs_resolver.h.
#include "ckpt/base/fs_resolver.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

namespace ckpt::base {
namespace {

constexpr std::string_view kFileScheme = "file:";

// Schemes registered by libraries beside base (RegisterFsScheme).
struct FsSchemeRegistry {
  std::mutex mu;
  std::map<std::string, FsSchemeResolver> resolvers;
};

FsSchemeRegistry& SchemeRegistry() {
  static FsSchemeRegistry* registry = new FsSchemeRegistry();  // never destroyed: used at exit
  return *registry;
}

}  // namespace

void RegisterFsScheme(const std::string& scheme, FsSchemeResolver resolver) {
  FsSchemeRegistry& r = SchemeRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.resolvers[scheme] = std::move(resolver);
}

std::string SchemeOf(std::string_view location) {
  const size_t colon = location.find(':');
  if (colon == std::string_view::npos || colon < 2) return "";
  if (!std::isalpha(static_cast<unsigned char>(location[0]))) return "";
  std::string scheme;
  for (size_t i = 0; i < colon; ++i) {
    const char c = location[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return "";
    scheme.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return scheme;
}

std::vector<std::string> BuiltInSchemes() {
  std::vector<std::string> schemes = {"file"};
  FsSchemeRegistry& r = SchemeRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& entry : r.resolvers) schemes.push_back(entry.first);
  std::sort(schemes.begin(), schemes.end());
  return schemes;
}

Result<std::string> LocalPathOf(std::string_view location) {
  if (location.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("location contains a NUL byte");
  }
  const std::string scheme = SchemeOf(location);
  if (scheme.empty()) return std::string(location);
  if (scheme != "file") {
    return Status::InvalidArgument("'" + std::string(location) + "' is on a " + scheme +
                                   ": filesystem, not a local path");
  }
  std::string_view rest = location.substr(kFileScheme.size());
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost") {
      return Status::InvalidArgument("'" + std::string(location) + "' names host '" +
                                     std::string(host) + "', not this machine");
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  if (rest.empty() || rest.front() != '/') {
    return Status::InvalidArgument("'" + std::string(location) + "' is not an absolute file: URI");
  }
  return std::string(rest);
}

Result<ResolvedLocation> ResolveFs(std::string_view location) {
  const std::string scheme = SchemeOf(location);
  if (!scheme.empty() && scheme != "file") {
    FsSchemeResolver resolver;
    {
      FsSchemeRegistry& r = SchemeRegistry();
      std::lock_guard<std::mutex> lock(r.mu);
      auto it = r.resolvers.find(scheme);
      if (it != r.resolvers.end()) resolver = it->second;
    }
    if (resolver) return resolver(location);
    std::string known;
    for (const std::string& s : BuiltInSchemes()) known += (known.empty() ? "" : ", ") + s + ":";
    return Status::InvalidArgument("'" + std::string(location) + "': no filesystem for scheme '" +
                                   scheme + ":' (built in: bare paths, " + known + ")");
  }
  CKPT_ASSIGN_OR_RETURN(std::string path, LocalPathOf(location));
  if (path.empty()) return Status::InvalidArgument("empty location");
  return ResolvedLocation{&Fs::Default(), std::move(path)};
}

}  // namespace ckpt::base
