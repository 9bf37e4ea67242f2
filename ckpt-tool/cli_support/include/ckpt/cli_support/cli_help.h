// Help and manual pages for the CLI11 front-ends (ckpt-tool, ckpt-engine), from the one CLI
// definition so that --help, `help VERB` and the installed man pages cannot drift apart:
//   HelpFormatter  --help text wrapped at 80 columns; a verb's help can list the options of its
//                  parent that it accepts (e.g. ckpt-tool's --format, -o, -q).
//   WriteManPage   walks a CLI::App and prints a man(7) page: NAME, SYNOPSIS, DESCRIPTION,
//                  OPTIONS, GLOBAL OPTIONS, COMMANDS, EXIT STATUS, EXAMPLES, NOTES, SEE ALSO.
// Part of ckpt::cli_support (neither ckpt::ops nor ckpt::engine links CLI11). A formatter is
// used by the one thread that prints help; WriteManPage is reentrant.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ckpt::clihelp {

// An extra help section for a subcommand: a title and its option lines (name column, text).
struct ExtraOption {
  std::string name;         // "--format FORMAT"
  std::string description;  // "text or json. Default: text"
};
struct ExtraSection {
  std::string title;  // "Global options (before or after the verb)"
  std::vector<ExtraOption> options;
};
using ExtraSectionFn = std::function<ExtraSection(const CLI::App* app)>;

// CLI11's formatter with every text wrapped at 80 columns: descriptions and footers as
// paragraphs, example commands longer than 80 columns continued with " \" (still pastable), and
// an option whose name and choices would pass 80 columns with its choices under the description.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter();

  // For subcommands: a section listed after their own options (empty title: none).
  void set_extra_section(ExtraSectionFn fn) { extra_ = std::move(fn); }
  const ExtraSectionFn& extra_section() const { return extra_; }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;

 private:
  std::size_t DescWidth() const;

  ExtraSectionFn extra_;
};

struct ManInfo {
  std::string page;         // "ckpt-tool-validate"
  std::string command;      // "ckpt-tool validate"
  std::string version;      // "0.1.0"
  std::string exit_status;  // one paragraph per line
  std::vector<std::string> example_prefixes;  // footer lines starting with these are examples
  std::vector<std::string> see_also;          // "ckpt-tool(1)"
  std::string extra_description;              // appended to DESCRIPTION (one paragraph per line)
  std::vector<std::string> examples;          // before those of the footer
};

// Writes the man page of `app` (the root or one subcommand) to `out`. `globals` lists options
// accepted from the parent (for a subcommand's GLOBAL OPTIONS section); null or empty title:
// none. Never fails (stream errors are the stream's).
void WriteManPage(const CLI::App& app, const ManInfo& info, const ExtraSection* globals,
                  std::ostream& out);

}  // namespace ckpt::clihelp
