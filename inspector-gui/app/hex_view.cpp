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
  m_decodedMode = false;
  m_decodedBytes.clear();
  m_decodedLabel.clear();
  m_hlStart = m_hlLength = 0;
  m_start = m_length = 0;
  m_error.clear();
  updateScrollBars();
  viewport()->update();
}

void HexView::setRegion(base::Fs& fs, const QString& path, uint64_t offset, uint64_t length) {
  m_decodedMode = false;
  m_decodedBytes.clear();
  m_hlStart = m_hlLength = 0;
  m_source = std::make_unique<ByteSource>(fs, path);
  m_error = m_source->error();
  const uint64_t size = m_source->size();
  m_start = std::min(offset, size);
  m_length = length == 0 ? size - m_start : std::min(length, size - m_start);
  updateScrollBars();
  verticalScrollBar()->setValue(0);
  viewport()->update();
  Q_EMIT regionChanged(path, m_start, m_length);
}

void HexView::setDecoded(const QString& label, const QByteArray& bytes, uint64_t base_offset) {
  m_source.reset();
  m_decodedMode = true;
  m_decodedBytes = bytes;
  m_decodedLabel = label;
  m_error.clear();
  m_hlStart = m_hlLength = 0;
  m_start = base_offset;
  m_length = static_cast<uint64_t>(bytes.size());
  updateScrollBars();
  verticalScrollBar()->setValue(0);
  viewport()->update();
  Q_EMIT regionChanged(label, m_start, m_length);
}

bool HexView::hasBytes() const { return m_decodedMode || (m_source && m_source->ok()); }

QByteArray HexView::readShown(uint64_t offset, size_t n) {
  if (!m_decodedMode) return m_source->read(offset, n);
  const uint64_t at = offset - m_start;
  if (at >= static_cast<uint64_t>(m_decodedBytes.size())) return {};
  return m_decodedBytes.mid(static_cast<qsizetype>(at), static_cast<qsizetype>(n));
}

void HexView::setHighlight(uint64_t offset, uint64_t length) {
  m_hlStart = offset;
  m_hlLength = length;
  if (length > 0) scrollToOffset(offset);
  viewport()->update();
}

uint64_t HexView::firstVisibleOffset() const {
  return m_start + static_cast<uint64_t>(verticalScrollBar()->value()) * kBytesPerRow;
}

bool HexView::isOffsetVisible(uint64_t offset) const {
  const uint64_t first = firstVisibleOffset();
  const uint64_t rows = static_cast<uint64_t>(std::max(1, viewport()->height() / std::max(1, rowHeight())));
  return offset >= first && offset < first + rows * kBytesPerRow && offset < m_start + m_length;
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
  if (!hasBytes()) {
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
  const QByteArray bytes = readShown(m_start + first, want);
  // 8 address digits unless the addresses pass 4 GiB.
  const int digits = m_start + m_length > 0xffffffffull ? 16 : 8;
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
    // The highlighted range: one background run per row in both columns.
    const uint64_t row_addr = m_start + first + static_cast<uint64_t>(base);
    if (m_hlLength > 0 && m_hlStart < row_addr + kBytesPerRow && m_hlStart + m_hlLength > row_addr) {
      const int a = static_cast<int>(std::max(m_hlStart, row_addr) - row_addr);
      const int b = static_cast<int>(std::min(m_hlStart + m_hlLength, row_addr + kBytesPerRow) - row_addr);
      const int top = r * rh;
      auto hexCol = [&](int i) { return hex_x + cw * (i * 3 + (i >= 8 ? 1 : 0)); };
      const QColor hl = pal.color(QPalette::Highlight);
      p.fillRect(QRect(hexCol(a), top, hexCol(b - 1) + cw * 2 - hexCol(a), rh), hl);
      p.fillRect(QRect(ascii_x + cw * a, top, cw * (b - a), rh), hl);
    }
    for (qsizetype i = base; i < std::min(bytes.size(), base + kBytesPerRow); ++i) {
      const auto b = static_cast<unsigned char>(bytes[i]);
      const int col = static_cast<int>(i - base);
      const uint64_t addr = row_addr + static_cast<uint64_t>(col);
      const bool lit = m_hlLength > 0 && addr >= m_hlStart && addr < m_hlStart + m_hlLength;
      p.setPen(pal.color(lit ? QPalette::HighlightedText : QPalette::Text));
      p.drawText(hex_x + cw * (col * 3 + (col >= 8 ? 1 : 0)), y, QStringLiteral("%1").arg(b, 2, 16, QLatin1Char('0')));
      p.drawText(ascii_x + cw * col, y, b >= 0x20 && b < 0x7f ? QString(QLatin1Char(static_cast<char>(b))) : QStringLiteral("."));
    }
  }
}

}  // namespace ckpt::inspector
