#include "models/tone.h"

#include <algorithm>
#include <cmath>

namespace ckpt::inspector {

double relativeLuminance(const QColor& c) {
  auto channel = [](double v) {
    v /= 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue());
}

double contrastRatio(const QColor& a, const QColor& b) {
  const double la = relativeLuminance(a), lb = relativeLuminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor toneColor(Tone tone) {
  const bool gui = qobject_cast<QGuiApplication*>(QCoreApplication::instance()) != nullptr;
  return toneColor(tone, gui ? QGuiApplication::palette() : QPalette(Qt::white));
}

QColor toneColor(Tone tone, const QPalette& palette) {
  const bool dark = relativeLuminance(palette.color(QPalette::Base)) < 0.2;
  switch (tone) {
    case Tone::kError:
    case Tone::kRemoved: return dark ? QColor(255, 128, 120) : QColor(176, 0, 32);
    case Tone::kWarning:
    case Tone::kChanged: return dark ? QColor(230, 180, 70) : QColor(138, 86, 0);
    case Tone::kInfo: return dark ? QColor(130, 185, 255) : QColor(20, 90, 170);
    case Tone::kAdded: return dark ? QColor(90, 210, 110) : QColor(20, 120, 50);
  }
  return palette.color(QPalette::Text);
}

}  // namespace ckpt::inspector
