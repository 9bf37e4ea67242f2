// HelpFormatter and WriteManPage: see cli_help.h.
#include "ckpt/cli_support/cli_help.h"

#include <sstream>
#include <string_view>
#include <utility>

namespace ckpt::clihelp {
namespace {


constexpr std::size_t kHelpWidth = 80;

// Greedy word wrap of each paragraph (split on '\n') to `width` columns. Words longer than the
// width stay whole on their own line.
std::string Wrap(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view para = text.substr(start, nl - start);
    std::size_t col = 0;
    std::size_t i = 0;
    while (i < para.size()) {
      while (i < para.size() && para[i] == ' ') ++i;
      std::size_t j = para.find(' ', i);
      if (j == std::string_view::npos) j = para.size();
      if (j > i) {
        std::string_view word = para.substr(i, j - i);
        if (col > 0 && col + 1 + word.size() > width) {
          out += '\n';
          col = 0;
        } else if (col > 0) {
          out += ' ';
          ++col;
        }
        out += word;
        col += word.size();
      }
      i = j;
    }
    if (nl < text.size()) out += '\n';
    start = nl + 1;
  }
  return out;
}

// A shell command longer than `width` as lines continued with " \\" (still pastable); each
// continuation line is indented by `indent` spaces.
std::vector<std::string> SplitCommand(const std::string& command, std::size_t width,
                                      std::size_t indent) {
  std::vector<std::string> lines;
  std::string rest = command;
  std::string cont;
  while (rest.size() + cont.size() > width) {
    const std::size_t cut = rest.rfind(' ', width - 2 - cont.size());
    if (cut == std::string::npos || cut == 0) break;
    lines.push_back(cont + rest.substr(0, cut) + " \\");
    rest = rest.substr(cut + 1);
    cont = std::string(indent, ' ');
  }
  lines.push_back(cont + rest);
  return lines;
}

// Splits a footer set by SetExamples-style code ("Examples:\n  cmd\n  cmd\n  note") into the
// example commands (lines that start with one of `commands`, e.g. "ckpt-tool") and the rest.
struct FooterParts {
  std::vector<std::string> examples;
  std::vector<std::string> notes;
};

FooterParts SplitFooter(const std::string& footer, const std::vector<std::string>& commands) {
  FooterParts parts;
  std::istringstream in(footer);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line == "Examples:") continue;
    bool is_command = false;
    for (const std::string& c : commands) is_command = is_command || line.rfind(c, 0) == 0;
    (is_command ? parts.examples : parts.notes).push_back(line);
  }
  return parts;
}



// Man pages.

// Escapes text for roff: backslashes, hyphens of option-like words, and a leading '.' or '\''.
std::string RoffEscape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c == '\n') {
      out += "\n.br\n";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}


std::string OptionNames(const CLI::Option* opt) {
  std::string names;
  for (const std::string& s : opt->get_snames()) names += (names.empty() ? "" : ", ") + ("-" + s);
  for (const std::string& l : opt->get_lnames()) names += (names.empty() ? "" : ", ") + ("--" + l);
  return names;
}

std::string OptionValue(const CLI::Option* opt) {
  if (opt->get_expected_max() == 0 || opt->get_type_size() == 0) return {};
  std::string type = opt->get_option_text();
  if (type.empty()) type = opt->get_type_name();
  return type;
}

void WriteParagraphs(std::ostream& out, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (!first) out << ".PP\n";
    out << RoffEscape(line) << "\n";
    first = false;
  }
}

void WriteManOption(std::ostream& out, const std::string& names, const std::string& value,
                    const std::string& description) {
  out << ".TP\n\\fB" << RoffEscape(names) << "\\fR";
  if (!value.empty()) out << " \\fI" << RoffEscape(value) << "\\fR";
  out << "\n" << RoffEscape(description) << "\n";
}

}  // namespace

