// Application themes (View > Theme): the platform's own, or Fusion with a light or dark palette.
// GUI thread only.
#pragma once

#include <QString>

namespace ckpt::inspector {

enum class Theme { kSystem, kLight, kDark };

// Applies `theme` to the running QApplication.
void applyTheme(Theme theme);
QString themeName(Theme theme);  // "system", "light", "dark" (as stored in QSettings)
Theme themeFromName(const QString& name);

}  // namespace ckpt::inspector
