// ckpt-engine: thin CLI over ckpt::engine (argument parsing, wiring, printing).
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/cli_support/cli_help.h"
#include "ckpt/cli_support/suggest.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/s3/s3_fs.h"
#include "ckpt/version.h"
#include "client_commands.h"
#include "engine_text_style.h"
#include "history_server_command.h"
#include "run_command.h"

namespace {

constexpr const char* kRunExitStatus =
    "0 the job finished, or stopped with a savepoint (SIGINT, SIGTERM or "
    "--stop-with-savepoint-after).\n"
    "1 the job failed (restart attempts exhausted) or an internal error occurred.\n"
    "2 the job spec or the flags are invalid, or the snapshot to restore cannot be used; the "
    "message on stderr names the field or file.\n"
    "130 a second signal cancelled the job before its savepoint completed.";

constexpr const char* kHistoryServerExitStatus =
    "0 stopped by SIGINT or SIGTERM.\n"
    "2 the flags are invalid, the archive directory or --web-ui is not usable, or the port cannot "
    "be bound.";

// The parameter names a kind accepts, asked from its own factory: every built-in factory first
// checks its params against the known list (OperatorParams::CheckKnownFields), so an unknown
// probe field makes it answer "unknown parameter (known: a, b)". Empty if the kind took no
// params or answered otherwise.
std::vector<std::string> KnownParams(const ckpt::engine::OperatorRegistry& registry,
                                     const std::string& kind) {
  google::protobuf::Struct probe;
  (*probe.mutable_fields())["__ckpt_probe__"].set_bool_value(true);
  auto created = registry.Create(kind, ckpt::engine::OperatorParams("kinds", probe));
  std::vector<std::string> out;
  if (created.ok()) return out;
  const std::string msg = created.status().message();
  const std::string marker = "(known: ";
  const auto b = msg.find(marker);
  if (b == std::string::npos) return out;
  const auto e = msg.find(')', b);
  std::stringstream list(msg.substr(b + marker.size(), e - b - marker.size()));
  std::string name;
  while (std::getline(list, name, ',')) {
    const auto s = name.find_first_not_of(' ');
    if (s != std::string::npos) out.push_back(name.substr(s));
  }
  return out;
}

// The root's options a verb accepts too (before or after it): its help and man page list them.
ckpt::clihelp::ExtraSection EngineGlobalOptionsSection(const CLI::App* verb) {
  ckpt::clihelp::ExtraSection s;
  if (verb->get_parent() == nullptr) return s;
  s.title = "Global options (before or after the command)";
  s.options.push_back(
      {"--color WHEN", std::string(ckpt::clistyle::kColorOptionHelp) + ". Default: auto"});
  return s;
}

ckpt::clihelp::ManInfo ManInfoFor(const CLI::App& root, const CLI::App* sub) {
  ckpt::clihelp::ManInfo info;
  info.version = ckpt::kVersion;
  info.example_prefixes = {"ckpt-engine", "ckpt-tool"};
  if (sub == nullptr) {
    info.page = "ckpt-engine";
    info.command = "ckpt-engine";
    info.exit_status = std::string("See each command. ckpt-engine run:\n") + kRunExitStatus;
    info.extra_description =
        "Runs jobs defined by a JSON job spec, takes checkpoints (aligned, unaligned, aligned with "
        "a timeout, or at-least-once) and savepoints in the documented checkpoint format, with "
        "heap, RocksDB (full or incremental) or changelog state backends, restores from them, "
        "and serves a Flink-compatible REST API (--rest-port).\n"
        "Operator kinds and their parameters: 'ckpt-engine kinds --params'.";
    info.examples = {"ckpt-engine run examples/keyed_sum_2pc.json --checkpoint-dir /tmp/ckpt",
                     "ckpt-engine kinds --params", "ckpt-engine help run"};
    for (const CLI::App* s : root.get_subcommands({})) {
      info.see_also.push_back("ckpt-engine-" + s->get_name() + "(1)");
    }
    info.see_also.push_back("ckpt-tool(1)");
  } else {
    info.page = "ckpt-engine-" + sub->get_name();
    info.command = "ckpt-engine " + sub->get_name();
    info.exit_status = std::string("0 success.\n2 usage error (bad flags or arguments).");
    if (sub->get_name() == "run") info.exit_status = kRunExitStatus;
    if (sub->get_name() == "history-server") info.exit_status = kHistoryServerExitStatus;
    info.see_also = {"ckpt-engine(1)", "ckpt-tool(1)"};
  }
  return info;
}

// The catalog as a table: a KIND column as wide as the longest kind, and each description
// wrapped at 80 columns under the DESCRIPTION heading.
void PrintKindsTable(const ckpt::engine::OperatorRegistry& registry, std::ostream& out) {
  size_t width = 4;  // "KIND"
  for (const std::string& k : registry.Kinds()) width = std::max(width, k.size());
  width += 2;
  const size_t text_width = width < 50 ? 80 - width : 30;
  out << std::left << std::setw(static_cast<int>(width)) << "KIND" << "DESCRIPTION\n";
  for (const std::string& k : registry.Kinds()) {
    std::istringstream words(registry.Find(k)->description);
    std::string word, line;
    std::string first = k;
    const auto flush = [&] {
      out << std::left << std::setw(static_cast<int>(width)) << first << line << "\n";
      first.clear();
      line.clear();
    };
    while (words >> word) {
      if (!line.empty() && line.size() + 1 + word.size() > text_width) flush();
      line += (line.empty() ? "" : " ") + word;
    }
    flush();
  }
}

std::string ManPage(const CLI::App& root, const CLI::App* sub) {
  std::ostringstream out;
  const ckpt::clihelp::ExtraSection globals =
      sub == nullptr ? ckpt::clihelp::ExtraSection{} : EngineGlobalOptionsSection(sub);
  ckpt::clihelp::WriteManPage(sub == nullptr ? root : *sub, ManInfoFor(root, sub), &globals, out);
  return out.str();
}

int WriteManDir(const CLI::App& root, const std::string& dir) {
  ckpt::base::Fs& fs = ckpt::base::Fs::Default();
  auto write = [&fs](const std::string& path, const std::string& text) -> ckpt::base::Status {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ckpt::base::WritableFile> f, fs.OpenWrite(path));
    CKPT_RETURN_IF_ERROR(f->Append(text));
    return f->Close();
  };
  ckpt::base::Status st = fs.CreateDirs(dir);
  if (st.ok()) st = write(dir + "/ckpt-engine.1", ManPage(root, nullptr));
  for (const CLI::App* sub : root.get_subcommands({})) {
    if (!st.ok()) break;
    st = write(dir + "/ckpt-engine-" + sub->get_name() + ".1", ManPage(root, sub));
  }
  if (!st.ok()) {
    std::cerr << ckpt::engine::cli::StyledErr("ckpt-engine: " + st.ToString(),
                                              ckpt::clistyle::Tone::kError)
              << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ckpt::s3::RegisterS3Schemes();  // s3://, s3a://, s3p:// checkpoint and savepoint locations
  CLI::App app{"ckpt-engine: the reference stream-processing engine of the checkpoint toolchain",
               "ckpt-engine"};
  // Set before the commands are added: they copy the formatter and fall through to the root
  // for its options (--color before or after the command).
  auto formatter = std::make_shared<ckpt::clihelp::HelpFormatter>();
  formatter->set_extra_section(EngineGlobalOptionsSection);
  app.formatter(formatter);
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", std::string("ckpt-engine ") + ckpt::kVersion);
  std::string color = "auto";
  app.add_option("--color", color, std::string(ckpt::clistyle::kColorOptionHelp))
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
  ckpt::engine::cli::RunArgs run_args;
  CLI::App* run = ckpt::engine::cli::AddRunCommand(app, run_args);
  ckpt::engine::cli::ClientArgs client_args;
  const std::vector<CLI::App*> client = ckpt::engine::cli::AddClientCommands(app, client_args);
  ckpt::engine::cli::HistoryServerArgs history_args;
  CLI::App* history = ckpt::engine::cli::AddHistoryServerCommand(app, history_args);
  CLI::App* kinds = app.add_subcommand("kinds", "List the operator kinds of the built-in catalog");
  bool with_params = false;
  kinds->add_flag("--params", with_params,
                  "Also list the parameters each kind accepts (kind<TAB>param, one a line)");
  kinds->footer("Examples:\n  ckpt-engine kinds\n  ckpt-engine kinds --params");
  CLI::App* help = app.add_subcommand("help", "Show the help of a command (like 'CMD --help')");
  std::string help_cmd, man_dir;
  bool man = false;
  help->add_option("command", help_cmd, "The command (default: the overview)");
  help->add_flag("--man", man, "Print the man page (roff) instead")->group("");
  help->add_option("--man-dir", man_dir, "Write every man page into DIR")->group("");
  help->footer("Examples:\n  ckpt-engine help run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped verb or option names the closest known ones.
    const std::string unknown =
        ckpt::clihelp::UnknownNameMessage(app, std::vector<std::string>(argv + 1, argv + argc), e);
    if (!unknown.empty()) {
      std::cerr << "ckpt-engine: " << unknown << "\n";
      return 2;
    }
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  ckpt::engine::cli::SetEngineColor(
      ckpt::clistyle::ParseColorMode(color).value_or(ckpt::clistyle::ColorMode::kAuto));
  if (kinds->parsed()) {
    const auto& registry = ckpt::engine::OperatorRegistry::Builtin();
    if (!with_params) {
      PrintKindsTable(registry, std::cout);
      return 0;
    }
    for (const std::string& k : registry.Kinds()) {
      for (const std::string& p : KnownParams(registry, k)) std::cout << k << "\t" << p << "\n";
    }
    return 0;
  }
  if (help->parsed()) {
    if (!man_dir.empty()) return WriteManDir(app, man_dir);
    const CLI::App* sub = nullptr;
    if (!help_cmd.empty()) {
      for (const CLI::App* s : app.get_subcommands({})) {
        if (s->get_name() == help_cmd) sub = s;
      }
      if (sub == nullptr) {
        std::cerr << ckpt::engine::cli::StyledErr(
                         "ckpt-engine help: no command '" + help_cmd + "'",
                         ckpt::clistyle::Tone::kError)
                  << "\n";
        return 2;
      }
    }
    if (man) {
      std::cout << ManPage(app, sub);
    } else {
      // Not help(): it would delegate to the selected subcommand, `help` itself.
      const CLI::App& shown = sub == nullptr ? app : *sub;
      std::cout << shown.get_formatter()->make_help(
          &shown, sub == nullptr ? app.get_name() : app.get_name() + " " + sub->get_name(),
          CLI::AppFormatMode::Normal);
    }
    return 0;
  }
  for (const CLI::App* c : client) {
    if (c->parsed()) return ckpt::engine::cli::RunClientCommand(*c, client_args);
  }
  if (history->parsed()) return ckpt::engine::cli::RunHistoryServer(history_args);
  if (run->parsed()) return ckpt::engine::cli::Run(run_args, std::vector<std::string>(argv, argv + argc));
  return 2;
}
