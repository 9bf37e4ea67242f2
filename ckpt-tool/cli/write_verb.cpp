// The shared flags and report parts of relocate, remap and rescale-max-parallelism: see
// write_verb.h.
#include "write_verb.h"

#include <CLI/CLI.hpp>

namespace ckpt::cli {

void AddOutputDirOption(CLI::App* sub, std::string* to) {
  sub->add_option("--to", *to,
                  "Output directory: must not exist, nor lie inside the input or a checkpoint "
                  "directory (chk-N/, shared/, taskowned/)")->required();
}

void AddVerifyFlag(CLI::App* sub, bool* verify) {
  sub->add_flag("--verify", *verify,
                "Print the output's validation report (every output is validated before it is "
                "published; with an error nothing is written and the exit is 1)");
}

JsonLine& AddDirsJson(const WriteOutcome& o, JsonLine& line) {
  return line.Str("source_dir", o.source_dir).Str("output_dir", o.output_dir);
}

JsonLine& AddWrittenJson(const WriteOutcome& o, JsonLine& line) {
  return line.Bool("dry_run", o.dry_run).Bool("written", o.written).Str("refused", o.refused);
}

void PrintWarningsJson(const std::vector<std::string>& warnings, std::ostream& out) {
  for (const std::string& w : warnings) out << JsonLine().Str("warning", w).Build() << "\n";
}

void PrintWriteHeadline(const WriteOutcome& o, std::string_view would, std::string_view done,
                        std::string_view not_done, std::ostream& out) {
  out << (o.dry_run ? would : o.written ? done : not_done) << o.source_dir << " -> "
      << o.output_dir;
}

void PrintWarningsAndRefusal(const std::vector<std::string>& warnings, const WriteOutcome& o,
                             std::ostream& out) {
  for (const std::string& w : warnings) out << "warning: " << w << "\n";
  if (!o.refused.empty()) out << o.refused << "\n";
}

}  // namespace ckpt::cli
