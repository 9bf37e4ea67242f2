#include "models/location.h"

#include <QDir>

#include "ckpt/base/fs_resolver.h"
#include "models/display.h"

namespace ckpt::inspector {

OpenedLocation resolveLocation(const QString& location) {
  OpenedLocation out;
  auto resolved = base::ResolveFs(location.toStdString());
  if (!resolved.ok()) {
    out.error = qs(resolved.status().ToString());
    return out;
  }
  out.fs = resolved->fs;
  out.path = qs(resolved->path);
  return out;
}

QString cleanLocation(const QString& path) {
  if (base::SchemeOf(path.toStdString()).empty()) return QDir::cleanPath(path);
  QString out = path;
  const qsizetype authority = out.indexOf(QStringLiteral("://"));
  const qsizetype keep = authority < 0 ? 0 : authority + 3;
  while (out.size() > keep + 1 && out.endsWith(QLatin1Char('/'))) out.chop(1);
  return out;
}

}  // namespace ckpt::inspector
