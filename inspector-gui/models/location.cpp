#include "models/location.h"

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

}  // namespace ckpt::inspector