HelpFormatter::HelpFormatter() { column_width(30); }

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string left = make_option_name(opt, is_positional) + make_option_opts(opt);
  std::string desc = make_option_desc(opt);
  const std::size_t open = left.find(":{");
  const std::size_t close = open == std::string::npos ? open : left.find('}', open);
  if (left.size() + 2 > kHelpWidth && close != std::string::npos) {
    std::string choices = left.substr(open + 2, close - open - 2);
    for (std::size_t p = 0; (p = choices.find(',', p)) != std::string::npos; p += 2) {
      choices.replace(p, 1, ", ");
    }
    left.erase(open, close - open + 1);
    desc = Wrap(opt->get_description() + ". One of: " + choices, DescWidth());
  }
  std::stringstream out;
  CLI::detail::format_help(out, left, desc, get_column_width());
  return out.str();
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  return Wrap(CLI::Formatter::make_option_desc(opt), DescWidth());
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true),
                           Wrap(sub->get_description(), DescWidth()), get_column_width());
  return out.str();
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return Wrap(CLI::Formatter::make_description(app), kHelpWidth);
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  std::string usage = CLI::Formatter::make_usage(app, std::move(name));
  // "Usage: a b c [OPTIONS]..." -> continuation lines indented under the command.
  std::string flat = usage.substr(0, usage.find_last_not_of('\n') + 1);
  std::string wrapped = Wrap(flat, kHelpWidth - 7);
  std::string out;
  for (char c : wrapped) {
    out += c;
    if (c == '\n') out += "       ";
  }
  return out + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  // Example command lines longer than 80 columns are continued with a backslash so that they
  // can still be pasted. Prose is wrapped as paragraphs: a line that filled the source's width
  // (60 columns or more) continues into the next line of the same indentation, so text wrapped
  // by hand at another width is re-wrapped as a whole rather than line by line.
  std::string footer = app->get_footer();
  if (footer.empty()) return {};
  std::istringstream in(footer);
  std::string line, out, paragraph, paragraph_pad;
  bool continues = false;
  const auto flush = [&] {
    if (paragraph.empty()) return;
    std::istringstream b(Wrap(paragraph, kHelpWidth - paragraph_pad.size()));
    std::string l;
    while (std::getline(b, l)) out += paragraph_pad + l + "\n";
    paragraph.clear();
  };
  while (std::getline(in, line)) {
    const std::size_t indent = line.find_first_not_of(' ');
    const std::string pad(indent == std::string::npos ? 0 : indent, ' ');
    const std::string body = line.substr(pad.size());
    if (body.empty() || body.compare(0, 5, "ckpt-") == 0) {
      flush();
      if (body.empty()) {
        out += "\n";
      } else {
        for (const std::string& l : SplitCommand(body, kHelpWidth - pad.size(), 4)) {
          out += pad + l + "\n";
        }
      }
      continues = false;
      continue;
    }
    if (continues && pad == paragraph_pad && body.compare(0, 2, "- ") != 0) {
      paragraph += " " + body;
    } else {
      flush();
      paragraph = body;
      paragraph_pad = pad;
    }
    continues = line.size() >= 60;
  }
  flush();
  return out;
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name,
                                     CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
  std::stringstream out;
  out << make_description(app);
  out << make_usage(app, name);
  out << make_positionals(app);
  out << make_groups(app, mode);
  if (extra_ && app->get_parent() != nullptr) {
    const ExtraSection extra = extra_(app);
    if (!extra.title.empty()) {
      out << "\n" << extra.title << ":\n";
      for (const ExtraOption& o : extra.options) {
        std::stringstream line;
        CLI::detail::format_help(line, o.name, Wrap(o.description, DescWidth()),
                                 get_column_width());
        out << line.str();
      }
    }
  }
  out << make_subcommands(app, mode);
  out << '\n' << make_footer(app);
  return out.str();
}

std::size_t HelpFormatter::DescWidth() const { return kHelpWidth - get_column_width(); }

