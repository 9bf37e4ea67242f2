// ANSI colour by --color and NO_COLOR, terminal width and middle elision.
#include "ckpt/cli_support/style.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace ckpt::clistyle {

std::optional<ColorMode> ParseColorMode(std::string_view name) {
  if (name == "auto") return ColorMode::kAuto;
  if (name == "always") return ColorMode::kAlways;
  if (name == "never") return ColorMode::kNever;
  return std::nullopt;
}

bool ColorEnabled(ColorMode mode, int fd) {
  switch (mode) {
    case ColorMode::kAlways: return true;
    case ColorMode::kNever: return false;
    case ColorMode::kAuto: break;
  }
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(fd) != 0;
}

std::string Paint(std::string_view text, Tone tone, bool enabled) {
  if (!enabled || text.empty()) return std::string(text);
  const char* code = "";
  switch (tone) {
    case Tone::kError: code = "\x1b[31m"; break;
    case Tone::kWarning: code = "\x1b[33m"; break;
    case Tone::kHint: code = "\x1b[36m"; break;
    case Tone::kGood: code = "\x1b[32m"; break;
    case Tone::kBad: code = "\x1b[31m"; break;
  }
  std::string out(code);
  out += text;
  out += "\x1b[0m";
  return out;
}

size_t TerminalColumns(int fd) {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0) return static_cast<size_t>(n);
  }
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

size_t DisplayWidth(std::string_view text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

namespace {

// The byte offset after the first `points` code points of `text`.
size_t StyleBytesOfLeadingPoints(std::string_view text, size_t points) {
  size_t i = 0;
  size_t seen = 0;
  while (i < text.size()) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == points) return i;
      ++seen;
    }
    ++i;
  }
  return text.size();
}

}  // namespace

std::string ElideMiddle(std::string_view text, size_t width) {
  const size_t have = DisplayWidth(text);
  if (have <= width) return std::string(text);
  if (width == 0) return {};
  if (width == 1) return "…";
  const size_t keep = width - 1;  // one column for "…"
  const size_t tail_points = keep / 2;
  const size_t head_points = keep - tail_points;
  const size_t head_end = StyleBytesOfLeadingPoints(text, head_points);
  const size_t tail_begin = StyleBytesOfLeadingPoints(text, have - tail_points);
  std::string out(text.substr(0, head_end));
  out += "…";
  out += text.substr(tail_begin);
  return out;
}

}  // namespace ckpt::clistyle
