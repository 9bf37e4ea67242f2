#include "models/display.h"

#include <QCoreApplication>

namespace ckpt::inspector {

QString humanBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return QStringLiteral("%1 B").arg(bytes);
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  return QStringLiteral("%1 %2").arg(v, 0, 'f', v < 10 ? 2 : 1).arg(QLatin1String(kUnits[unit]));
}

QString humanDelta(int64_t delta) {
  if (delta == 0) return QStringLiteral("0 B");
  const uint64_t mag = delta < 0 ? static_cast<uint64_t>(-(delta + 1)) + 1 : static_cast<uint64_t>(delta);
  return (delta < 0 ? QStringLiteral("-") : QStringLiteral("+")) + humanBytes(mag);
}

QString formatTimestamp(int64_t ms) {
  if (ms <= 0) return QStringLiteral("-");
  return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) +
         QStringLiteral(" UTC");
}

QString sizeExplanation() {
  return QCoreApplication::translate(
      "ckpt-inspector",
      "Full size: all state the snapshot references, including files written by earlier "
      "checkpoints (shared/ files of incremental checkpoints).\n"
      "Checkpointed size: what this snapshot itself uploaded (files it created). For a full "
      "checkpoint or a savepoint the two are equal.");
}

}  // namespace ckpt::inspector
