// Dates as the inspector shows them: milliseconds since the epoch as ISO-8601 UTC. Pure
// functions, any thread.
#pragma once

#include <QString>

namespace ckpt::inspector {

// `ms` (decimal milliseconds since the epoch, as ops emits timestamps) as
// "2024-03-01T12:00:00.000Z"; `ms` itself when it is not an integer or out of QDateTime's range
// (e.g. Long.MIN_VALUE / MAX_VALUE sentinels).
QString timestampText(const QString& ms);

}  // namespace ckpt::inspector
