#!/usr/bin/env bash
# The inspector never picks a filesystem by itself: every location it opens is resolved once
# through base::ResolveFs (inspector-gui/models/location.h) and the Fs is passed down. Fails,
# naming file:line, if `Fs::Default` appears anywhere under inspector-gui/.
set -euo pipefail
root="${1:?usage: no_default_fs_test.sh SOURCE_DIR}"
gui="$root/inspector-gui"
[[ -d "$gui" ]] || { echo "no $gui" >&2; exit 2; }
count=$(find "$gui" -type f \( -name '*.cpp' -o -name '*.h' \) | wc -l)
[[ $count -gt 0 ]] || { echo "FAIL: no sources found under $gui" >&2; exit 1; }
if hits=$(grep -rnF 'Fs::Default' "$gui"); then
  while IFS= read -r hit; do
    echo "FAIL: ${hit#"$root"/}: the inspector resolves its Fs through base::ResolveFs (models/location.h), never Fs::Default" >&2
  done <<< "$hits"
  exit 1
fi
echo "ok: $count inspector sources, none calls Fs::Default"
