// HexView: a read-only hex + ASCII view of one file region (or of one block's decompressed
// bytes), a custom QAbstractScrollArea that paints only the visible rows and asks its
// ByteSource for just those bytes; one byte range can be highlighted (the selected record,
// block, section or finding). GUI thread only.
#pragma once

#include <QAbstractScrollArea>
#include <memory>

#include "models/byte_source.h"

namespace ckpt::inspector {

class HexView : public QAbstractScrollArea {
  Q_OBJECT

 public:
  static constexpr int kBytesPerRow = 16;
  explicit HexView(QWidget* parent = nullptr);

  // Shows bytes [offset, offset + length) of `path` on `fs` (length 0 = to the end of the file).
  void setRegion(base::Fs& fs, const QString& path, uint64_t offset = 0, uint64_t length = 0);
  // Shows `bytes` (a block's decompressed record stream), addressed from `base_offset`;
  // `label` names them (path() returns it).
  void setDecoded(const QString& label, const QByteArray& bytes, uint64_t base_offset = 0);
  // Highlights bytes [offset, offset + length) (addresses as shown) and scrolls to them.
  void setHighlight(uint64_t offset, uint64_t length);
  void clearHighlight() { setHighlight(0, 0); }
  uint64_t highlightStart() const { return m_hlStart; }
  uint64_t highlightLength() const { return m_hlLength; }
  bool decoded() const { return m_decodedMode; }
  // Address of the first visible byte; whether the row holding `offset` is on screen.
  uint64_t firstVisibleOffset() const;
  bool isOffsetVisible(uint64_t offset) const;
  // Empties the view (a node that is not a file): no bytes, no highlight.
  void clear();
  QString path() const {
    return m_decodedMode ? m_decodedLabel : m_source ? m_source->path() : QString();
  }
  uint64_t regionStart() const { return m_start; }
  uint64_t regionLength() const { return m_length; }
  // Bytes read from disk so far for the current file (visible rows only).
  uint64_t blocksRead() const { return m_source ? m_source->blocksRead() : 0; }
  QString error() const { return m_error; }
  // Scrolls so that the row holding region offset `offset` is the first visible one.
  void scrollToOffset(uint64_t offset);
  // Wide enough for 8-digit addresses, 16 hex bytes and their ASCII column.
  QSize sizeHint() const override;

 Q_SIGNALS:
  void regionChanged(const QString& path, quint64 offset, quint64 length);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateScrollBars();
  int rowHeight() const;
  int charWidth() const;

  QByteArray readShown(uint64_t offset, size_t n);
  bool hasBytes() const;

  std::unique_ptr<ByteSource> m_source;
  bool m_decodedMode = false;
  QByteArray m_decodedBytes;
  QString m_decodedLabel;
  uint64_t m_hlStart = 0;
  uint64_t m_hlLength = 0;
  uint64_t m_start = 0;
  uint64_t m_length = 0;
  QString m_error;
};

}  // namespace ckpt::inspector
