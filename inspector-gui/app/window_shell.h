// What the main window's controllers may touch of the window itself: its title and status bar,
// the page tabs, the background-task indicator, and the window as the parent of dialogs. GUI
// thread only; the pointers live as long as the window.
#pragma once

#include <QMainWindow>
#include <QStatusBar>
#include <QString>
#include <QTabWidget>

#include "app/inspector_page.h"
#include "app/status_line.h"

namespace ckpt::inspector {

class TaskProgress;

struct WindowShell {
  QMainWindow* window = nullptr;
  QTabWidget* pages = nullptr;
  TaskProgress* progress = nullptr;
  StatusLine* statusLine = nullptr;

  void showPage(InspectorPage page) const { pages->setCurrentIndex(page); }
  // A status-bar message (elided to the bar; whole in its tooltip and the log); `timeout_ms` 0
  // keeps it until the next one.
  void status(const QString& text, int timeout_ms = 0) const {
    statusLine->showMessage(text, timeout_ms);
  }
  void setTitle(const QString& title) const { window->setWindowTitle(title); }
};

}  // namespace ckpt::inspector
