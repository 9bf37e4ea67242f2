// ckpt-tool help [VERB]: like `git help`, the full help of one verb (or the overview), from the
// same CLI11 definition as --help. Hidden for the build: `help --man [VERB]` prints the man page
// and `help --man-dir DIR` writes ckpt-tool.1 and ckpt-tool-<verb>.1 for every verb (through Fs).
#include <CLI/CLI.hpp>
#include <memory>
#include <sstream>

#include "ckpt/cli_support/cli_help.h"
#include "ckpt/cli_support/style.h"
#include "ckpt/version.h"
#include "cli_common.h"

namespace ckpt::cli {
namespace {

struct HelpArgs {
  std::string verb;
  bool man = false;
  std::string man_dir;
};

constexpr const char* kExitStatus =
    "0 clean: no findings, no differences, the operation succeeded.\n"
    "1 findings or differences (validate found errors, or warnings with --strict; diff found "
    "differences).\n"
    "2 usage error (bad flags or arguments) or an I/O error (a file could not be read or "
    "written); the message on stderr names what and where.";

clihelp::ManInfo ManInfoFor(const CLI::App& root, const CLI::App* verb) {
  clihelp::ManInfo info;
  info.version = kVersion;
  info.exit_status = kExitStatus;
  info.example_prefixes = {"ckpt-tool", "source ", "ckpt-engine"};
  if (verb == nullptr) {
    info.page = "ckpt-tool";
    info.command = "ckpt-tool";
    info.extra_description =
        "Every verb reads snapshots (a checkpoint or savepoint directory, or its _metadata file) "
        "offline: no JVM, no cluster. Verbs that change a snapshot always write a new one and "
        "never modify their input.\n"
        "Run 'ckpt-tool help VERB' or 'man ckpt-tool-VERB' for one verb.";
    info.examples = {"ckpt-tool ls /var/checkpoints",
                     "ckpt-tool validate /var/savepoints/savepoint-3f2a1b-0c9d8e7f6a5b --against "
                     "new-job.json",
                     "ckpt-tool --format json stats chk-42", "ckpt-tool help validate"};
    for (const CLI::App* sub : root.get_subcommands({})) {
      info.see_also.push_back("ckpt-tool-" + sub->get_name() + "(1)");
    }
    info.see_also.push_back("ckpt-engine(1)");
    info.see_also.push_back("ckpt-inspector(1)");
  } else {
    info.page = "ckpt-tool-" + verb->get_name();
    info.command = "ckpt-tool " + verb->get_name();
    info.see_also = {"ckpt-tool(1)"};
  }
  return info;
}

std::string ManPage(const CLI::App& root, const CLI::App* verb) {
  std::ostringstream out;
  const clihelp::ManInfo info = ManInfoFor(root, verb);
  if (verb == nullptr) {
    const clihelp::ExtraSection none;
    clihelp::WriteManPage(root, info, &none, out);
  } else {
    const clihelp::ExtraSection globals = GlobalOptionsSection(verb);
    clihelp::WriteManPage(*verb, info, &globals, out);
  }
  return out.str();
}

base::Status WriteFile(base::Fs& fs, const std::string& path, const std::string& text) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<base::WritableFile> f, fs.OpenWrite(path));
  CKPT_RETURN_IF_ERROR(f->Append(text));
  return f->Close();
}

CommandResult RunHelp(const HelpArgs& args, CliContext& ctx) {
  const CLI::App& root = *ctx.root;
  if (!args.man_dir.empty()) {
    base::Status st = ctx.fs->CreateDirs(args.man_dir);
    if (!st.ok()) return CommandResult::Error(st);
    st = WriteFile(*ctx.fs, args.man_dir + "/ckpt-tool.1", ManPage(root, nullptr));
    for (const CLI::App* sub : root.get_subcommands({})) {
      if (!st.ok()) break;
      st = WriteFile(*ctx.fs, args.man_dir + "/ckpt-tool-" + sub->get_name() + ".1",
                     ManPage(root, sub));
    }
    return st.ok() ? CommandResult::Clean() : CommandResult::Error(st);
  }
  const CLI::App* verb = nullptr;
  if (!args.verb.empty()) {
    for (const CLI::App* sub : root.get_subcommands({})) {
      if (sub->get_name() == args.verb) verb = sub;
    }
    if (verb == nullptr) {
      return CommandResult::Usage("help: no verb '" + args.verb +
                                  "' (run 'ckpt-tool help' for the list)");
    }
  }
  if (args.man) {
    ctx.out() << ManPage(root, verb);
  } else if (verb == nullptr) {
    // Not root.help(): it would delegate to the selected subcommand, this one.
    ctx.out() << root.get_formatter()->make_help(&root, root.get_name(), CLI::AppFormatMode::Normal);
  } else {
    // The text `ckpt-tool VERB --help` prints.
    ctx.out() << verb->get_formatter()->make_help(verb, root.get_name() + " " + verb->get_name(),
                                                  CLI::AppFormatMode::Normal);
  }
  return CommandResult::Clean();
}

}  // namespace

clihelp::ExtraSection GlobalOptionsSection(const CLI::App* verb) {
  clihelp::ExtraSection s;
  if (verb->get_parent() == nullptr) return s;
  s.title = "Global options (before or after the verb)";
  std::string names;
  for (const std::string& f : VerbFormats(verb->get_name())) {
    names += (names.empty() ? "" : ", ") + f;
  }
  if (!names.empty()) {
    s.options.push_back({"--format FORMAT", "Output format: " + names + ". Default: text"});
  }
  s.options.push_back({"-o, --output FILE", "Write the report to FILE instead of stdout"});
  s.options.push_back({"-q, --quiet", "No progress bar or logs on stderr"});
  s.options.push_back(
      {"--color WHEN", std::string(ckpt::clistyle::kColorOptionHelp) + ". Default: auto"});
  s.options.push_back(
      {"--bytes", "Sizes in text output as exact byte counts instead of KiB/MiB/GiB"});
  return s;
}

void AddHelpCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<HelpArgs>();
  CLI::App* sub =
      app.add_subcommand("help", "Show the help of a verb (like 'ckpt-tool VERB --help')");
  sub->add_option("verb", args->verb, "The verb (default: the overview of all verbs)");
  sub->add_flag("--man", args->man, "Print the man page (roff) instead")->group("");
  sub->add_option("--man-dir", args->man_dir, "Write every man page into DIR")->group("");
  SetExamples(sub, {"ckpt-tool help validate", "ckpt-tool help"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunHelp(*args, ctx); }; });
}

}  // namespace ckpt::cli
