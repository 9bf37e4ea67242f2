// Display helpers shared by the inspector's models and views: Qt strings from ops' std::string,
// human-readable sizes and times, and the item-data roles the models expose. Stateless.
#pragma once

#include <QDateTime>
#include <QString>
#include <Qt>
#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt::inspector {

// Roles shared by every model of the inspector (beyond Qt's own).
enum Role : int {
  kSortRole = Qt::UserRole + 1,  // a numeric value for sorting and charts (sizes, ids)
  kNodeKindRole,                 // DetailTreeModel::NodeKind / DiffTreeModel row kind
  kOperatorIdRole,               // 32 hex digits
  kSubtaskRole,                  // int, -1 when not applicable
  kFileIndexRole,                // int index into the snapshot's file table, -1 when none
  kFilePathRole,                 // resolved path on disk
  kChangeRole,                   // ops::DiffChange as int
  kSeverityRole,                 // ops::Severity as int
};

inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// "1.5 MiB", "512 B".
QString humanBytes(uint64_t bytes);
// A signed size delta: "+1.5 MiB", "-12 B", "0 B".
QString humanDelta(int64_t delta);
// ISO-8601 UTC ("2026-01-01 00:00:00 UTC") for a ms-since-epoch timestamp; "-" for 0.
QString formatTimestamp(int64_t ms);
// Tooltip text explaining the two sizes every view shows.
QString sizeExplanation();

}  // namespace ckpt::inspector
