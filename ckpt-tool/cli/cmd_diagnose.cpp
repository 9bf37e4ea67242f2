// ckpt-tool diagnose PATH: why a snapshot does not open, as the inspector's "cannot open" page
// says it: the load error, validate's findings that need no content reads (rule IDs and hints),
// what the directory holds (type and size of each entry) and what the snapshot lacks. Exit 0
// when it opens and nothing is wrong, 1 when it cannot be opened or misses a file (or another
// error finding), 2 usage or I/O error (a path that does not exist).
#include <CLI/CLI.hpp>
#include <cctype>
#include <memory>

#include "ckpt/base/text_escape.h"
#include "ckpt/ops/diagnose.h"
#include "cli_common.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct DiagnoseArgs {
  std::string path;
};

// The snapshot opens and nothing that makes it unusable was found.
bool DiagnosisIsClean(const ops::SnapshotDiagnosis& d) {
  return d.load_error.empty() && d.missing.empty() && !ops::HasErrors(d.findings);
}

// An entry type as a JSON enumeration: base::FileTypeName lowercased, each run of other
// characters one '-' ("regular file" -> "regular-file", "FIFO, socket or device" ->
// "fifo-socket-or-device").
std::string DiagnoseEntryTypeEnum(const std::string& type_name) {
  std::string out;
  bool dash = false;
  for (char c : type_name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      if (dash && !out.empty()) out += '-';
      out += static_cast<char>(std::tolower(u));
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

std::string DiagnoseStringsJson(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ",") + JsonQuoted(v[i]);
  return out + "]";
}

// One object: path, dir, opens, load_error (null when it opens), has_metadata, findings (as
// validate's finding lines), present entries, missing names, and the error/warning counts.
void PrintDiagnosisJson(const ops::SnapshotDiagnosis& d, std::ostream& out) {
  std::string findings = "[";
  size_t errors = 0, warnings = 0;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const ops::Finding& f = d.findings[i];
    findings += (i == 0 ? "" : ",") + FindingJson(f);
    errors += f.severity == ops::Severity::kError;
    warnings += f.severity == ops::Severity::kWarning;
  }
  findings += "]";
  std::string present = "[";
  for (size_t i = 0; i < d.present.size(); ++i) {
    const ops::DiagnosedEntry& e = d.present[i];
    JsonLine entry;
    entry.Str("name", e.name).Str("type", DiagnoseEntryTypeEnum(e.type));
    if (e.type == base::FileTypeName(base::FileType::kRegular)) {
      entry.Uint("size_bytes", e.size_bytes);
    } else {
      entry.Null("size_bytes");
    }
    present += (i == 0 ? "" : ",") + entry.Build();
  }
  present += "]";
  JsonLine line;
  line.Str("path", d.path).Str("dir", d.dir).Bool("opens", d.load_error.empty());
  if (d.load_error.empty()) {
    line.Null("load_error");
  } else {
    line.Str("load_error", d.load_error);
  }
  line.Bool("has_metadata", d.has_metadata)
      .Raw("findings", findings)
      .Raw("present", present)
      .Raw("missing", DiagnoseStringsJson(d.missing))
      .Uint("errors", errors)
      .Uint("warnings", warnings);
  out << line.Build() << "\n";
}

void PrintDiagnosisText(const ops::SnapshotDiagnosis& d, std::ostream& out) {
  out << "diagnose " << base::EscapeForText(d.path) << ": "
      << (!d.load_error.empty()     ? "cannot be opened"
          : DiagnosisIsClean(d)     ? "opens"
                                    : "opens, but is damaged")
      << "\n";
  if (!d.load_error.empty()) out << "load error: " << base::EscapeForText(d.load_error) << "\n";
  out << "missing: ";
  if (d.missing.empty()) out << "nothing";
  for (size_t i = 0; i < d.missing.size(); ++i) {
    out << (i == 0 ? "" : ", ") << base::EscapeForText(d.missing[i]);
  }
  out << "\n";
  RenderFindingsText(d.findings, out);
  out << "\n";
  if (d.present.empty()) {
    out << base::EscapeForText(d.dir) << " is empty\n";
    return;
  }
  uint64_t bytes = 0;
  for (const ops::DiagnosedEntry& e : d.present) bytes += e.size_bytes;
  out << d.present.size() << " entr" << (d.present.size() == 1 ? "y" : "ies") << " in "
      << base::EscapeForText(d.dir) << " (" << SizeText(bytes) << " in files):\n";
  TextTable t({"NAME", "TYPE", "SIZE"}, {false, false, true});
  for (const ops::DiagnosedEntry& e : d.present) {
    const bool regular = e.type == base::FileTypeName(base::FileType::kRegular);
    t.AddRow({e.is_dir ? e.name + "/" : e.name, e.type,
              regular ? SizeText(e.size_bytes) : "-"});
  }
  t.Print(out);
}

CommandResult RunDiagnose(const DiagnoseArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "diagnose");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  auto where = ctx.Locate(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto diagnosis = ops::DiagnoseSnapshot(*where->fs, where->path);
  if (!diagnosis.ok()) return CommandResult::Error(diagnosis.status());
  if (*format == OutputFormat::kJson) {
    PrintDiagnosisJson(*diagnosis, ctx.out());
  } else {
    PrintDiagnosisText(*diagnosis, ctx.out());
  }
  return DiagnosisIsClean(*diagnosis) ? CommandResult::Clean() : CommandResult::Findings();
}

}  // namespace

void AddDiagnoseCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<DiagnoseArgs>();
  CLI::App* sub = app.add_subcommand(
      "diagnose",
      "Why a snapshot does not open: the load error, findings with rule IDs and hints, what its "
      "directory holds (type and size of each entry) and what is missing from it");
  sub->add_option("path", args->path, "Snapshot directory or its _metadata file")->required();
  SetExamples(sub, {"ckpt-tool diagnose /var/checkpoints/<job-id>/chk-42",
                    "ckpt-tool diagnose chk-42/_metadata --format json",
                    "Exit status: 0 the snapshot opens and nothing is missing, 1 it cannot be "
                    "opened or lacks a file it references (or another error finding), 2 usage "
                    "or I/O error (e.g. PATH does not exist). No checksums are read."});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunDiagnose(*args, ctx); }; });
}

}  // namespace ckpt::cli
