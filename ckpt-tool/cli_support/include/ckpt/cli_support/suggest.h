// "Did you mean" for the CLI11 front-ends (ckpt-tool, ckpt-engine), as git, cargo and kubectl
// answer a typo: a mistyped verb or option gets one line naming what was not understood and the
// closest known names, instead of CLI11's generic "A subcommand is required".
// Part of ckpt::cli_support; pure functions of their arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ckpt::clihelp {

// Optimal-string-alignment distance (insertions, deletions, substitutions and transpositions of
// adjacent characters each cost 1) between `a` and `b`, compared case-sensitively.
std::size_t EditDistance(const std::string& a, const std::string& b);

// The candidates closest to `typed` (leading dashes aside): those at the smallest distance that
// is at most 2 and at most half of `typed`'s length (so that short words do not match
// everything), or, when none is that close, the candidates `typed` is a prefix of. Sorted, without duplicates; empty when
// nothing is close.
std::vector<std::string> ClosestNames(const std::string& typed,
                                      const std::vector<std::string>& candidates);

// The line a front-end prints instead of CLI11's message when `e`, thrown by `app.parse` for the
// command line `args` (without the program name), comes from an unknown verb or option:
//   "unknown command 'valdate' (did you mean 'validate'?)"
//   "unknown option '--deeep' for 'validate' (did you mean '--deep'?)"
//   "unknown command 'frobnicate'; 'ckpt-tool --help' lists the commands"
// Empty when the error is of another kind (a missing value, a failed check, --help).
std::string UnknownNameMessage(const CLI::App& app, const std::vector<std::string>& args,
                               const CLI::ParseError& e);

}  // namespace ckpt::clihelp
