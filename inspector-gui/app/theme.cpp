#include "app/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace ckpt::inspector {

namespace {
QString& systemStyleName() {
  static QString name;
  return name;
}
}  // namespace

void applyTheme(Theme theme) {
  if (systemStyleName().isEmpty()) systemStyleName() = QApplication::style()->name();
  if (theme == Theme::kSystem) {
    QApplication::setStyle(QStyleFactory::create(systemStyleName()));
    QApplication::setPalette(QApplication::style()->standardPalette());
    return;
  }
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  if (theme == Theme::kLight) {
    QApplication::setPalette(QApplication::style()->standardPalette());
    return;
  }
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), disabled(127, 127, 127);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Link, QColor(90, 160, 240));
  p.setColor(QPalette::Highlight, QColor(42, 130, 218));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Mid, QColor(70, 70, 74));
  p.setColor(QPalette::Disabled, QPalette::Text, disabled);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
  p.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
  QApplication::setPalette(p);
}

QString themeName(Theme theme) {
  switch (theme) {
    case Theme::kLight: return QStringLiteral("light");
    case Theme::kDark: return QStringLiteral("dark");
    case Theme::kSystem: break;
  }
  return QStringLiteral("system");
}

Theme themeFromName(const QString& name) {
  if (name == QLatin1String("light")) return Theme::kLight;
  if (name == QLatin1String("dark")) return Theme::kDark;
  return Theme::kSystem;
}

}  // namespace ckpt::inspector
