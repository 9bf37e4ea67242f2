// StatusLine: the status bar's message. A message wider than the bar is elided at its end (so it
// never widens the window); the whole text is the tooltip and is written to the log (category
// "ckpt.inspector.status"). GUI thread only.
#pragma once

#include <QLabel>
#include <QString>

class QTimer;

namespace ckpt::inspector {

class StatusLine : public QLabel {
  Q_OBJECT

 public:
  explicit StatusLine(QWidget* parent = nullptr);
  // Shows `text` (elided to the width available); `timeout_ms` > 0 clears it after that long,
  // 0 keeps it until the next message.
  void showMessage(const QString& text, int timeout_ms = 0);
  // The message as given (not elided).
  QString fullText() const { return m_full; }
  // Any width fits: the label elides instead of asking for room.
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void elide();

  QString m_full;
  QTimer* m_clear;
};

// `text` shortened with "…" at its end (or middle, for `mode` Qt::ElideMiddle) to fit `width`
// pixels in `metrics`; the text itself when it fits. Newlines count as spaces.
QString elideToWidth(const QString& text, const QFontMetrics& metrics, int width,
                     Qt::TextElideMode mode = Qt::ElideRight);

}  // namespace ckpt::inspector
