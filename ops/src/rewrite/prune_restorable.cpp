#include "rewrite/prune_restorable.h"

#include <set>

#include "ckpt/ops/validate.h"
#include "formats/snapshot_format.h"

namespace ckpt::ops::internal {
namespace {

std::string DeepReason(base::Fs& fs, const std::string& dir) {
  ValidateOptions options;
  options.deep = true;
  base::Result<ValidateReport> report = Validate(fs, dir, options);
  if (!report.ok()) return "validate --deep failed: " + report.status().ToString();
  for (const Capability& c : report->capabilities) {
    if (c.operation != "restore") continue;
    if (c.supported) return "";
    std::string why = c.undetermined ? "validate --deep cannot tell whether it restores"
                                     : "validate --deep says it does not restore";
    std::set<std::string> blocking(c.blocked_by.begin(), c.blocked_by.end());
    for (const Finding& f : report->findings) {
      if (blocking.count(f.rule_id)) return why + " (" + f.rule_id + ": " + f.message + ")";
    }
    return why + (c.note.empty() ? "" : " (" + c.note + ")");
  }
  return "validate --deep gives no restore verdict";
}

}  // namespace

base::Result<std::vector<format::ExpectedFile>> RestoreFiles(const Snapshot& snapshot,
                                                             const std::string& dir) {
  return FormatOf(snapshot).RestoreFiles(snapshot, dir);
}

std::string UnrestorableReason(base::Fs& fs, const std::string& dir,
                               const std::vector<format::ExpectedFile>& files, bool deep) {
  base::Status st = format::CheckExpectedFiles(fs, files);
  if (!st.ok()) return st.message();
  return deep ? DeepReason(fs, dir) : "";
}

}  // namespace ckpt::ops::internal
