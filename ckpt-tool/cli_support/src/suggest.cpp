// "Did you mean": see suggest.h.
#include "ckpt/cli_support/suggest.h"

#include <algorithm>
#include <set>

namespace ckpt::clihelp {
namespace {

// Every name a user may type for `app`'s subcommands (names and aliases).
std::vector<std::string> VerbNamesOf(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) continue;
    names.push_back(sub->get_name());
    for (const std::string& alias : sub->get_aliases()) names.push_back(alias);
  }
  return names;
}

// Every option spelling of `app` ("--deep", "-q"), with those of its parents when it falls
// through to them.
std::vector<std::string> OptionNamesOf(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options()) {
      for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    }
    if (!a->get_fallthrough()) break;
  }
  return names;
}

// The deepest verb the parse selected (the root when none).
const CLI::App& SelectedVerb(const CLI::App& root) {
  const CLI::App* at = &root;
  for (;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return *at;
    at = subs.front();
  }
}

std::size_t DashCount(const std::string& s) {
  const std::size_t first = s.find_first_not_of('-');
  return first == std::string::npos ? s.size() : first;
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string Suggestion(const std::vector<std::string>& close) {
  if (close.empty()) return "";
  std::string out = close.size() == 1 ? " (did you mean " : " (did you mean one of ";
  for (size_t i = 0; i < close.size(); ++i) out += (i ? ", " : "") + Quoted(close[i]);
  return out + "?)";
}

std::string ProgramName(const CLI::App& app) {
  const CLI::App* root = &app;
  while (root->get_parent() != nullptr) root = root->get_parent();
  return root->get_name();
}

// The first word of `args` that is no option of `app` nor the value of one: the verb the user
// meant. Empty when every word is an option.
std::string FirstPlainWord(const CLI::App& app, const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return i + 1 < args.size() ? args[i + 1] : "";
    if (arg.size() < 2 || arg[0] != '-') return arg;
    if (arg.find('=') != std::string::npos) continue;
    const CLI::Option* opt = app.get_option_no_throw(arg);
    if (opt != nullptr && opt->get_items_expected_min() > 0) ++i;  // skip its value
  }
  return "";
}

}  // namespace

std::size_t EditDistance(const std::string& a, const std::string& b) {
  // Three rows of the optimal-string-alignment table: two back for transpositions.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::vector<std::string> ClosestNames(const std::string& typed,
                                      const std::vector<std::string>& candidates) {
  // Leading dashes are not part of what was mistyped: "--deeep" is compared as "deeep".
  const std::string word = typed.substr(DashCount(typed));
  std::size_t best = 3;
  std::set<std::string> closest;
  for (const std::string& c : candidates) {
    const std::size_t d = EditDistance(word, c.substr(DashCount(c)));
    if (d == 0 || 2 * d > word.size() || d > best) continue;
    if (d < best) closest.clear();
    best = d;
    closest.insert(c);
  }
  if (closest.empty() && !word.empty()) {
    for (const std::string& c : candidates) {
      if (DashCount(c) == DashCount(typed) && c.compare(DashCount(c), word.size(), word) == 0) {
        closest.insert(c);
      }
    }
  }
  return {closest.begin(), closest.end()};
}

std::string UnknownNameMessage(const CLI::App& app, const std::vector<std::string>& args,
                               const CLI::ParseError& e) {
  const std::string program = ProgramName(app);
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && app.get_subcommands().empty()) {
    const std::string word = FirstPlainWord(app, args);
    if (word.empty()) return "";
    const std::vector<std::string> close = ClosestNames(word, VerbNamesOf(app));
    if (close.empty()) {
      return "unknown command " + Quoted(word) + "; " + Quoted(program + " --help") +
             " lists the commands";
    }
    return "unknown command " + Quoted(word) + Suggestion(close);
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return "";
  const CLI::App& verb = SelectedVerb(app);
  const std::vector<std::string> known = OptionNamesOf(verb);
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (name.size() > 2 && name[1] != '-') continue;  // -xyz: packed short flags, CLI11's call
    const std::string where = &verb == &app ? "" : " for " + Quoted(verb.get_name());
    const std::vector<std::string> close = ClosestNames(name, known);
    if (close.empty()) {
      return "unknown option " + Quoted(name) + where + "; " +
             Quoted(program + (&verb == &app ? "" : " " + verb.get_name()) + " --help") +
             " lists the options";
    }
    return "unknown option " + Quoted(name) + where + Suggestion(close);
  }
  return "";
}

}  // namespace ckpt::clihelp
