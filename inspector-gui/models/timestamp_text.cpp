#include "models/timestamp_text.h"

#include <QDateTime>

namespace ckpt::inspector {

QString timestampText(const QString& ms) {
  bool ok = false;
  const qint64 value = ms.trimmed().toLongLong(&ok);
  // QDateTime covers years -292275055..292278994, but ISO-8601 text only makes sense for
  // four-digit years: beyond them (Flink's Long.MIN/MAX sentinels) the number is clearer.
  constexpr qint64 kYear9999Ms = 253402300799999;
  constexpr qint64 kYear0Ms = -62167219200000;
  if (!ok || value > kYear9999Ms || value < kYear0Ms) return ms;
  return QDateTime::fromMSecsSinceEpoch(value, Qt::UTC).toString(Qt::ISODateWithMs);
}

}  // namespace ckpt::inspector
