// Colours that carry meaning in the inspector (finding severity, diff change, snapshot health,
// file problems), chosen for the palette in use so that each meets WCAG 2.x AA contrast (at
// least 4.5:1) against the palette's Base and AlternateBase in the light and the dark theme.
// Stateless; GUI thread (reads the application palette by default).
#pragma once

#include <QColor>
#include <QGuiApplication>
#include <QPalette>

namespace ckpt::inspector {

enum class Tone { kError, kWarning, kInfo, kAdded, kRemoved, kChanged };

// The colour of `tone` on `palette` (dark variants when the palette's Base is dark).
QColor toneColor(Tone tone, const QPalette& palette);
// The same on the application's palette (the default light palette without a QGuiApplication).
QColor toneColor(Tone tone);
// WCAG 2.x relative luminance (sRGB) and contrast ratio (1..21).
double relativeLuminance(const QColor& c);
double contrastRatio(const QColor& a, const QColor& b);

}  // namespace ckpt::inspector
