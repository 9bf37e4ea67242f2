// TaskProgress: a progress bar with a Cancel button bound to one background TaskState; it polls
// the state ten times a second while a task runs. GUI thread only.
#pragma once

#include <QWidget>
#include <memory>

#include "models/loaders.h"

class QProgressBar;
class QPushButton;
class QLabel;
class QTimer;

namespace ckpt::inspector {

class TaskProgress : public QWidget {
  Q_OBJECT

 public:
  explicit TaskProgress(QWidget* parent = nullptr);
  // Starts showing `task` under `label`; returns it for the loader call.
  std::shared_ptr<TaskState> start(const QString& label);
  void finish();
  bool running() const { return m_task != nullptr; }
  void cancel();
  // The label as shown (a long path elided in the middle; the whole path is its tooltip).
  QString labelText() const;
  QString labelToolTip() const;
  // Widest the label may grow, in pixels. Default: 360.
  static constexpr int kLabelWidth = 360;

 private:
  void poll();

  std::shared_ptr<TaskState> m_task;
  QString m_title;
  QProgressBar* m_bar;
  QPushButton* m_cancel;
  QLabel* m_label;
  QTimer* m_timer;
};

}  // namespace ckpt::inspector
