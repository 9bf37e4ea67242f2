// Terminal styling shared by the CLI front-ends: whether a stream gets ANSI colour (--color and
// NO_COLOR), the colour of each kind of text, and fitting a line to the terminal's width.
// Stateless functions; thread-safe (they read the environment and the terminal only).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::clistyle {

// --color: kAuto colours a terminal unless NO_COLOR is set, kAlways always, kNever never.
enum class ColorMode { kAuto, kAlways, kNever };

// The help line of the --color option, the same in every front-end.
inline constexpr std::string_view kColorOptionHelp =
    "Colour text output and errors: auto (on a terminal unless NO_COLOR is set), always, never";

// "auto", "always", "never" as a ColorMode; nullopt for anything else.
std::optional<ColorMode> ParseColorMode(std::string_view name);

// Whether text written to file descriptor `fd` is coloured under `mode`: kAlways yes, kNever
// no, kAuto when `fd` is a terminal and NO_COLOR is unset or empty (no-color.org).
bool ColorEnabled(ColorMode mode, int fd);

// What a piece of text says, which picks its colour: errors red, warnings yellow, hints cyan,
// a good verdict green, a bad one red.
enum class Tone { kError, kWarning, kHint, kGood, kBad };

// `text` wrapped in the ANSI colour of `tone` and a reset when `enabled`, else `text` as is.
std::string Paint(std::string_view text, Tone tone, bool enabled);

// The width of the terminal on `fd`: COLUMNS when it is a positive number, else the terminal's
// own (TIOCGWINSZ), else 80.
size_t TerminalColumns(int fd);

// Columns `text` takes on a terminal: its UTF-8 code points.
size_t DisplayWidth(std::string_view text);

// `text` as is when it fits `width` columns, else its start and end joined by "…" in the
// middle so that it does (a path keeps its root and its file name). Never cuts inside a UTF-8
// code point. Empty when `width` is 0.
std::string ElideMiddle(std::string_view text, size_t width);

}  // namespace ckpt::clistyle
