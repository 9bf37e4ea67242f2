// ckpt-engine: thin CLI over ckpt::engine (argument parsing, wiring, printing).
#include <iostream>

#include <CLI/CLI.hpp>

#include "ckpt/engine/operator_registry.h"
#include "run_command.h"

int main(int argc, char** argv) {
  CLI::App app{"ckpt-engine: the reference stream-processing engine of the checkpoint toolchain"};
  app.require_subcommand(1);
  ckpt::engine::cli::RunArgs run_args;
  CLI::App* run = ckpt::engine::cli::AddRunCommand(app, run_args);
  CLI::App* kinds = app.add_subcommand("kinds", "List the operator kinds of the built-in catalog");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (kinds->parsed()) {
    const auto& registry = ckpt::engine::OperatorRegistry::Builtin();
    for (const std::string& k : registry.Kinds()) {
      std::cout << k << "\t" << registry.Find(k)->description << "\n";
    }
    return 0;
  }
  if (run->parsed()) return ckpt::engine::cli::Run(run_args, std::vector<std::string>(argv, argv + argc));
  return 2;
}
