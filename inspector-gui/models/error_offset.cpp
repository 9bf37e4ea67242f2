#include "models/error_offset.h"

#include <QRegularExpression>

namespace ckpt::inspector {

std::optional<uint64_t> errorByteOffset(const QString& message) {
  static const QRegularExpression kAt(QStringLiteral("\\bat (?:byte|offset) (\\d+)"));
  static const QRegularExpression kTruncated(QStringLiteral("\\btruncated: (\\d+) bytes"));
  for (const QRegularExpression* re : {&kAt, &kTruncated}) {
    const QRegularExpressionMatch m = re->match(message);
    bool ok = false;
    const qulonglong at = m.hasMatch() ? m.captured(1).toULongLong(&ok) : 0;
    if (ok) return static_cast<uint64_t>(at);
  }
  return std::nullopt;
}

}  // namespace ckpt::inspector
