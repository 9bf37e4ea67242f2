// ckpt-engine's colour decision per stream, kept for the verbs (engine_text_style.h).
#include "engine_text_style.h"

#include <unistd.h>

namespace ckpt::engine::cli {
namespace {

// Set by main before threads start (SetEngineColor); read-only afterwards.
bool g_engine_color_out = false;
bool g_engine_color_err = false;

}  // namespace

void SetEngineColor(clistyle::ColorMode mode) {
  g_engine_color_out = clistyle::ColorEnabled(mode, STDOUT_FILENO);
  g_engine_color_err = clistyle::ColorEnabled(mode, STDERR_FILENO);
}

std::string StyledOut(std::string_view text, clistyle::Tone tone) {
  return clistyle::Paint(text, tone, g_engine_color_out);
}

std::string StyledErr(std::string_view text, clistyle::Tone tone) {
  return clistyle::Paint(text, tone, g_engine_color_err);
}

std::string StyledStatus(std::string_view status) {
  if (status == "FINISHED" || status == "COMPLETED" || status == "RUNNING") {
    return StyledOut(status, clistyle::Tone::kGood);
  }
  if (status == "FAILED" || status == "CANCELED" || status == "CANCELLED") {
    return StyledOut(status, clistyle::Tone::kBad);
  }
  return std::string(status);
}

}  // namespace ckpt::engine::cli
