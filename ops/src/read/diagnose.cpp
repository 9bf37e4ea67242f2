#include "ckpt/ops/diagnose.h"

#include <algorithm>

#include "ckpt/format/layout.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops {

base::Result<SnapshotDiagnosis> DiagnoseSnapshot(base::Fs& fs, const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(path));
  SnapshotDiagnosis out;
  out.path = path;
  out.dir = path;
  if (!info.is_dir) {
    const size_t slash = path.find_last_of('/');
    out.dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  }
  base::Result<Snapshot> loaded = LoadSnapshot(fs, path);
  if (!loaded.ok()) out.load_error = loaded.status().ToString();

  // Metadata and file presence only: a damaged snapshot may be large, and checksums say
  // nothing about what is missing.
  ValidateOptions options;
  options.verify_checksums = false;
  CKPT_ASSIGN_OR_RETURN(ValidateReport report, Validate(fs, path, options));
  out.findings = std::move(report.findings);

  CKPT_ASSIGN_OR_RETURN(std::vector<base::DirEntry> entries, fs.ListDir(out.dir));
  for (const base::DirEntry& e : entries) {
    DiagnosedEntry d;
    d.name = e.name;
    d.is_dir = e.is_dir;
    d.type = base::FileTypeName(e.type);
    if (e.name == format::kMetadataFileName) out.has_metadata = true;
    if (e.type == base::FileType::kRegular) {
      base::Result<base::FileInfo> st = fs.LinkStat(base::JoinPath(out.dir, e.name));
      if (st.ok()) d.size_bytes = st->size_bytes;
    }
    out.present.push_back(std::move(d));
  }
  std::sort(out.present.begin(), out.present.end(),
            [](const DiagnosedEntry& a, const DiagnosedEntry& b) { return a.name < b.name; });
  if (!out.has_metadata) out.missing.emplace_back(format::kMetadataFileName);
  for (const Finding& f : out.findings) {
    if (f.rule_id != "CKPT-F001" || f.location.file.empty()) continue;
    if (std::find(out.missing.begin(), out.missing.end(), f.location.file) == out.missing.end()) {
      out.missing.push_back(f.location.file);
    }
  }
  return out;
}

}  // namespace ckpt::ops
