// Error reports for machine-readable formats (a usage or I/O error still yields a well-formed
// document) and working-directory-relative paths for annotations.
#include <filesystem>
#include <system_error>

#include "render.h"

namespace ckpt::cli {

std::string CwdRelativePath(std::string_view base_dir, std::string_view file) {
  namespace fs = std::filesystem;
  fs::path p(file);
  if (p.is_relative() && !base_dir.empty()) p = fs::path(base_dir) / p;
  p = p.lexically_normal();
  if (p.is_relative()) return p.generic_string();
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return p.generic_string();
  const fs::path rel = p.lexically_relative(cwd);
  // Only inside the working directory: "../../x" would name the right file but GitHub ignores
  // annotations outside the repository.
  if (rel.empty() || *rel.begin() == "..") return p.generic_string();
  return rel.generic_string();
}

void RenderErrorReport(std::string_view format, std::string_view verb, std::string_view error,
                       std::ostream& out) {
  const std::string suite = "ckpt-tool " + std::string(verb);
  if (format == "json") {
    out << JsonLine().Str("type", "error").Str("verb", verb).Str("message", error).Build() << "\n";
  } else if (format == "junit") {
    RenderJunitError(suite, error, out);
  } else if (format == "github-actions") {
    RenderGithubError(suite, error, out);
  } else if (format == "sarif") {
    RenderSarifError(suite, error, out);
  }
}

}  // namespace ckpt::cli
