#include "app/status_line.h"

#include <QLoggingCategory>
#include <QTimer>

namespace ckpt::inspector {

Q_LOGGING_CATEGORY(lcInspectorStatus, "ckpt.inspector.status")

QString elideToWidth(const QString& text, const QFontMetrics& metrics, int width,
                     Qt::TextElideMode mode) {
  QString flat = text;
  flat.replace(QLatin1Char('\n'), QLatin1Char(' '));
  return metrics.elidedText(flat, mode, std::max(width, 0));
}

StatusLine::StatusLine(QWidget* parent) : QLabel(parent), m_clear(new QTimer(this)) {
  setTextFormat(Qt::PlainText);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_clear->setSingleShot(true);
  connect(m_clear, &QTimer::timeout, this, [this] { showMessage(QString()); });
}

void StatusLine::showMessage(const QString& text, int timeout_ms) {
  m_full = text;
  if (!text.isEmpty()) qCInfo(lcInspectorStatus).noquote() << text;
  setToolTip(text);
  elide();
  if (timeout_ms > 0) {
    m_clear->start(timeout_ms);
  } else {
    m_clear->stop();
  }
}

QSize StatusLine::minimumSizeHint() const { return {0, QLabel::minimumSizeHint().height()}; }

QSize StatusLine::sizeHint() const { return {0, QLabel::sizeHint().height()}; }

void StatusLine::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  elide();
}

void StatusLine::elide() { setText(elideToWidth(m_full, fontMetrics(), contentsRect().width())); }

}  // namespace ckpt::inspector
