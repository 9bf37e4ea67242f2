// ResolveFs and the file: URI rule: see fs_resolver.h.
#include "ckpt/base/fs_resolver.h"

#include <cctype>

namespace ckpt::base {
namespace {

constexpr std::string_view kFileScheme = "file:";

}  // namespace

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

std::vector<std::string> BuiltInSchemes() { return {"file"}; }

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