void WriteManPage(const CLI::App& app, const ManInfo& info, const ExtraSection* globals,
                  std::ostream& out) {
  std::string summary = app.get_description();
  if (summary.rfind(info.page + ": ", 0) == 0) summary = summary.substr(info.page.size() + 2);
  std::string upper;
  for (char c : info.page) upper += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  out << ".\\\" Generated from the CLI definition by `" << info.command
      << " --man`-style code (ckpt-tool/cli_support/src/cli_help.cpp); do not edit.\n";
  out << ".TH " << upper << " 1 \"\" \"ckpt " << info.version << "\" \"User Commands\"\n";
  // NAME is one line for whatis/apropos: the first sentence of the description.
  std::string whatis = summary.substr(0, summary.find(". "));
  if (!whatis.empty() && whatis.back() == '.') whatis.pop_back();
  out << ".SH NAME\n" << RoffEscape(info.page) << " \\- " << RoffEscape(whatis) << "\n";

  // SYNOPSIS: command [OPTIONS] positionals... [COMMAND]
  out << ".SH SYNOPSIS\n.B " << RoffEscape(info.command) << "\n";
  std::vector<const CLI::Option*> positionals, options;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    (opt->get_positional() ? positionals : options).push_back(opt);
  }
  if (!options.empty()) out << "[\\fIOPTIONS\\fR]\n";
  for (const CLI::Option* p : positionals) {
    const std::string n = p->get_name(true, false);
    out << (p->get_required() ? "\\fI" + RoffEscape(n) + "\\fR" : "[\\fI" + RoffEscape(n) + "\\fR]")
        << (p->get_expected_max() > 1 ? "..." : "") << "\n";
  }
  const std::vector<const CLI::App*> subs = app.get_subcommands({});
  if (!subs.empty()) out << "\\fICOMMAND\\fR [\\fIARGS\\fR]\n";

  out << ".SH DESCRIPTION\n" << RoffEscape(summary) << (summary.empty() || summary.back() == '.' ? "" : ".") << "\n";
  FooterParts footer = SplitFooter(app.get_footer(), info.example_prefixes);
  footer.examples.insert(footer.examples.begin(), info.examples.begin(), info.examples.end());
  if (!info.extra_description.empty()) {
    out << ".PP\n";
    WriteParagraphs(out, info.extra_description);
  }

  if (!positionals.empty()) {
    out << ".SH ARGUMENTS\n";
    for (const CLI::Option* p : positionals) {
      WriteManOption(out, p->get_name(true, false), "", p->get_description());
    }
  }
  out << ".SH OPTIONS\n";
  WriteManOption(out, "-h, --help", "", "Print a short help text and exit.");
  for (const CLI::Option* opt : options) {
    const std::string names = OptionNames(opt);
    if (names.empty() || names == "-h, --help") continue;
    std::string desc = opt->get_description();
    if (!opt->get_default_str().empty() && opt->get_expected_max() > 0) {
      desc += " Default: " + opt->get_default_str() + ".";
    }
    WriteManOption(out, names, OptionValue(opt), desc);
  }
  if (globals != nullptr && !globals->title.empty()) {
    out << ".SH GLOBAL OPTIONS\nAccepted before or after the command name.\n";
    for (const ExtraOption& o : globals->options) {
      const std::size_t sp = o.name.find(' ');
      WriteManOption(out, o.name.substr(0, sp), sp == std::string::npos ? "" : o.name.substr(sp + 1),
                     o.description);
    }
  }
  if (!subs.empty()) {
    out << ".SH COMMANDS\n";
    for (const CLI::App* sub : subs) {
      if (sub->get_group().empty()) continue;
      std::string page = info.page + "-" + sub->get_name();
      out << ".TP\n.B " << RoffEscape(sub->get_name()) << "\n" << RoffEscape(sub->get_description())
          << ". See \\fB" << RoffEscape(page) << "\\fR(1).\n";
    }
  }
  out << ".SH EXIT STATUS\n";
  WriteParagraphs(out, info.exit_status);
  if (!footer.examples.empty()) {
    out << ".SH EXAMPLES\n";
    for (const std::string& e : footer.examples) {
      out << ".PP\n.nf\n.RS 4\n";
      for (const std::string& l : SplitCommand(e, 70, 4)) out << RoffEscape(l) << "\n";
      out << ".RE\n.fi\n";
    }
  }
  if (!footer.notes.empty()) {
    out << ".SH NOTES\n";
    std::string notes;
    for (const std::string& n : footer.notes) notes += n + "\n";
    WriteParagraphs(out, notes);
  }
  if (!info.see_also.empty()) {
    out << ".SH SEE ALSO\n";
    for (std::size_t i = 0; i < info.see_also.size(); ++i) {
      const std::string& s = info.see_also[i];
      const std::size_t paren = s.find('(');
      out << "\\fB" << RoffEscape(s.substr(0, paren)) << "\\fR" << s.substr(paren)
          << (i + 1 < info.see_also.size() ? ",\n" : "\n");
    }
  }
}

}  // namespace ckpt::clihelp
