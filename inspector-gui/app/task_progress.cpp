#include "app/task_progress.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>

namespace ckpt::inspector {

TaskProgress::TaskProgress(QWidget* parent)
    : QWidget(parent),
      m_bar(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_label(new QLabel(this)),
      m_timer(new QTimer(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_label);
  layout->addWidget(m_bar);
  layout->addWidget(m_cancel);
  m_bar->setMaximumWidth(220);
  m_timer->setInterval(100);
  connect(m_timer, &QTimer::timeout, this, &TaskProgress::poll);
  connect(m_cancel, &QPushButton::clicked, this, &TaskProgress::cancel);
  hide();
}

std::shared_ptr<TaskState> TaskProgress::start(const QString& label) {
  m_task = std::make_shared<TaskState>();
  m_title = label;
  m_label->setText(label);
  m_label->setToolTip(QString());
  m_label->setMaximumWidth(kLabelWidth);
  m_bar->setRange(0, 0);
  m_cancel->setEnabled(true);
  m_timer->start();
  show();
  return m_task;
}

void TaskProgress::finish() {
  m_task.reset();
  m_timer->stop();
  hide();
}

void TaskProgress::cancel() {
  if (!m_task) return;
  m_task->cancel();
  m_cancel->setEnabled(false);
  m_label->setText(tr("Cancelling…"));
}

void TaskProgress::poll() {
  if (!m_task) return;
  const TaskState::View v = m_task->snapshot();
  if (v.total > 0) {
    m_bar->setRange(0, 1000);
    m_bar->setValue(static_cast<int>(1000.0 * static_cast<double>(v.done) / static_cast<double>(v.total)));
  }
  if (!v.what.isEmpty() && !m_task->cancelled()) {
    // A long path would clip: elide it in the middle, the whole path is the tooltip.
    const QString full = m_title + QStringLiteral(": ") + v.what;
    m_label->setText(m_label->fontMetrics().elidedText(full, Qt::ElideMiddle, kLabelWidth));
    m_label->setToolTip(full);
    m_bar->setFormat(QStringLiteral("%p%"));
  }
}

QString TaskProgress::labelText() const { return m_label->text(); }
QString TaskProgress::labelToolTip() const { return m_label->toolTip(); }

}  // namespace ckpt::inspector
