#include "app/hex_view.h"

#include <QFontDatabase>
#include <QPainter>
#include <QScrollBar>

namespace ckpt::inspector {

HexView::HexView(QWidget* parent) : QAbstractScrollArea(parent) {
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setFocusPolicy(Qt::StrongFocus);
  setToolTip(tr("Raw bytes of the selected file (read-only). Only the visible rows are read."));
}

QSize HexView::sizeHint() const {
  return {charWidth() * (10 + kBytesPerRow * 3 + 2 + kBytesPerRow + 2) + 24, 300};
}

int HexView::rowHeight() const { return fontMetrics().height(); }
int HexView::charWidth() const { return fontMetrics().horizontalAdvance(QLatin1Char('0')); }

void HexView::clear() {
  m_source.reset();
  m_start = m_length = 0;
  m_error.clear();
  updateScrollBars();
  viewport()->update();
}

void HexView::setRegion(const QString& path, uint64_t offset, uint64_t length) {
  m_source = std::make_unique<ByteSource>(path);
  m_error = m_source->error();
  const uint64_t size = m_source->size();
  m_start = std::min(offset, size);
  m_length = length == 0 ? size - m_start : std::min(length, size - m_start);
  updateScrollBars();
  verticalScrollBar()->setValue(0);
  viewport()->update();
  Q_EMIT regionChanged(path, m_start, m_length);
}

void HexView::scrollToOffset(uint64_t offset) {
  if (offset < m_start) return;
  verticalScrollBar()->setValue(static_cast<int>((offset - m_start) / kBytesPerRow));
}

void HexView::updateScrollBars() {
  const uint64_t rows = (m_length + kBytesPerRow - 1) / kBytesPerRow;
  const int visible = std::max(1, viewport()->height() / std::max(1, rowHeight()));
  const uint64_t max_row = rows > static_cast<uint64_t>(visible) ? rows - static_cast<uint64_t>(visible) : 0;
  verticalScrollBar()->setRange(0, static_cast<int>(std::min<uint64_t>(max_row, INT32_MAX)));
  verticalScrollBar()->setPageStep(visible);
  horizontalScrollBar()->setRange(0, std::max(0, charWidth() * 78 - viewport()->width()));
}

void HexView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBars();
}

void HexView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  const QPalette& pal = palette();
  p.fillRect(viewport()->rect(), pal.color(QPalette::Base));
  const int rh = rowHeight(), cw = charWidth();
  const int x0 = 4 - horizontalScrollBar()->value();
  if (!m_source || !m_source->ok()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect().adjusted(8, 8, -8, -8), Qt::AlignTop | Qt::TextWordWrap,
               m_error.isEmpty() ? tr("Select a file in the tree to see its bytes.") : m_error);
    return;
  }
  const uint64_t first_row = static_cast<uint64_t>(verticalScrollBar()->value());
  const int visible = viewport()->height() / rh + 1;
  const uint64_t first = first_row * kBytesPerRow;
  if (first >= m_length) return;
  const uint64_t want = std::min<uint64_t>(m_length - first, static_cast<uint64_t>(visible) * kBytesPerRow);
  const QByteArray bytes = m_source->read(m_start + first, want);
  // 8 address digits unless the file is larger than 4 GiB.
  const int digits = m_source->size() > 0xffffffffull ? 16 : 8;
  const int hex_x = x0 + cw * (digits + 2), ascii_x = hex_x + cw * (kBytesPerRow * 3 + 2);
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(hex_x - cw, 0, hex_x - cw, viewport()->height());
  p.drawLine(ascii_x - cw, 0, ascii_x - cw, viewport()->height());
  for (int r = 0; r < visible; ++r) {
    const qsizetype base = static_cast<qsizetype>(r) * kBytesPerRow;
    if (base >= bytes.size()) break;
    const int y = r * rh + fontMetrics().ascent();
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(x0, y, QStringLiteral("%1").arg(m_start + first + static_cast<uint64_t>(base), digits, 16, QLatin1Char('0')));
    p.setPen(pal.color(QPalette::Text));
    QString hex, ascii;
    for (qsizetype i = base; i < std::min(bytes.size(), base + kBytesPerRow); ++i) {
      const auto b = static_cast<unsigned char>(bytes[i]);
      hex += QStringLiteral("%1 ").arg(b, 2, 16, QLatin1Char('0'));
      if (i - base == 7) hex += QLatin1Char(' ');
      ascii += b >= 0x20 && b < 0x7f ? QLatin1Char(static_cast<char>(b)) : QLatin1Char('.');
    }
    p.drawText(hex_x, y, hex);
    p.drawText(ascii_x, y, ascii);
  }
}

}  // namespace ckpt::inspector
