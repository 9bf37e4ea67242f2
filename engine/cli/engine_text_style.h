// How ckpt-engine colours its text: --color and NO_COLOR decide, through ckpt::clistyle (the
// one implementation ckpt-tool uses too), whether stdout and stderr get ANSI colour; the verbs
// wrap errors, warnings, hints and status words with the functions below. main sets the mode
// once, before any verb or engine thread runs; everything else only reads it.
#pragma once

#include <string>
#include <string_view>

#include "ckpt/cli_support/style.h"

namespace ckpt::engine::cli {

// Decides under `mode` whether stdout and stderr are coloured (clistyle::ColorEnabled on each
// stream). Until it is called neither is.
void SetEngineColor(clistyle::ColorMode mode);

// `text` in the colour of `tone` when stdout is coloured, else as is.
std::string StyledOut(std::string_view text, clistyle::Tone tone);

// `text` in the colour of `tone` when stderr is coloured, else as is.
std::string StyledErr(std::string_view text, clistyle::Tone tone);

// A job or checkpoint status word for stdout: FINISHED, COMPLETED and RUNNING good; FAILED,
// CANCELED and CANCELLED bad; any other word as is.
std::string StyledStatus(std::string_view status);

}  // namespace ckpt::engine::cli
